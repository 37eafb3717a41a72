"""torchvision.models: the same architecture, module names and initialisation (a seeded build gives
torchvision's parameters), and the same forward in eval mode."""
from .harness import case


def _summary(model):
    """Every state-dict entry: name, shape, dtype, and its first three and last values (the RNG stream's
    alignment shows there)."""
    out = []
    for k, v in model.state_dict().items():
        flat = v.reshape(-1)
        vals = flat[:3].tolist() + flat[-1:].tolist() if flat.numel() else []
        out.append([k, list(v.shape), str(v.dtype), vals])
    return out


def _forward(T, model, size):
    model.eval()
    n = 3 * size * size
    x = T.tensor([((i * 37) % 101) / 50.0 - 1.0 for i in range(2 * n)]).reshape(2, 3, size, size)
    with T.no_grad():
        return model(x)


def _model_case(name, size, rtol=1e-4, atol=1e-5, **kw):
    def fn(T, V):
        m = getattr(V.models, name)(**kw)
        return _summary(m), _forward(T, m, size), sum(p.numel() for p in m.parameters())
    fn.__name__ = 'model_' + name + ('_' + '_'.join(f"{k}{v}" for k, v in kw.items()) if kw else '')
    case(rtol=rtol, atol=atol)(fn)


for _name, _size in (('resnet18', 32), ('resnet34', 32), ('resnet50', 32), ('mobilenet_v2', 32),
                     ('mobilenet_v3_large', 32), ('mobilenet_v3_small', 32), ('squeezenet1_0', 64),
                     ('squeezenet1_1', 64), ('alexnet', 64), ('vgg11', 32), ('vgg16', 32)):
    _model_case(_name, _size)
_model_case('resnet18', 32, num_classes=7, zero_init_residual=True)
_model_case('mobilenet_v3_small', 32, num_classes=5, reduced_tail=True, dilated=True)
_model_case('mobilenet_v2', 32, width_mult=0.5, num_classes=3)


@case()
def model_errors(T, V):
    out = []
    for call in (lambda: V.models.squeezenet1_0(), lambda: V.models.SqueezeNet('2_0'),
                 lambda: V.models.resnet18().layer1[0].__class__(64, 64, groups=2),
                 lambda: V.models.mobilenet_v2(inverted_residual_setting=[[1, 2]])):
        try:
            r = call()
            out.append(type(r).__name__)
        except (ValueError, NotImplementedError, TypeError) as e:
            out.append([type(e).__name__, str(e)])
    return out


@case()
def model_repr(T, V):
    return repr(V.models.squeezenet1_1(num_classes=3).features[3]), repr(V.models.resnet18().layer2[0])

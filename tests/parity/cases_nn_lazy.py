"""Lazy modules (issue 24): LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d,
LazyInstanceNorm1d/2d/3d and UninitializedParameter / UninitializedBuffer. Each case builds its modules after the
runner's per-case seed, so the parameters drawn when the first forward materializes them are torch's draws:
outputs, parameters, gradients, reprs before and after, the class a module becomes, state_dict round trips (a lazy
module loading an eager one's state), has_uninitialized_params, is_lazy and torch's errors are compared."""
from .harness import *  # noqa: F401,F403

X5 = [[0.5, -1.0, 2.0, 0.25, -0.75], [1.5, 0.3, -0.2, -1.1, 0.9]]


def _img(*shape):  # deterministic values in [-1.5, 1.5)
    n = 1
    for s in shape:
        n *= s
    flat = [((i * 7) % 13 - 6) * 0.25 for i in range(n)]

    def build(off, dims):
        if not dims:
            return flat[off]
        step = 1
        for d in dims[1:]:
            step *= d
        return [build(off + k * step, dims[1:]) for k in range(dims[0])]
    return build(0, list(shape))


def _run(T, m, x, dtype=None):
    """forward, backward of a weighted sum; the output, the class name, the repr and every parameter's grad."""
    before = repr(m)
    xt = T.tensor(x, dtype=dtype, requires_grad=True)
    y = m(xt)
    (y * T.linspace(-1.0, 1.0, y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
    return (before, repr(m), type(m).__name__, y.detach(), xt.grad,
            {n: (p.detach(), p.grad) for n, p in m.named_parameters()}, {n: b for n, b in m.named_buffers()})


LIN = {"plain": dict(out_features=3), "no_bias": dict(out_features=4, bias=False),
       "float64": dict(out_features=2, dtype="float64")}


def _lin(T, k):
    kw = dict(LIN[k])
    if "dtype" in kw:
        kw["dtype"] = getattr(T, kw["dtype"])
    return T.nn.LazyLinear(**kw)


cases("linear", lambda T, k: _run(T, _lin(T, k), X5, T.float64 if k == "float64" else None), k=list(LIN))
case("linear_float64_input", lambda T: (lambda m: (m(T.tensor(X5, dtype=T.float64)), m.weight.dtype))(
    T.nn.LazyLinear(2, dtype=T.float64)))
case("linear_3d_input", lambda T: _run(T, T.nn.LazyLinear(3), [X5, X5]))

CONV = {
    "conv1d": ("LazyConv1d", dict(out_channels=4, kernel_size=3), (2, 3, 7)),
    "conv1d_unbatched": ("LazyConv1d", dict(out_channels=2, kernel_size=2, stride=2), (3, 6)),
    "conv2d": ("LazyConv2d", dict(out_channels=4, kernel_size=3, padding=1), (1, 2, 5, 5)),
    "conv2d_groups": ("LazyConv2d", dict(out_channels=4, kernel_size=(2, 3), groups=2, bias=False), (2, 4, 4, 5)),
    "conv2d_reflect": ("LazyConv2d", dict(out_channels=2, kernel_size=3, padding=1, padding_mode="reflect"),
                       (1, 3, 4, 4)),
    "conv3d": ("LazyConv3d", dict(out_channels=2, kernel_size=2), (1, 2, 3, 3, 3)),
    "convT1d": ("LazyConvTranspose1d", dict(out_channels=3, kernel_size=3, stride=2), (2, 2, 4)),
    "convT2d": ("LazyConvTranspose2d", dict(out_channels=2, kernel_size=2, output_padding=1, stride=2),
                (1, 3, 3, 3)),
    "convT2d_groups": ("LazyConvTranspose2d", dict(out_channels=4, kernel_size=3, groups=2), (1, 2, 3, 3)),
    "convT3d": ("LazyConvTranspose3d", dict(out_channels=2, kernel_size=2), (1, 2, 2, 2, 2)),
}
cases("conv", lambda T, k: _run(T, getattr(T.nn, CONV[k][0])(**CONV[k][1]), _img(*CONV[k][2])), k=list(CONV))

NORM = {
    "bn1d": ("LazyBatchNorm1d", {}, (4, 3)), "bn1d_3d": ("LazyBatchNorm1d", dict(momentum=None), (2, 3, 4)),
    "bn2d": ("LazyBatchNorm2d", dict(eps=1e-3), (2, 3, 2, 2)),
    "bn2d_no_affine": ("LazyBatchNorm2d", dict(affine=False), (2, 3, 2, 2)),
    "bn2d_no_stats": ("LazyBatchNorm2d", dict(track_running_stats=False), (2, 3, 2, 2)),
    "bn2d_no_bias": ("LazyBatchNorm2d", dict(bias=False), (2, 3, 2, 2)),
    "bn3d": ("LazyBatchNorm3d", {}, (2, 2, 2, 2, 2)),
    "in1d": ("LazyInstanceNorm1d", {}, (2, 3, 5)), "in1d_affine": ("LazyInstanceNorm1d", dict(affine=True), (2, 3, 5)),
    "in2d_stats": ("LazyInstanceNorm2d", dict(track_running_stats=True, affine=True), (2, 3, 3, 3)),
    "in2d_unbatched": ("LazyInstanceNorm2d", dict(affine=True), (3, 3, 3)),
    "in3d": ("LazyInstanceNorm3d", dict(affine=True), (1, 2, 2, 2, 3)),
}
cases("norm", lambda T, k: _run(T, getattr(T.nn, NORM[k][0])(**NORM[k][1]), _img(*NORM[k][2])), k=list(NORM))
case("bn_eval_after_train", lambda T: (lambda m: (m(T.tensor(_img(4, 3))), m.eval(), m(T.tensor(_img(2, 3))),
                                                  m.running_mean, m.running_var, m.num_batches_tracked)[2:])(
    T.nn.LazyBatchNorm1d()))


def _uninit_state(T, m):
    return [(k, repr(v), type(v).__name__) for k, v in m.state_dict().items()]


case("state_dict_uninitialized", lambda T: _uninit_state(T, T.nn.LazyLinear(3)))
case("state_dict_uninitialized_bn", lambda T: _uninit_state(T, T.nn.LazyBatchNorm2d()))
case("repr_uninitialized_param", lambda T: (repr(T.nn.UninitializedParameter()), str(T.nn.UninitializedBuffer()),
                                            repr(T.nn.LazyLinear(3).weight)))
case("uninitialized_param_flags", lambda T: (lambda p: (p.requires_grad, p.dtype, type(p).__name__,
                                                        isinstance(p, T.nn.Parameter)))(T.nn.UninitializedParameter()))
case("uninitialized_buffer_flags", lambda T: (lambda b: (b.requires_grad, b.dtype, type(b).__name__,
                                                         isinstance(b, T.nn.Parameter)))(T.nn.UninitializedBuffer()))
case("uninitialized_dtype", lambda T: T.nn.UninitializedParameter(dtype=T.float64).dtype)
case("materialize", lambda T: (lambda p: (p.materialize((2, 3)), type(p).__name__, p.shape, p.dtype,
                                          p.requires_grad)[1:])(T.nn.UninitializedParameter()))
case("materialize_dtype", lambda T: (lambda p: (p.materialize((4,), dtype=T.float64), type(p).__name__, p.shape,
                                                p.dtype)[1:])(T.nn.UninitializedParameter()))
case("materialize_buffer", lambda T: (lambda b: (b.materialize((2, 2)), type(b).__name__, b.shape,
                                                 b.requires_grad)[1:])(T.nn.UninitializedBuffer()))
error_case("shape_of_uninitialized", lambda T: T.nn.LazyLinear(3).weight.shape)
error_case("share_memory_uninitialized", lambda T: T.nn.UninitializedParameter().share_memory_())
case("is_lazy", lambda T: (lambda m: [T.nn.parameter.is_lazy(p) for p in m.parameters()]
                           + [T.nn.parameter.is_lazy(T.ones(2))])(T.nn.LazyLinear(3)))


def _has_uninit(T):
    m = T.nn.LazyLinear(3)
    before = m.has_uninitialized_params()
    m(T.tensor(X5))
    return before, hasattr(m, "has_uninitialized_params"), type(m).__name__, hasattr(m, "_initialize_hook")


case("has_uninitialized_params", _has_uninit)


def _load_into_lazy(T, lazy, eager, x):
    eager_m = eager()
    lazy_m = lazy()
    result = lazy_m.load_state_dict(eager_m.state_dict())
    mid = (type(lazy_m).__name__, lazy_m.has_uninitialized_params(),
           {k: v.shape for k, v in lazy_m.state_dict().items()})
    y = lazy_m(T.tensor(x))
    return str(result), mid, type(lazy_m).__name__, repr(lazy_m), y.detach(), (y - eager_m(T.tensor(x))).abs().max()


case("load_state_dict_linear", lambda T: _load_into_lazy(T, lambda: T.nn.LazyLinear(3), lambda: T.nn.Linear(5, 3),
                                                         X5))
case("load_state_dict_conv", lambda T: _load_into_lazy(T, lambda: T.nn.LazyConv2d(2, 3),
                                                       lambda: T.nn.Conv2d(3, 2, 3), _img(1, 3, 4, 4)))
case("load_state_dict_bn", lambda T: _load_into_lazy(T, lambda: T.nn.LazyBatchNorm1d(), lambda: T.nn.BatchNorm1d(3),
                                                     _img(4, 3)))


def _save_after_init(T):
    m = T.nn.LazyLinear(2)
    m(T.tensor(X5))
    sd = m.state_dict()
    return list(sd), [type(v).__name__ for v in sd.values()], [v.requires_grad for v in sd.values()]


case("state_dict_after_init", _save_after_init)


def _mlp_training(T):
    net = T.nn.Sequential(T.nn.LazyLinear(8), T.nn.ReLU(), T.nn.LazyLinear(2))
    before = repr(net)
    net(T.tensor(X5))  # dummy batch: materializes the parameters
    opt = T.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = net(T.tensor(X5)).square().mean()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return before, repr(net), losses, [p.detach() for p in net.parameters()]


case("mlp_training", _mlp_training)


def _cnn(T):
    net = T.nn.Sequential(T.nn.LazyConv2d(3, 3), T.nn.LazyBatchNorm2d(), T.nn.ReLU(), T.nn.Flatten(),
                          T.nn.LazyLinear(2))
    y = net(T.tensor(_img(2, 1, 5, 5)))
    return repr(net), y.detach(), sum(p.numel() for p in net.parameters())


case("cnn", _cnn)


def _deepcopy(T):
    import copy
    m = T.nn.LazyLinear(3)
    c = copy.deepcopy(m)
    y = c(T.tensor(X5))
    return type(m).__name__, type(c).__name__, repr(m.weight), y.shape, m.has_uninitialized_params()


case("deepcopy_uninitialized", _deepcopy)
case("parameters_before_init", lambda T: [(n, type(p).__name__) for n, p in T.nn.LazyConv1d(2, 3).named_parameters()])
case("lazy_attributes", lambda T: (lambda m: (m.in_features, m.out_features, m.bias is None))(
    T.nn.LazyLinear(3, bias=False)))
case("conv_attributes", lambda T: (lambda m: (m.in_channels, m.out_channels, m.kernel_size, m.stride, m.groups))(
    T.nn.LazyConv2d(4, 3, stride=2, groups=2)))
case("isinstance_eager", lambda T: (isinstance(T.nn.LazyLinear(3), T.nn.Linear),
                                    isinstance(T.nn.LazyConv2d(2, 3), T.nn.Conv2d),
                                    isinstance(T.nn.LazyBatchNorm1d(), T.nn.modules.batchnorm._BatchNorm)))
error_case("conv_wrong_dims", lambda T: T.nn.LazyConv2d(2, 3)(T.ones(5, 5)))
error_case("conv_groups", lambda T: T.nn.LazyConv2d(4, 3, groups=2)(T.ones(1, 3, 5, 5)))
error_case("bn_wrong_dims", lambda T: T.nn.LazyBatchNorm2d()(T.ones(2, 3)))
error_case("linear_second_input_mismatch", lambda T: (lambda m: (m(T.ones(2, 5)), m(T.ones(2, 4))))(
    T.nn.LazyLinear(3)))
error_case("initialize_parameters_base", lambda T: T.nn.modules.lazy.LazyModuleMixin.initialize_parameters(
    T.nn.LazyLinear(3)))
error_case("op_on_uninitialized", lambda T: T.nn.UninitializedParameter() + 1,
           skip="wick has no __torch_function__ dispatch yet (issue 22): the op runs on the empty placeholder")

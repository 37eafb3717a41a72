"""nn.Module machinery: registration by assignment, traversal order, state_dict/load_state_dict (strict and not,
torch's error report), train/eval, zero_grad, requires_grad_, apply, hooks, containers and their printouts."""
from .harness import *  # noqa: F401,F403

W23 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
B2 = [0.1, -0.2]


def make(T):
    nn = T.nn

    class Affine(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(T.tensor(W23))
            self.bias = nn.Parameter(T.tensor(B2))
            self.register_buffer('steps', T.tensor(0))
            self.register_buffer('scratch', T.zeros(2), persistent=False)

        def forward(self, x):
            return x.mm(self.weight.t()) + self.bias

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Affine()
            self.blocks = nn.Sequential(nn.Module(), Affine())
            self.heads = nn.ModuleDict({'a': Affine(), 'b': nn.Module()})
            self.extra = nn.ParameterList([nn.Parameter(T.tensor([1.0, 2.0]))])

        def forward(self, x):
            return self.first(x)
    return Net()


case("named_parameters", lambda T: [(n, p.shape, p.requires_grad) for n, p in make(T).named_parameters()])
case("named_buffers", lambda T: [n for n, _ in make(T).named_buffers()])
case("named_modules", lambda T: [(n, type(m).__name__) for n, m in make(T).named_modules()])
case("named_children", lambda T: [n for n, _ in make(T).named_children()])
case("parameters_count", lambda T: len(list(make(T).parameters())))
case("parameters_no_recurse", lambda T: len(list(make(T).parameters(recurse=False))))
case("state_dict_keys", lambda T: list(make(T).state_dict().keys()))
case("state_dict_values", lambda T: list(make(T).state_dict().values()))
case("state_dict_metadata", lambda T: dict(make(T).state_dict()._metadata))
case("state_dict_detached", lambda T: [v.requires_grad for v in make(T).state_dict().values()])
case("state_dict_keep_vars", lambda T: [v.requires_grad for v in make(T).state_dict(keep_vars=True).values()])
case("repr", lambda T: repr(make(T)))
case("repr_module_list_runs", lambda T: repr(T.nn.ModuleList([T.nn.Module(), T.nn.Module(), T.nn.Sequential()])))
case("repr_parameter", lambda T: repr(T.nn.Parameter(T.tensor([1.5, -2.0]))))
case("repr_parameter_list", lambda T: repr(T.nn.ParameterList([T.nn.Parameter(T.tensor([1.0, 2.0]))])))
case("repr_parameter_dict", lambda T: repr(T.nn.ParameterDict({'w': T.nn.Parameter(T.ones(2, 3))})))
case("parameter_is_tensor", lambda T: (isinstance(T.nn.Parameter(T.ones(2)), T.Tensor),
                                      type(T.nn.Parameter(T.ones(2))).__name__,
                                      T.nn.Parameter(T.ones(2)).requires_grad,
                                      T.nn.Parameter(T.ones(2), requires_grad=False).requires_grad))


def _load_roundtrip(T):
    a, b = make(T), make(T)
    with T.no_grad():
        for p in a.parameters():
            p.mul_(3)
    res = b.load_state_dict(a.state_dict())
    return repr(res), [p for p in b.parameters()]
case("load_state_dict_roundtrip", _load_roundtrip)


def _load_nonstrict(T):
    m = make(T)
    sd = m.state_dict()
    del sd['first.bias']
    sd['bogus'] = T.zeros(1)
    res = m.load_state_dict(sd, strict=False)
    return res.missing_keys, res.unexpected_keys, repr(res)
case("load_state_dict_nonstrict", _load_nonstrict)


def _load_strict_errors(T):
    m = make(T)
    sd = m.state_dict()
    del sd['first.bias']
    sd['bogus'] = T.zeros(1)
    sd['first.weight'] = T.zeros(2, 4)
    m.load_state_dict(sd)
error_case("load_state_dict_strict_report", _load_strict_errors)


def _train_eval(T):
    m = make(T)
    a = [x.training for x in m.modules()]
    m.eval()
    b = [x.training for x in m.modules()]
    m.train()
    return a, b, [x.training for x in m.modules()], m.eval() is m
case("train_eval", _train_eval)


def _zero_grad(T):
    m = make(T)
    m(T.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    before = [p.grad for p in m.parameters()]
    m.zero_grad(set_to_none=False)
    zeros = [p.grad for p in m.parameters()]
    m.zero_grad()
    return before, zeros, [p.grad is None for p in m.parameters()]
case("zero_grad", _zero_grad)


def _requires_grad_(T):
    m = make(T).requires_grad_(False)
    return [p.requires_grad for p in m.parameters()]
case("requires_grad_", _requires_grad_)


def _apply(T):
    seen = []
    make(T).apply(lambda mod: seen.append(type(mod).__name__))
    return seen
case("apply_order", _apply)


def _hooks(T):
    log = []
    m = make(T)
    h1 = m.first.register_forward_pre_hook(lambda mod, args: log.append(('pre', args[0].shape)))
    h2 = m.first.register_forward_hook(lambda mod, args, out: out * 2)
    out = m(T.tensor([[1.0, 2.0, 3.0]]))
    h1.remove()
    h2.remove()
    out2 = m(T.tensor([[1.0, 2.0, 3.0]]))
    return log, out, out2
case("forward_hooks", _hooks)


def _setattr_rules(T):
    m = make(T)
    m.first.bias = None
    m.note = 3
    del m.heads
    return [n for n, _ in m.named_parameters()], m.note, hasattr(m, 'heads')
case("setattr_delattr", _setattr_rules)
error_case("assign_tensor_to_parameter", lambda T: setattr(make(T).first, 'weight', T.ones(2, 3)))
error_case("assign_before_init", lambda T: (lambda M: M())(type('Bad', (T.nn.Module,), {
    '__init__': lambda self: setattr(self, 'p', T.nn.Parameter(T.ones(1)))})))
error_case("missing_attribute", lambda T: make(T).nothing_here)
error_case("register_buffer_dotted", lambda T: make(T).register_buffer('a.b', T.zeros(1)))
error_case("forward_not_implemented", lambda T: T.nn.Module()(T.ones(1)))


def _sequential(T):
    nn = T.nn
    s = nn.Sequential(nn.Module(), nn.Sequential(), nn.ModuleList())
    return len(s), type(s[1]).__name__, repr(s[0:2]), repr(s[-1]), [type(x).__name__ for x in s]
case("sequential_indexing", _sequential)


def _sequential_ordered(T):
    from collections import OrderedDict
    nn = T.nn
    s = nn.Sequential(OrderedDict([('conv', nn.Module()), ('act', nn.Sequential())]))
    s.append(nn.Module())
    del s[0]
    return repr(s), [n for n, _ in s.named_children()]
case("sequential_ordereddict", _sequential_ordered)


def _module_dict(T):
    nn = T.nn
    d = nn.ModuleDict({'b': nn.Module(), 'a': nn.Sequential()})
    d['c'] = nn.ModuleList()
    return list(d.keys()), len(d), 'a' in d, repr(d)
case("module_dict", _module_dict)


def _get_submodule(T):
    m = make(T)
    return type(m.get_submodule('blocks.1')).__name__, m.get_parameter('heads.a.weight').shape
case("get_submodule", _get_submodule)

# type(m) prints torch's class path (also what torch.save(model) writes into the pickle)
NN_CLASSES = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "Linear", "Bilinear", "Identity",
              "Conv2d", "ConvTranspose2d", "MaxPool2d", "AdaptiveAvgPool2d", "BatchNorm2d", "LayerNorm", "GroupNorm",
              "InstanceNorm2d", "RMSNorm", "Dropout", "Embedding", "EmbeddingBag", "ReLU", "GELU", "Softmax",
              "CrossEntropyLoss", "MSELoss", "LSTM", "GRU", "RNNCell", "MultiheadAttention", "Transformer",
              "TransformerEncoderLayer", "Flatten", "Unflatten", "Upsample", "PixelShuffle", "ChannelShuffle",
              "ZeroPad2d", "Fold", "CosineSimilarity"]
case("nn_class_module_paths", lambda T: [(n, getattr(T.nn, n).__module__, repr(getattr(T.nn, n))) for n in NN_CLASSES])
case("nn_type_of_instance", lambda T: (str(type(T.nn.Linear(2, 3))), str(type(T.nn.Sequential()))))

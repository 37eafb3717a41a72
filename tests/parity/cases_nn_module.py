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


# ---- found by the API fuzzer (/tmp/fz-autograd/fz_module.py): registration messages, state_dict's positional
# form, load_state_dict's assign= and key rules, the buffer-assignment path
error_case("register_buffer_int_value", lambda T: T.nn.Module().register_buffer('b', 5))
error_case("register_buffer_class_value", lambda T: T.nn.Module().register_buffer('b', T.nn.Linear))
error_case("register_parameter_int_name", lambda T: T.nn.Module().register_parameter(3, None))
error_case("add_module_none_name", lambda T: T.nn.Module().add_module(None, T.nn.ReLU()))
error_case("add_module_class", lambda T: T.nn.Module().add_module('a', T.nn.ReLU))
error_case("register_parameter_tensor", lambda T: T.nn.Module().register_parameter('p', T.ones(2, dtype=T.int64)))
case("state_dict_positional_warns", lambda T: list(make(T).state_dict(None, 'pre.').keys()), warns=True)
case("state_dict_positional_keep_vars", lambda T: [v.requires_grad for v in make(T).state_dict(None, '', True).values()],
     warns=True)


def _assign(T, strict):
    m = make(T)
    sd = m.state_dict()
    sd['first.weight'] = T.nn.Parameter(T.full((2, 3), 4.0), requires_grad=False)
    sd['first.bias'] = T.tensor([7.0, 8.0])
    old = m.first.bias
    res = m.load_state_dict(sd, strict=strict, assign=True)
    return (repr(res), m.first.bias is old, m.first.bias is sd['first.bias'], type(m.first.bias).__name__,
            m.first.weight.requires_grad, m.first.weight is sd['first.weight'], m.first.steps is sd['first.steps'],
            dict(sd._metadata[''])['assign_to_params_buffers'], [p for p in m.parameters()])
cases("load_state_dict_assign", _assign, strict=BOOLS)


def _assign_buffer_keeps_detached(T):
    m = T.nn.Module()
    m.register_buffer('b', T.tensor([1.0], requires_grad=True) * 2)
    m.load_state_dict(m.state_dict(), assign=True)
    return m.b.requires_grad, m.b.grad_fn is None
case("load_state_dict_assign_buffer", _assign_buffer_keeps_detached)


def _load_keys(T, key):
    m = make(T)
    sd = m.state_dict()
    sd[key] = T.zeros(1)
    res = m.load_state_dict(sd, strict=False)
    return res.unexpected_keys, repr(res)
cases("load_state_dict_unexpected", _load_keys,
      key=['first', 'first.weight.x', 'heads', 'heads.a', '_extra_state', 'first._extra_state', 'blocks.0.x', 'nope.x'])
error_case("load_state_dict_module_key_strict", lambda T: make(T).load_state_dict(dict(make(T).state_dict(), first=T.ones(1))))
error_case("load_state_dict_list", lambda T: make(T).load_state_dict(list(make(T).state_dict().items())))


def _post_hook_returns(T):
    m = make(T)
    m.register_load_state_dict_post_hook(lambda mod, keys: 1)
    m.load_state_dict(m.state_dict())
error_case("load_state_dict_post_hook_returns", _post_hook_returns)


def _setattr_buffer(T, value):
    m = make(T)
    v = {'str': 'x', 'int': 3, 'none': None, 'tensor': T.tensor([5.0])}[value]
    m.first.scratch = v
    return [n for n, _ in m.named_buffers()], list(m.state_dict().keys()), m.first.scratch
cases("setattr_buffer", _setattr_buffer, kind=lambda value: "error" if value in ('str', 'int') else "value",
      value=['str', 'int', 'none', 'tensor'])


def _setattr_nn_buffer(T, where):
    m = make(T)
    if where == 'plain':
        m.first.plain = 1
    m.first.__setattr__({'plain': 'plain', 'param': 'weight', 'module': 'blocks', 'new': 'newbuf'}[where],
                        T.nn.Buffer(T.tensor([4.0, 5.0]), persistent=False))
    return [n for n, _ in m.named_buffers()], list(m.state_dict().keys())
cases("setattr_nn_buffer", _setattr_nn_buffer, kind=lambda where: "value" if where == 'new' else "error",
      where=['plain', 'param', 'new'])
error_case("setattr_nn_buffer_on_module", lambda T: setattr(make(T), 'blocks', T.nn.Buffer(T.ones(1))))


# ---- module backward hooks (were NotImplementedError): full hooks and pre-hooks through BackwardHookFunction nodes,
# old-style hooks on the output's grad_fn, their errors and warnings; found and checked by the API fuzzer
def _lin(T):
    m = T.nn.Linear(2, 3)
    with T.no_grad():
        m.weight.copy_(T.tensor([[0.5, -1.0], [1.5, 2.0], [0.25, 0.75]]))
        m.bias.copy_(T.tensor([0.1, -0.2, 0.3]))
    return m


def _full_hooks(T, x_grad, ret):
    m, seen = _lin(T), []

    def hook(mod, gi, go):
        seen.append(('hook', type(mod).__name__, gi, go))
        return {'none': None, 'scale': tuple(None if g is None else g * 10 for g in gi), 'long': gi + (None,)}[ret]

    def pre(mod, go):
        seen.append(('pre', go))
        return (go[0] * 2,) if ret == 'scale' else None
    m.register_full_backward_hook(hook)
    m.register_full_backward_pre_hook(pre)
    x = T.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=x_grad)
    y = m(x)
    (y * T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]])).sum().backward()
    return type(y.grad_fn).__name__, seen, x.grad, m.weight.grad
cases("full_backward_hook", _full_hooks,
      kind=lambda x_grad, ret: "error" if ret == 'long' and x_grad else "value",
      x_grad=BOOLS, ret=['none', 'scale', 'long'], warns=True)


def _hook_order(T):
    seen = []
    s = T.nn.Sequential(_lin(T), T.nn.ReLU())
    s[0].register_full_backward_hook(lambda mod, gi, go: seen.append(('lin', gi, go)))
    s[1].register_full_backward_hook(lambda mod, gi, go: seen.append(('relu', gi, go)))
    s.register_full_backward_hook(lambda mod, gi, go: seen.append(('seq-last', len(gi))))
    s.register_full_backward_hook(lambda mod, gi, go: seen.append(('seq-first', len(go))), prepend=True)
    s.register_full_backward_pre_hook(lambda mod, go: seen.append(('pre-last', go)))
    s.register_full_backward_pre_hook(lambda mod, go: seen.append(('pre-first', go)), prepend=True)
    s(T.tensor([[1.0, -1.0]], requires_grad=True)).sum().backward()
    return seen
case("full_backward_hook_order", _hook_order)


def _multi_io(T):
    class Two(T.nn.Module):
        def forward(self, a, b, k):
            return a * k, b.sum(), 'tag'
    seen = []
    t = Two()
    h = t.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    a, b = T.tensor([1.0, 2.0], requires_grad=True), T.tensor([3.0, 4.0], requires_grad=True)
    r = t(a, b, 3.0)
    (r[0].sum() * 2 + r[1]).backward()
    h.remove()
    t(a, b, 3.0)[1].backward()
    return r[2], seen, a.grad, b.grad
case("full_backward_hook_multi_io", _multi_io)


def _hook_errors(T, what):
    m = _lin(T)
    if what == 'full_then_old':
        m.register_full_backward_hook(lambda *a: None)
        m.register_backward_hook(lambda *a: None)
    elif what == 'old_then_full':
        m.register_backward_hook(lambda *a: None)
        m.register_full_backward_hook(lambda *a: None)
    elif what == 'pre_long':
        m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        m(T.tensor([[1.0, -1.0]], requires_grad=True)).sum().backward()
cases("backward_hook_errors", _hook_errors, kind="error", what=['full_then_old', 'old_then_full', 'pre_long'])


def _dict_output(T):
    class D(T.nn.Module):
        def forward(self, a):
            return {'a': a * 2}
    d = D()
    d.register_full_backward_hook(lambda *a: None)
    return sorted(d(T.tensor([1.0], requires_grad=True)))
case("full_backward_hook_dict_output_warns", _dict_output, warns=True)


def _old_hook(T):
    m, seen = _lin(T), []
    m.register_backward_hook(lambda mod, gi, go: seen.append((type(mod).__name__, gi, go)))
    x = T.tensor([[1.0, -1.0]], requires_grad=True)
    m(x).sum().backward()
    return seen, x.grad
case("old_backward_hook", _old_hook, warns=True)
case("backward_hooks_no_grad", lambda T: (lambda m: (m.register_full_backward_hook(lambda *a: 1 / 0), T.no_grad().__enter__(),
     m(T.tensor([[1.0, -1.0]], requires_grad=True)).grad_fn is None)[2])(_lin(T)))


# ---- state_dict / load_state_dict hooks through the public API, set_submodule; Function with setup_context and
# keyword arguments to apply (were missing)
def _sd_hooks(T, post_ret):
    m, seen = make(T), []

    def post(mod, sd, prefix, meta):
        seen.append(('post', type(mod).__name__, prefix, len(sd)))
        return {'none': None, 'dict': {}}[post_ret]
    m.first.register_state_dict_pre_hook(lambda mod, prefix, keep: seen.append(('pre', prefix, keep)))
    m.first.register_state_dict_post_hook(post)
    sd = m.state_dict()
    return seen, list(sd)
cases("state_dict_post_hook", _sd_hooks, kind=lambda post_ret: "error" if post_ret == 'dict' else "value",
      post_ret=['none', 'dict'])


def _sd_private_hook(T):
    m, seen = make(T), []

    def post(mod, sd, prefix, meta):
        return {'only': sd[prefix + 'weight']}
    m.first._register_state_dict_hook(post)
    return list(m.state_dict())
case("state_dict_private_hook_replaces", _sd_private_hook)
error_case("state_dict_hook_public_then_private", lambda T: (lambda m, h: (m.register_state_dict_post_hook(h),
           m._register_state_dict_hook(h)))(make(T), lambda *a: None))


def _load_pre_hooks(T):
    m, seen = make(T), []
    m.first.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, meta, strict, missing, unexpected, errors: seen.append(('pub', type(mod).__name__,
                                                                                         prefix, strict)))
    m.first._register_load_state_dict_pre_hook(
        lambda sd, prefix, meta, strict, missing, unexpected, errors: seen.append(('priv', prefix, len(missing))))
    m.load_state_dict(m.state_dict(), strict=False)
    return seen
case("load_state_dict_pre_hooks", _load_pre_hooks)


def _set_submodule(T, target, strict):
    m = make(T)
    m.set_submodule(target, T.nn.ReLU(), strict=strict)
    return [n for n, _ in m.named_modules()]
cases("set_submodule", _set_submodule,
      kind=lambda target, strict: "error" if target in ('', 'first.weight', 'nope.x') or (target == 'new' and strict)
      else "value", target=['first', 'blocks.1', 'new', '', 'first.weight', 'nope.x'], strict=BOOLS)
error_case("set_submodule_not_module", lambda T: make(T).set_submodule('first', 3))
cases("sequential_insert_bad_index", lambda T, index: T.nn.Sequential(T.nn.ReLU()).insert(index, T.nn.Tanh()),
      kind="error", index=[5.0, -3.0, 1.0, 7])

"""Random sequences of autograd and nn.Module API calls (fixed seeds), valid and invalid: backward / autograd.grad
with drawn gradients, inputs and flags, .grad of non-leaves, retain_grad, tensor hooks returning None / a tensor /
a wrong one, grad-mode context managers nested, detach / detach_; on small random models register_buffer /
register_parameter / add_module / attribute assignment with drawn names and values, named_* listings, state_dict
and load_state_dict (strict, assign, edited dicts), hooks, train / eval, apply, to(dtype), zero_grad,
requires_grad_, full / old-style backward hooks and pre-hooks. Each case returns the log of (step, result or exception type and message, warnings).
Custom autograd.Functions with drawn save_for_backward / mark_dirty / mark_non_differentiable / backward results;
Sequential / ModuleList / ModuleDict / ParameterList / ParameterDict indexing, insertion, deletion and printing.
Left out: detach() of an inference tensor (torch gives it a fresh version counter, wick shares the tensor's)."""
import random
import re
import warnings

from .harness import *  # noqa: F401,F403
from collections import OrderedDict

_TRIGGERED = re.compile(r" \(Triggered internally at [^()\n]*:\d+\.\)\Z")


def _norm(v, T, depth=0):
    if depth > 6:
        return '<deep>'
    if isinstance(v, T.Tensor):
        vals = v.detach().flatten().tolist()
        vals = [round(x, 4) if isinstance(x, float) and x == x and abs(x) != float('inf') else x for x in vals]
        gf = type(v.grad_fn).__name__ if v.grad_fn is not None else None
        return ['T', type(v).__name__, list(v.shape), str(v.dtype), vals, v.requires_grad, gf, v.is_leaf]
    if isinstance(v, T.nn.Module):
        return ['M', repr(v)]
    if isinstance(v, BaseException):
        return ['E', type(v).__name__, str(v).split('\nException raised from')[0]]
    if isinstance(v, tuple) and hasattr(v, '_fields'):
        return ['NT', type(v).__name__, repr(v), [_norm(x, T, depth + 1) for x in v]]
    if isinstance(v, (list, tuple)):
        return [_norm(x, T, depth + 1) for x in v]
    if isinstance(v, dict):
        return ['D', [[k, _norm(x, T, depth + 1)] for k, x in v.items()]]
    if isinstance(v, T.dtype):
        return str(v)
    if isinstance(v, float):
        return round(v, 4)
    if isinstance(v, (int, str, bool, type(None))):
        return v
    if isinstance(v, T.Size):
        return list(v)
    return ['O', type(v).__name__]


class Log:
    def __init__(self, T):
        self.T = T
        self.items = []

    def __call__(self, tag, fn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            try:
                res = fn()
                out = _norm(res, self.T)
            except (RuntimeError, IndexError, ValueError, TypeError, KeyError, AttributeError, NotImplementedError,
                    StopIteration, AssertionError) as e:
                res = e
                out = _norm(e, self.T)
        ws = [[x.category.__name__, _TRIGGERED.sub('', str(x.message))] for x in w]
        self.items.append([tag, out, ws])
        return res


NAMES = ['w', 'b', 'a.b', '', 'training', 'forward', 'lin', '0', '1', 'buf', 'weight', 'x_y', 3, None, 'fc']

def build(T, r):
    nn = T.nn
    def leaf():
        c = r.randrange(5)
        if c == 0: return nn.Linear(r.randint(1, 3), r.randint(1, 3), bias=r.random() < 0.7)
        if c == 1: return nn.ReLU()
        if c == 2: return nn.BatchNorm1d(2)
        if c == 3: return nn.LayerNorm(2)
        return nn.Identity()
    def mk(depth):
        c = r.randrange(5) if depth < 2 else 0
        if c == 0: return leaf()
        if c == 1: return nn.Sequential(*[mk(depth + 1) for _ in range(r.randint(0, 3))])
        if c == 2: return nn.ModuleList([mk(depth + 1) for _ in range(r.randint(0, 3))])
        if c == 3: return nn.ModuleDict(OrderedDict((r.choice(['a', 'b', 'c', 'z']), mk(depth + 1)) for _ in range(r.randint(0, 3))))
        m = nn.Module()
        m.fc = mk(depth + 1)
        if r.random() < 0.5:
            m.register_buffer('buf', T.tensor([1.5, -2.0]), persistent=r.random() < 0.5)
        if r.random() < 0.5:
            m.p = nn.Parameter(T.tensor([[0.5, 1.0]]))
        if r.random() < 0.4:
            m.shared = m.fc
        return m
    return mk(0)

def value(T, r):
    c = r.randrange(12)
    if c == 10: return T.nn.Buffer(T.tensor([4.0, 5.0]), persistent=r.random() < 0.5)
    if c == 11: return T.nn.Linear
    if c == 0: return T.nn.Parameter(T.tensor([1.0, 2.0]))
    if c == 1: return T.tensor([3.0])
    if c == 2: return T.nn.Linear(1, 1)
    if c == 3: return None
    if c == 4: return 5
    if c == 5: return T.tensor([1, 2])
    if c == 6: return T.nn.Parameter(T.tensor([1.0]), requires_grad=False)
    if c == 7: return (T.tensor([1.0], requires_grad=True) * 2)
    if c == 8: return T.nn.ReLU()
    return 'str'

def _module_scenario(T, r, L):
    nn = T.nn
    m = build(T, r)
    L('repr', lambda: repr(m))
    for step in range(r.randint(3, 10)):
        a = r.randrange(26)
        name = r.choice(NAMES)
        if a == 0:
            v = value(T, r); pers = r.random() < 0.5
            L('register_buffer', lambda: m.register_buffer(name, v, persistent=pers))
        elif a == 1:
            v = value(T, r)
            L('register_parameter', lambda: m.register_parameter(name, v))
        elif a == 2:
            v = value(T, r)
            L('add_module', lambda: m.add_module(name, v))
        elif a == 3:
            v = value(T, r)
            L('setattr', lambda: setattr(m, name if isinstance(name, str) else 'q', v))
        elif a == 4:
            L('delattr', lambda: delattr(m, name if isinstance(name, str) else 'q'))
        elif a == 5:
            L('getattr', lambda: getattr(m, name if isinstance(name, str) else 'q'))
        elif a == 6:
            rec = r.random() < 0.8; dup = r.random() < 0.8; pre = r.choice(['', 'm'])
            L('named_parameters', lambda: [(n, tuple(p.shape)) for n, p in m.named_parameters(prefix=pre, recurse=rec, remove_duplicate=dup)])
            L('named_buffers', lambda: [(n, tuple(p.shape)) for n, p in m.named_buffers(prefix=pre, recurse=rec, remove_duplicate=dup)])
            L('named_modules', lambda: [(n, type(p).__name__) for n, p in m.named_modules(prefix=pre, remove_duplicate=dup)])
            L('children', lambda: [type(c).__name__ for c in m.children()])
            L('named_children', lambda: [n for n, c in m.named_children()])
        elif a == 7:
            kv = r.random() < 0.3
            L('state_dict', lambda: [(k, tuple(v.shape), v.requires_grad) for k, v in m.state_dict(keep_vars=kv).items()])
            L('sd_meta', lambda: list(m.state_dict()._metadata.items()))
        elif a == 8:
            def f():
                sd = m.state_dict()
                keys = list(sd)
                c = r.randrange(6)
                if r.random() < 0.2 and keys: k = r.choice(keys); sd[k] = T.nn.Parameter(sd[k].clone(), requires_grad=r.random()<0.5)
                if c == 0 and keys: del sd[r.choice(keys)]
                if c == 1: sd['extra.' + r.choice(['w', 'x'])] = T.zeros(1)
                if c == 2 and keys:
                    k = r.choice(keys); sd[k] = T.zeros(tuple(sd[k].shape) + (2,))
                if c == 3 and keys:
                    k = r.choice(keys); sd[k] = 'notatensor'
                if c == 4: sd[r.choice(['bogus', 'fc', 'p.x', '_extra_state', 'fc._extra_state', 'a', '0', 'a.0.weight.x', 'shared.w'])] = T.zeros(1)
                if c == 5 and r.random() < 0.3: sd = r.choice([list(sd.items()), None, dict(sd)])
                strict = r.random() < 0.6; assign = r.random() < 0.3
                res = m.load_state_dict(sd, strict=strict, assign=assign)
                return (repr(res), str(res), res.missing_keys, res.unexpected_keys, [(k, type(v).__name__, v.requires_grad) for k, v in m.state_dict(keep_vars=True).items()])
            L('load_state_dict', f)
        elif a == 9:
            mode = r.choice([True, False, 1, None])
            L('train', lambda: (m.train(mode) is m, [x.training for x in m.modules()]))
        elif a == 10:
            L('eval', lambda: (m.eval() is m, [x.training for x in m.modules()]))
        elif a == 11:
            seen = []
            L('apply', lambda: (m.apply(lambda x: seen.append(type(x).__name__)) is m, seen))
        elif a == 12:
            dt = r.choice([T.float64, T.float16, T.int64, T.float32, T.bfloat16])
            L('to', lambda: (m.to(dt) is m, [(n, str(p.dtype), type(p).__name__) for n, p in m.named_parameters()], [(n, str(p.dtype)) for n, p in m.named_buffers()]))
        elif a == 13:
            def f():
                for p in m.parameters():
                    p.grad = T.ones_like(p)
                stn = r.choice([True, False])
                m.zero_grad(set_to_none=stn)
                return [None if p.grad is None else p.grad.tolist() for p in m.parameters()]
            L('zero_grad', f)
        elif a == 14:
            rg = r.choice([True, False])
            L('requires_grad_', lambda: (m.requires_grad_(rg) is m, [p.requires_grad for p in m.parameters()]))
        elif a == 15:
            def f():
                calls = []
                wk = r.random() < 0.5; pp = r.random() < 0.5
                def hook(mod, *args):
                    calls.append(('pre', len(args)))
                    return None
                h = m.register_forward_pre_hook(hook, prepend=pp, with_kwargs=wk)
                h2 = m.register_forward_hook(lambda mod, *args: calls.append(('post', len(args))), prepend=r.random() < 0.5, with_kwargs=r.random() < 0.5)
                try:
                    if any(t.dtype != T.float32 for t in list(m.parameters()) + list(m.buffers()) if t.is_floating_point()):
                        raise TypeError('mixed dtypes')
                    m(T.ones(2, 2))
                except Exception as e:
                    calls.append('err')
                h.remove(); h2.remove()
                if r.random() < 0.5: h.remove()
                return calls, len(m._forward_hooks), len(m._forward_pre_hooks)
            L('hooks', f)
        elif a == 16:
            L('get_submodule', lambda: type(m.get_submodule(r.choice(['', 'fc', '0', 'fc.0', 'a', 'x.y', 'shared']))).__name__)
            L('get_parameter', lambda: tuple(m.get_parameter(r.choice(['p', 'fc.weight', '0.weight', 'buf', 'fc', 'x'])).shape))
            L('get_buffer', lambda: tuple(m.get_buffer(r.choice(['buf', 'fc.running_mean', 'p', 'x', 'fc.num_batches_tracked'])).shape))
        elif a == 17:
            L('dir_has', lambda: [k for k in ['fc', 'p', 'buf', 'shared', 'training'] if k in dir(m)])
        elif a == 18:
            L('parameters_len', lambda: (len(list(m.parameters())), len(list(m.parameters(recurse=False))), len(list(m.buffers())), len(list(m.modules()))))
        elif a == 19:
            L('state_dict_pos', lambda: list(m.state_dict(None, 'pre.').keys()))
        elif a == 20:
            L('half_double', lambda: [str(p.dtype) for p in r.choice([m.double, m.float, m.half, m.bfloat16])().parameters()])
        elif a == 23:
            L('plain', lambda: setattr(m, r.choice(['plain', 'fc', 'buf']), r.choice([1, 'x', None])))
        elif a == 24:
            def f():
                calls = []
                def sh(gs): return [None if g is None else tuple(g.shape) for g in gs]
                kind = r.choice(['full', 'pre', 'old', 'both'])
                ret = r.choice([None, 'same', 'bad_len', 'none_tuple'])
                def hook(mod, gi, go):
                    # an old-style hook sees the node's own arity (wick's batch_norm node differs): no shapes then
                    calls.append(('bw', type(mod).__name__) + ((sh(gi), sh(go)) if kind != 'old' else ()))
                    if ret == 'same': return gi
                    if ret == 'bad_len': return gi + (None,)
                    if ret == 'none_tuple': return tuple(None for _ in gi)
                def pre(mod, go):
                    calls.append(('pre', type(mod).__name__, sh(go)))
                    if ret == 'bad_len': return go + (None,)
                    if ret == 'same': return go
                target = r.choice(list(m.modules()))
                hs = []
                try:
                    if kind in ('full', 'both'): hs.append(target.register_full_backward_hook(hook, prepend=r.random() < 0.5))
                    if kind in ('pre', 'both'): hs.append(target.register_full_backward_pre_hook(pre, prepend=r.random() < 0.5))
                    if kind == 'old': hs.append(target.register_backward_hook(hook))
                except RuntimeError as e:
                    calls.append(str(e))
                x = T.ones(2, 2, requires_grad=r.random() < 0.7)
                # wick runs batch_norm / layer_norm with parameters of another dtype (torch: 'mixed dtype')
                mixed = any(t.dtype != T.float32 for t in list(m.parameters()) + list(m.buffers()) if t.is_floating_point())
                try:
                    if mixed:
                        raise TypeError('mixed')
                    y = m(x)
                    if isinstance(y, T.Tensor) and y.requires_grad:
                        y.sum().backward()
                        calls.append(('xgrad', None if x.grad is None else tuple(x.grad.shape)))
                except Exception as e:
                    calls.append(('err', type(e).__name__, str(e)[:150]) if 'dtype' not in str(e) and 'type' not in str(e) else 'err')
                for h in hs: h.remove()
                return calls
            L('backward_hooks', f)
        elif a == 21:
            L('extra_repr', lambda: m.extra_repr())
        elif a == 22:
            L('type', lambda: [str(p.dtype) for p in m.type(r.choice([T.float64, T.float32])).parameters()])
        else:
            L('repr', lambda: repr(m))
    L('final_repr', lambda: repr(m))


SHAPES = [(), (2,), (2, 3), (1,), (3, 1)]


def _autograd_scenario(T, r, L):
    def data(shape):
        n = 1
        for d in shape: n *= d
        vals = [round(r.uniform(-2, 2), 2) or 0.5 for _ in range(n)]
        return T.tensor(vals).reshape(shape)
    leaves = []
    for i in range(r.randint(1, 3)):
        x = data(r.choice(SHAPES))
        if r.random() < 0.85: x.requires_grad_()
        leaves.append(x)
    pool = list(leaves)
    for step in range(r.randint(4, 12)):
        a = r.randrange(26)
        x = r.choice(pool)
        if a == 0:   # make a new node
            op = r.choice(['mul', 'exp', 'sum', 'add', 'pow', 'sin', 'mean', 'expand', 'view', 'relu', 'mul_', 'add_'])
            def f():
                if op == 'mul': y = x * r.choice(pool).sum()
                elif op == 'exp': y = x.exp()
                elif op == 'sum': y = x.sum()
                elif op == 'add': y = x + 1.5
                elif op == 'pow': y = x ** 2
                elif op == 'sin': y = x.sin()
                elif op == 'mean': y = x.mean()
                elif op == 'expand': y = x.reshape(-1)[:1].expand(2, 2)
                elif op == 'view': y = x.view(-1)
                elif op == 'relu': y = x.relu()
                elif op == 'mul_': y = x.mul_(2)
                else: y = x.add_(1)
                pool.append(y)
                return y
            L('op_' + op, f)
        elif a == 1:
            g = r.choice([None, 'ones', 'wrong', 'scalar', 'int', 'list'])
            rg = r.choice([None, True, False])
            def f():
                gr = None
                if g == 'ones': gr = T.ones_like(x) * 0.5
                elif g == 'wrong': gr = T.ones(5)
                elif g == 'scalar': gr = T.tensor(2.0)
                elif g == 'int': gr = T.ones(x.shape, dtype=T.int64)
                elif g == 'list': gr = [1.0]
                x.backward(gr, retain_graph=rg)
                return [l.grad for l in leaves]
            L('backward', f)
        elif a == 2:
            def f():
                ins = r.sample(pool, r.randint(1, len(pool)))
                single = r.random() < 0.3
                go = r.choice([None, 'ones', 'wrongshape', 'wronglen', 'none_in_list'])
                gos = None
                if go == 'ones': gos = T.ones_like(x)
                elif go == 'wrongshape': gos = T.ones(7)
                elif go == 'wronglen': gos = [T.ones_like(x), T.ones_like(x)]
                elif go == 'none_in_list': gos = [None]
                kw = {}
                for k in ['allow_unused', 'create_graph', 'retain_graph', 'materialize_grads']:
                    if r.random() < 0.4: kw[k] = r.choice([True, False])
                res = T.autograd.grad(x, ins[0] if single else ins, grad_outputs=gos, **kw)
                return res
            L('autograd.grad', f)
        elif a == 3:
            L('grad_attr', lambda: x.grad)
        elif a == 4:
            L('retain_grad', lambda: (x.retain_grad(), x.retains_grad))
        elif a == 5:
            L('requires_grad_', lambda: x.requires_grad_(r.choice([True, False])))
        elif a == 6:
            L('int_requires_grad', lambda: T.tensor([1, 2]).requires_grad_())
        elif a == 7:
            ret = r.choice(['none', 'double', 'bad_shape', 'int'])
            def f():
                def hook(g):
                    if ret == 'double': return g * 2
                    if ret == 'bad_shape': return T.ones(9)
                    if ret == 'int': return 3
                    return None
                h = x.register_hook(hook)
                if r.random() < 0.3: h.remove()
                return None
            L('register_hook_' + ret, f)
        elif a == 8:
            mode = r.choice(['no_grad', 'enable_grad', 'sgt', 'sgf', 'inf', 'inf_false'])
            def f():
                ctx = {'no_grad': T.no_grad, 'enable_grad': T.enable_grad, 'sgt': lambda: T.set_grad_enabled(True),
                       'sgf': lambda: T.set_grad_enabled(False), 'inf': T.inference_mode, 'inf_false': lambda: T.inference_mode(False)}[mode]()
                with ctx:
                    y = x * 2
                    inner = r.choice([None, 'no_grad', 'enable_grad'])
                    if inner:
                        with getattr(T, inner)():
                            z = x * 3
                    else:
                        z = x + 0
                    st = (T.is_grad_enabled(), T.is_inference_mode_enabled())
                if not y.is_inference():   # wick: detach() of an inference tensor shares its counter
                    pool.append(y)
                return y.requires_grad, y.grad_fn is not None and type(y.grad_fn).__name__, z.requires_grad, st, T.is_grad_enabled(), y.is_inference()
            L('ctx_' + mode, f)
        elif a == 9:
            L('detach', lambda: (lambda d: (d.requires_grad, d.is_leaf, d.grad_fn, d._version))(x.detach()))
        elif a == 10:
            def f():
                y = x * 1
                y.detach_()
                return y.requires_grad, y.is_leaf, y.grad_fn
            L('detach_', f)
        elif a == 11:
            L('leaf_detach_', lambda: r.choice(leaves).view(-1).detach_())
        elif a == 12:
            L('T.autograd.backward', lambda: T.autograd.backward([x], grad_tensors=r.choice([None, [T.ones_like(x)], [None]]), inputs=r.choice([None, [leaves[0]], []])))
        elif a == 13:
            L('grad_fn', lambda: (type(x.grad_fn).__name__ if x.grad_fn else None, [(type(n).__name__ if n else None, i) for n, i in x.grad_fn.next_functions] if x.grad_fn else None))
        elif a == 14:
            L('is_leaf', lambda: (x.is_leaf, x.requires_grad, x.retains_grad))
        elif a == 15:
            L('zero_grad', lambda: [l.grad.zero_() if l.grad is not None else None for l in leaves])
        elif a == 16:
            L('grad_none', lambda: [setattr(l, 'grad', None) for l in leaves])
        elif a == 17:
            L('set_grad', lambda: setattr(x, 'grad', r.choice([T.ones_like(x), T.ones(7), T.ones(x.shape, dtype=T.float64), 3])))
        elif a == 18:
            L('sum_backward_twice', lambda: [x.sum().backward(), [l.grad for l in leaves]])
        elif a == 19:
            L('grad_fn_hook', lambda: x.grad_fn.register_hook(lambda gi, go: None) and None)
        elif a == 20:
            L('version', lambda: x._version)
        elif a == 21:
            L('inference_tensor', lambda: (lambda y: (y.requires_grad, y.is_inference(), (y * x).requires_grad))(T.inference_mode()(lambda: T.ones(x.shape) * 2)()))
        elif a == 22:
            L('new_leaf_requires_grad', lambda: setattr(x, 'requires_grad', r.choice([True, False])))
        elif a == 23:
            L('backward_create_graph', lambda: (x.sum().backward(create_graph=True), [l.grad for l in leaves]), )
        elif a == 24:
            L('is_leaf_grad_fn_name', lambda: str(x.grad_fn)[:12])
        else:
            L('set_grad_enabled_fn', lambda: (T.set_grad_enabled(r.choice([True, False])), T.is_grad_enabled()))
    L('final', lambda: [(l.grad, l.requires_grad) for l in leaves])
    T.set_grad_enabled(True)


def make_fn(T, r):
    save_what = r.choice(['input', 'output', 'none', 'both', 'nontensor', 'intermediate'])
    nret = r.choice([1, 2, 3, 'tuple1', 'none_extra', 'list'])
    mark_nd = r.random() < 0.25
    dirty = r.random() < 0.2
    two_out = r.random() < 0.3
    matz = r.choice([None, True, False])
    bad_grad = r.choice([None, None, None, 'shape', 'dtype', 'int', 'list'])
    class MyFn(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            if matz is not None: ctx.set_materialize_grads(matz)
            if dirty:
                x.mul_(k)
                ctx.mark_dirty(x)
                out = x
            else:
                out = x * y * k
            out2 = x + y if two_out else None
            if save_what == 'input': ctx.save_for_backward(x, y)
            elif save_what == 'output': ctx.save_for_backward(out)
            elif save_what == 'both': ctx.save_for_backward(x, out, None)
            elif save_what == 'nontensor': ctx.save_for_backward(x, 3)
            elif save_what == 'intermediate': ctx.save_for_backward(x * 2)
            ctx.k = k
            if mark_nd: ctx.mark_non_differentiable(out2 if two_out else out)
            return (out, out2) if two_out else out
        @staticmethod
        def backward(ctx, g, *rest):
            info = [ctx.needs_input_grad, len(ctx.saved_tensors), [type(t).__name__ for t in ctx.saved_tensors], g is None, [x is None for x in rest]]
            MyFn.info.append(info)
            gx = None if g is None else g * ctx.k
            gy = None if g is None else g * 2
            if bad_grad == 'shape' and gx is not None: gx = T.ones(7)
            if bad_grad == 'dtype' and gx is not None: gx = gx.double()
            if bad_grad == 'int': gx = 5
            if bad_grad == 'list': return [gx, gy, None]
            if nret == 1: return gx
            if nret == 2: return gx, gy
            if nret == 3: return gx, gy, None
            if nret == 'tuple1': return (gx,)
            if nret == 'none_extra': return gx, gy, None, None
            return [gx, gy, None]
    MyFn.info = []
    return MyFn

def _function_scenario(T, r, L):
    Fn = make_fn(T, r)
    xs = [round(r.uniform(-2, 2), 2) for _ in range(2)]
    xrg = r.random() < 0.8; yrg = r.random() < 0.5
    x = T.tensor(xs, requires_grad=xrg); y = T.tensor([1.5, -0.5], requires_grad=yrg)
    xin = x * 1 if r.random() < 0.5 else x
    k = r.choice([2.0, 3])
    ctxm = r.choice([None, 'no_grad'])
    def fwd():
        if ctxm:
            with T.no_grad():
                return Fn.apply(xin, y, k)
        return Fn.apply(xin, y, k)
    out = L('apply', fwd)
    if isinstance(out, BaseException): return
    outs = out if isinstance(out, tuple) else (out,)
    L('out_flags', lambda: [(o.requires_grad, o.is_leaf, type(o.grad_fn).__name__ if o.grad_fn else None) for o in outs if o is not None])
    L('grad_fn_next', lambda: [(type(n).__name__ if n else None, i) for n, i in outs[0].grad_fn.next_functions] if outs[0].grad_fn else None)
    for step in range(r.randint(1, 4)):
        a = r.randrange(6)
        if a == 0:
            L('backward', lambda: (outs[0].sum().backward(retain_graph=r.choice([True, False, None])), x.grad, y.grad, Fn.info[-1:] ))
        elif a == 1:
            L('backward_second', lambda: ((outs[-1] * 2).sum().backward(), x.grad, y.grad, Fn.info[-1:]))
        elif a == 2:
            L('grad', lambda: (T.autograd.grad(outs[0].sum(), [x], allow_unused=True, retain_graph=True), Fn.info[-1:]))
        elif a == 3:
            L('saved', lambda: outs[0].grad_fn.saved_tensors)
        elif a == 4:
            L('needs', lambda: outs[0].grad_fn.needs_input_grad)
        else:
            L('sum_both', lambda: (sum(o.sum() for o in outs if o is not None).backward(), x.grad, y.grad))


def _container_scenario(T, r, L):
    nn = T.nn
    def mod():
        return r.choice([lambda: nn.ReLU(), lambda: nn.Linear(1, 2), lambda: nn.Identity(), lambda: nn.Tanh(), lambda: 5, lambda: None, lambda: nn.Sequential()])()
    def par():
        return r.choice([lambda: nn.Parameter(T.tensor([1.0, 2.0])), lambda: T.tensor([3.0]), lambda: 7, lambda: None, lambda: 'x', lambda: nn.Parameter(T.ones(2, 2), requires_grad=False)])()
    def idx():
        return r.choice([0, 1, -1, 2, -3, 5, -7, slice(None, 2), slice(1, None), slice(None, None, -1), slice(None, None, 2), '0', 1.0, None])
    kindc = r.randrange(5)
    try:
        if kindc == 0:
            c = nn.Sequential(*[nn.ReLU(), nn.Linear(1, 2), nn.Tanh()][:r.randint(0, 3)]) if r.random() < 0.8 else nn.Sequential(OrderedDict([('a', nn.ReLU()), ('b', nn.Tanh())]))
        elif kindc == 1:
            c = nn.ModuleList([nn.ReLU(), nn.Linear(1, 2), nn.Tanh()][:r.randint(0, 3)])
        elif kindc == 2:
            c = nn.ModuleDict(OrderedDict([('a', nn.ReLU()), ('b', nn.Linear(1, 2)), ('c', nn.Tanh())][:r.randint(0, 3)]))
        elif kindc == 3:
            c = nn.ParameterList([nn.Parameter(T.tensor([1.0])), T.tensor([2.0, 3.0]), nn.Parameter(T.ones(2, 2))][:r.randint(0, 3)])
        else:
            c = nn.ParameterDict(OrderedDict([('a', nn.Parameter(T.tensor([1.0]))), ('b', T.tensor([2.0, 3.0])), ('c', nn.Parameter(T.ones(2, 2)))][:r.randint(0, 3)]))
    except Exception as e:
        L('ctor', lambda: (_ for _ in ()).throw(e)); return
    L('repr0', lambda: repr(c))
    for step in range(r.randint(3, 10)):
        a = r.randrange(20)
        i = idx()
        if a == 0: L('getitem', lambda: c[i])
        elif a == 1:
            v = mod() if kindc < 3 else par()
            L('setitem', lambda: c.__setitem__(i, v))
        elif a == 2: L('delitem', lambda: c.__delitem__(i))
        elif a == 3: L('len', lambda: len(c))
        elif a == 4: L('iter', lambda: list(c))
        elif a == 5:
            v = mod() if kindc < 3 else par()
            L('append', lambda: c.append(v) is c)
        elif a == 6:
            v = mod() if kindc < 3 else par()
            L('insert', lambda: c.insert(i, v))
        elif a == 7:
            vs = r.choice([lambda: [mod(), mod()], lambda: mod(), lambda: nn.Sequential(nn.ReLU()), lambda: {'k': mod()}, lambda: [('k', mod())], lambda: []])()
            if kindc >= 3:
                vs = r.choice([lambda: [par(), par()], lambda: par(), lambda: {'k': par()}, lambda: [('k', par())], lambda: []])()
            L('extend', lambda: c.extend(vs) is c)
        elif a == 8: L('pop', lambda: c.pop(i))
        elif a == 9: L('repr', lambda: repr(c))
        elif a == 10:
            vs = r.choice([lambda: {'k': mod(), 'a': nn.ReLU()}, lambda: [('z', nn.ReLU())], lambda: [('z', nn.ReLU(), 3)], lambda: nn.ModuleDict({'q': nn.Tanh()}), lambda: 5, lambda: ['ab']])()
            if kindc >= 3:
                vs = r.choice([lambda: {'k': par(), 'a': nn.Parameter(T.ones(1))}, lambda: [('z', par())], lambda: [('z', par(), 3)], lambda: nn.ParameterDict({'q': nn.Parameter(T.ones(1))}), lambda: 5, lambda: ['ab']])()
            L('update', lambda: c.update(vs))
        elif a == 11: L('keys', lambda: list(c.keys()))
        elif a == 12: L('items', lambda: [(k, v) for k, v in c.items()])
        elif a == 13: L('values', lambda: list(c.values()))
        elif a == 14: L('contains', lambda: r.choice(['a', 'b', 'k', 0, nn.ReLU()]) in c)
        elif a == 15: L('named_parameters', lambda: [(n, tuple(p.shape)) for n, p in c.named_parameters()])
        elif a == 16: L('add', lambda: c + r.choice([c, nn.Sequential(nn.ReLU()), nn.ModuleList([nn.ReLU()]), 3, [nn.ReLU()]]))
        elif a == 17: L('iadd', lambda: c.__iadd__(r.choice([nn.Sequential(nn.ReLU()), nn.ModuleList([nn.ReLU()]), [nn.ReLU()], 3])) is c)
        elif a == 18: L('mul', lambda: c * r.choice([0, 1, 2, -1, 1.5, 'a']))
        elif a == 19: L('clear_or_get', lambda: c.clear() if r.random() < 0.3 else c.get('a', 'dflt'))
        L('state', lambda: (repr(c), [n for n, _ in c.named_modules()], [n for n, _ in c.named_parameters()]))


def _run(scenario):
    def fn(T, seed):
        L = Log(T)
        try:
            scenario(T, random.Random(seed), L)
        finally:
            T.set_grad_enabled(True)
        return L.items
    return fn


cases("module_api", _run(_module_scenario), seed=list(range(250)))
cases("autograd_api", _run(_autograd_scenario), seed=list(range(250)))
cases("function_api", _run(_function_scenario), seed=list(range(150)))
cases("container_api", _run(_container_scenario), seed=list(range(150)))

"""torch.func: grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian, vmap, functional_call,
stack_module_state.

How wick builds them (not as torch's functorch levels):
- grad / vjp / jacrev stand on wick's tape: the differentiated arguments are fresh aliases (detached leaves at
  top level, view_as aliases inside another transform, so an outer transform differentiates through the inner
  one's create_graph=True gradients). At top level the results are detached, as torch's are unwrapped.
- jvp / linearize / jacfwd use forward-mode AD (torch.autograd.forward_ad, the op table's jvp formulas: Note
  [Forward AD]); jacfwd runs one jvp per input element (torch vmaps them). wick has one dual level, so a jvp
  inside an open level (jvp of jvp) falls back to the double-backward trick. hessian is jacfwd(jacrev(f)), as
  torch's: forward over reverse, the backward formulas carrying tangents.
- vmap is a batching transform (wick/func/_vmap.py, Note [vmap]): the function runs once (once per chunk_size
  entries) on BatchedTensors, and each op applies its batching rule; an op without one falls back to a loop over the
  batch with torch's performance warning. grad inside vmap differentiates leaves batched at every running vmap
  level, so one backward gives the per-sample gradients. vjp / jvp / jacrev / jacfwd, autograd.grad and custom
  Functions seeing a batched tensor send the vmap back to its loop (_vmap_loop: once per entry, stacked), which is
  what runs where the extension has no vmap hook (_BATCHING False). Randomness 'error', 'same' and 'different'
  draw as torch's (wick/func/_random.py, Note [vmap randomness])."""
import functools

import wick as torch
from . import _random, _vmap

__all__ = ['grad', 'grad_and_value', 'vjp', 'jvp', 'linearize', 'jacrev', 'jacfwd', 'hessian', 'vmap',
           'functional_call', 'stack_module_state']

_depth = [0]   # how many grad-like transforms are running (inside one, gradients keep their graph)
_BATCHING = _vmap.install()   # vmap as a batching transform (False: no hook in this extension, the loop runs)


# ------------------------------------------------------------------------------------------ pytrees
def _flatten(tree):
    """(leaves, spec): tuples, lists and dicts are nodes; everything else is a leaf."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for t in tree:
            lv, sp = _flatten(t)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), len(tree), specs)
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k in tree:
            lv, sp = _flatten(tree[k])
            leaves += lv
            specs.append(sp)
        return leaves, (dict, list(tree.keys()), specs)
    return [tree], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(sp):
        if sp is None:
            return next(it)
        kind, meta, subs = sp
        if kind is dict:
            return {k: build(s) for k, s in zip(meta, subs)}
        vals = [build(s) for s in subs]
        if kind is list:
            return vals
        return tuple(vals) if kind is tuple else kind(vals)   # a named tuple type (torch.return_types.max) too
    return build(spec)


def _tree_map(fn, tree):
    leaves, spec = _flatten(tree)
    return _unflatten([fn(x) for x in leaves], spec)


# ------------------------------------------------------------------------------------------ helpers
def _check_argnums(argnums, nargs):
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        if not all(isinstance(a, int) for a in argnums):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        nums = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return nums


def _fresh(t):
    """A tensor to differentiate by: an alias of t when t already has history (an outer transform's input, or a
    tensor requiring grad, whose autograd then flows through the result), else a new leaf."""
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if t.requires_grad:
        return t.view_as(t)
    if _dual_open() and torch._C._has_fw_grad(t, 0):   # a dual tensor of jvp / jacfwd: the new leaf keeps its tangent
        return torch._C._make_dual(t.detach().requires_grad_(True), torch._C._fw_tangent(t, 0), 0)
    return t.detach().requires_grad_(True)


def _out(t, keep=False):
    """A result leaving the outermost transform is detached (torch unwraps it), unless regular autograd tracks
    the transform's inputs (keep)."""
    if _depth[0] == 0 and not keep and isinstance(t, torch.Tensor):
        return t.detach()
    return t


def _grads(outputs, inputs, grad_outputs, retain_graph=True, create_graph=None):
    outs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    res = [None] * len(inputs)
    if create_graph is None:
        create_graph = _depth[0] > 0
    if outs:
        res = list(torch.autograd.grad([o for o, _ in outs], inputs, [g for _, g in outs], retain_graph=retain_graph,
                                       create_graph=create_graph, allow_unused=True))
    return [torch.zeros_like(i) if r is None else r for r, i in zip(res, inputs)]


# ------------------------------------------------------------------------------------------ grad
def grad_and_value(func, argnums=0, has_aux=False):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args))
        if _vmap._levels:
            return _grad_and_value_batched(func, nums, argnums, has_aux, args, kwargs)
        args = list(args)
        tracked = any(isinstance(x, torch.Tensor) and x.requires_grad for a in nums for x in _flatten(args[a])[0])
        _depth[0] += 1
        try:
            with torch.enable_grad():
                diff = {a: _tree_map(_fresh, args[a]) for a in nums}
                for a in nums:
                    args[a] = diff[a]
                output = func(*args, **kwargs)
                aux = None
                if has_aux:
                    if not (isinstance(output, tuple) and len(output) == 2):
                        raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                           "(output, aux) if has_aux is True")
                    output, aux = output
                if not isinstance(output, torch.Tensor):
                    raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                       f"{type(output)}")
                if output.dim() != 0:
                    raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                                       f"got tensor with {output.dim()} dims. Maybe you wanted to use the vjp or "
                                       "jacrev APIs instead?")
                flat, specs = [], []
                for a in nums:
                    lv, sp = _flatten(diff[a])
                    flat += lv
                    specs.append((len(lv), sp))
                g = _grads([output], flat, [torch.ones_like(output)], create_graph=tracked or _depth[0] > 1)
        finally:
            _depth[0] -= 1
        g = [_out(t, tracked) for t in g]
        trees, k = [], 0
        for n, sp in specs:
            trees.append(_unflatten(g[k:k + n], sp))
            k += n
        result = trees[0] if isinstance(argnums, int) else tuple(trees)
        value = _out(output, tracked)
        if has_aux:
            return result, (value, _tree_map(lambda a: _out(a, tracked), aux))
        return result, value
    return wrapper


def _grad_and_value_batched(func, nums, argnums, has_aux, args, kwargs):
    """grad inside vmap: each differentiated input becomes a leaf batched at every running vmap level (an unbatched
    one is expanded over the batches), so entry b of the batched output depends only on entry b of the leaf and one
    backward through the batched graph gives every per-sample gradient at once."""
    levels = [e[0] for e in _vmap._levels]
    args = list(args)
    tracked = any(isinstance(x, torch.Tensor) and x.requires_grad for a in nums for x in _flatten(args[a])[0])
    _depth[0] += 1
    try:
        with torch.enable_grad():
            phys = {}

            def fresh(t):
                if not isinstance(t, torch.Tensor):
                    raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
                p = _vmap._phys(t, levels)   # [B_1, ..., B_k, *t.shape]; expanded where t is unbatched
                leaf = p.view_as(p) if p.requires_grad else p.detach().requires_grad_(True)
                b = _vmap._rebatch(leaf, levels)
                phys[id(b)] = leaf
                return b
            diff = {a: _tree_map(fresh, args[a]) for a in nums}
            for a in nums:
                args[a] = diff[a]
            output = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("grad_and_value(f)(*args): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            if not isinstance(output, torch.Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                                   f"{type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                                   f"got tensor with {output.dim()} dims. Maybe you wanted to use the vjp or "
                                   "jacrev APIs instead?")
            flat, specs = [], []
            for a in nums:
                lv, sp = _flatten(diff[a])
                flat += lv
                specs.append((len(lv), sp))
            leaves = [phys[id(b)] for b in flat]
            out_p = _vmap._bottom(output)
            g = _grads([out_p], leaves, [torch.ones_like(out_p)], create_graph=tracked or _depth[0] > 1)
            g = [_vmap._rebatch(t, levels) for t in g]
    finally:
        _depth[0] -= 1
    trees, k = [], 0
    for n, sp in specs:
        trees.append(_unflatten(g[k:k + n], sp))
        k += n
    result = _tree_map(lambda x: _out(x, tracked), trees[0] if isinstance(argnums, int) else tuple(trees))
    value = _out(output, tracked)
    if has_aux:
        return result, (value, _tree_map(lambda a: _out(a, tracked), aux))
    return result, value


def grad(func, argnums=0, has_aux=False):
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g
    return wrapper


# ------------------------------------------------------------------------------------------ vjp
def _refuse_batched(*trees):
    """vjp / jvp / jacrev / jacfwd are not batched by vmap's rules yet: inside a batching vmap they send it back to
    its loop (wick/func/_vmap.py NeedLoop)"""
    if _vmap._levels and any(type(x) is _vmap.BatchedTensor for t in trees for x in _flatten(t)[0]):
        raise _vmap.NeedLoop()


def vjp(func, *primals, has_aux=False):
    _refuse_batched(primals)
    _depth[0] += 1
    try:
        with torch.enable_grad():
            diff = _tree_map(_fresh, primals)
            output = func(*diff)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("vjp(f, *primals): output of function f should be a tuple: (output, aux) "
                                       "if has_aux is True")
                output, aux = output
            out_flat, out_spec = _flatten(output)
            for o in out_flat:
                if not isinstance(o, torch.Tensor):
                    raise RuntimeError("vjp(f, *primals): Expected f(*primals) to return only tensors, got "
                                       f"unsupported type {type(o)}")
    finally:
        _depth[0] -= 1
    in_flat, in_spec = _flatten(diff)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        ct_flat, _ = _flatten(cotangents)
        if len(ct_flat) != len(out_flat):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               "outputs to the function")
        for c, o in zip(ct_flat, out_flat):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {c.shape} and output[0] has a "
                                   f"shape of {o.shape}.")
        # called inside another transform, the gradients keep their graph (_grads reads the depth)
        return _tree_map(_out, _unflatten(_grads(out_flat, in_flat, ct_flat), in_spec))

    if has_aux:
        return _tree_map(_out, output), vjp_fn, _tree_map(_out, aux)
    return _tree_map(_out, output), vjp_fn


# ------------------------------------------------------------------------------------------ jvp
def _check_jvp_args(primals, tangents, strict):
    if strict:
        raise RuntimeError("jvp(f, primals, tangents): strict is not yet supported")
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    _refuse_batched(primals, tangents)
    p_flat, p_spec = _flatten(primals)
    t_flat, _ = _flatten(tangents)
    if len(p_flat) != len(t_flat):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure.")
    for p, t in zip(p_flat, t_flat):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               "original Tensor, this is not supported. Tensor is of size "
                               f"{list(p.shape)} while the given forward gradient is of size {list(t.shape)}.")
    return p_flat, p_spec, t_flat


def _split_aux(output, has_aux, name):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{name}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def _dual_run(func, p_flat, p_spec, t_flat, has_aux, name):
    """func(*primals) at a new dual level: (outputs, their tangents (zeros where none), out_spec, aux), primals and
    aux unpacked from their tangents."""
    fw = torch.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(p, t) for p, t in zip(p_flat, t_flat)]
        output, aux = _split_aux(func(*_unflatten(duals, p_spec)), has_aux, name)
        out_flat, out_spec = _flatten(output)
        prim, tang = [], []
        for o in out_flat:
            if not isinstance(o, torch.Tensor):
                raise RuntimeError(f"{name}: Expected f(*primals) to return only tensors, got unsupported type "
                                   f"{type(o)}")
            u = fw.unpack_dual(o)
            prim.append(u.primal)
            tang.append(torch.zeros_like(o) if u.tangent is None else u.tangent)
        if has_aux:
            aux = _tree_map(lambda a: fw.unpack_dual(a).primal if isinstance(a, torch.Tensor) else a, aux)
    return prim, tang, out_spec, aux


def _dual_open():
    return torch.autograd.forward_ad._current_level >= 0


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """Forward-mode AD over the op table's jvp formulas (Note [Forward AD]). wick has one dual level: a jvp inside
    another jvp (or inside a dual_level) uses the double-backward trick instead (_jvp_twice)."""
    p_flat, p_spec, t_flat = _check_jvp_args(primals, tangents, strict)
    if _dual_open():
        return _jvp_twice(func, p_flat, p_spec, t_flat, has_aux)
    _depth[0] += 1
    try:
        prim, tang, out_spec, aux = _dual_run(func, p_flat, p_spec, t_flat, has_aux, "jvp(f, primals, tangents)")
    finally:
        _depth[0] -= 1
    keep = any(p.requires_grad for p in p_flat)   # regular autograd tracks the primals: results keep their graph
    out = functools.partial(_out, keep=keep)
    res = (_tree_map(out, _unflatten(prim, out_spec)), _tree_map(out, _unflatten(tang, out_spec)))
    if has_aux:
        return res + (_tree_map(out, aux),)
    return res


def _jvp_twice(func, p_flat, p_spec, t_flat, has_aux):
    """J t as the derivative, by the cotangent u, of <vjp(u), t> (the vjp is linear in u)."""
    _depth[0] += 1
    try:
        with torch.enable_grad():
            diff = [_fresh(p) for p in p_flat]
            output = func(*_unflatten(diff, p_spec))
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError("jvp(f, primals, tangents): output of function f should be a tuple: "
                                       "(output, aux) if has_aux is True")
                output, aux = output
            out_flat, out_spec = _flatten(output)
            for o in out_flat:
                if not isinstance(o, torch.Tensor):
                    raise RuntimeError("jvp(f, primals, tangents): Expected f(*primals) to return only tensors, "
                                       f"got unsupported type {type(o)}")
            # the vjp is linear in its cotangent u; differentiating <vjp(u), t> by u gives J t
            us = [torch.zeros_like(o).requires_grad_(True) for o in out_flat]
            live = [(o, u) for o, u in zip(out_flat, us) if o.requires_grad]
            if live:
                g = torch.autograd.grad([o for o, _ in live], diff, [u for _, u in live], create_graph=True,
                                        allow_unused=True)
                pairs = [(gi, t) for gi, t in zip(g, t_flat) if gi is not None and gi.requires_grad]
            else:
                pairs = []
            if pairs:
                jv = torch.autograd.grad([gi for gi, _ in pairs], us, [t for _, t in pairs],
                                         create_graph=_depth[0] > 1, allow_unused=True)
            else:
                jv = [None] * len(us)
            jv = [torch.zeros_like(o) if j is None else j for j, o in zip(jv, out_flat)]
    finally:
        _depth[0] -= 1
    res = (_tree_map(_out, output), _tree_map(_out, _unflatten(jv, out_spec)))
    if has_aux:
        return res + (_tree_map(_out, aux),)
    return res


def linearize(func, *primals):
    output = func(*primals)

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]
    return _tree_map(_out, output), jvp_fn


# ------------------------------------------------------------------------------------------ Jacobians
def _jac(func, argnums, has_aux, column_wise):
    @functools.wraps(func)
    def wrapper(*args):
        nums = _check_argnums(argnums, len(args))
        _refuse_batched(args)
        args = list(args)
        _depth[0] += 1
        try:
            with torch.enable_grad():
                diff = {a: _tree_map(_fresh, args[a]) for a in nums}
                for a in nums:
                    args[a] = diff[a]
                output = func(*args)
                aux = None
                if has_aux:
                    if not (isinstance(output, tuple) and len(output) == 2):
                        raise RuntimeError("jacrev(f, ...)(*args): output of function f should be a tuple: "
                                           "(output, aux) if has_aux is True")
                    output, aux = output
                out_flat, out_spec = _flatten(output)
                in_flat, in_specs = [], []
                for a in nums:
                    lv, sp = _flatten(diff[a])
                    in_flat += lv
                    in_specs.append((len(lv), sp))
                # jac[i][j]: d out_i / d in_j, shaped out_i.shape + in_j.shape
                jac = [[None] * len(in_flat) for _ in out_flat]
                for i, o in enumerate(out_flat):
                    if not isinstance(o, torch.Tensor):
                        raise RuntimeError("jacrev(f, ...)(*args): Expected f to return only tensors, got "
                                           f"unsupported type {type(o)}")
                    rows = [[] for _ in in_flat]
                    for k in range(o.numel()):
                        e = torch.zeros(o.numel(), dtype=o.dtype)
                        e[k] = 1
                        g = _grads([o], in_flat, [e.view(o.shape)])
                        for j, gj in enumerate(g):
                            rows[j].append(gj)
                    for j, inp in enumerate(in_flat):
                        jac[i][j] = (torch.stack(rows[j]).view(tuple(o.shape) + tuple(inp.shape)) if rows[j]
                                     else inp.new_zeros(tuple(o.shape) + tuple(inp.shape)))
        finally:
            _depth[0] -= 1
        per_out = []
        for i in range(len(out_flat)):
            trees, k = [], 0
            for n, sp in in_specs:
                trees.append(_unflatten([_out(t) for t in jac[i][k:k + n]], sp))
                k += n
            per_out.append(trees[0] if isinstance(argnums, int) else tuple(trees))
        result = _unflatten(per_out, out_spec)
        if has_aux:
            return result, _tree_map(_out, aux)
        return result
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jac(func, argnums, has_aux, column_wise=False)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func by forward-mode AD, one jvp per input element (torch batches those columns with vmap),
    laid out as torch's (out.shape + in.shape). Inside an open dual level (wick has one) it is built by rows."""
    if randomness not in ('error', 'different', 'same'):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args):
        if _dual_open():
            return _jac(func, argnums, has_aux, column_wise=True)(*args)
        nums = _check_argnums(argnums, len(args))
        _refuse_batched(args)
        args = list(args)
        in_flat, in_specs = [], []
        for a in nums:
            lv, sp = _flatten(args[a])
            for x in lv:
                if not isinstance(x, torch.Tensor):
                    raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
            in_specs.append((len(lv), sp))
            in_flat += lv

        def run(tangents):
            def f(*duals):
                full, k = list(args), 0
                for a, (n, sp) in zip(nums, in_specs):
                    full[a] = _unflatten(list(duals[k:k + n]), sp)
                    k += n
                return func(*full)
            return _dual_run(f, in_flat, _flatten(tuple(in_flat))[1], tangents, has_aux, "jacfwd(f, ...)(*args)")
        _depth[0] += 1
        try:
            cols = None   # cols[i][j]: the columns of d out_i / d in_j
            prim = out_spec = aux = None
            for j, x in enumerate(in_flat):
                for e in range(x.numel()):
                    ts = [torch.zeros_like(y) for y in in_flat]
                    ts[j].view(-1)[e] = 1
                    prim, tang, out_spec, aux = run(ts)
                    if cols is None:
                        cols = [[[] for _ in in_flat] for _ in tang]
                    for i, t in enumerate(tang):
                        cols[i][j].append(t)
            if cols is None:   # no input element: one plain run for the outputs' shapes
                prim, tang, out_spec, aux = run([torch.zeros_like(y) for y in in_flat])
                cols = [[[] for _ in in_flat] for _ in tang]
            jac = [[(torch.stack(cols[i][j], -1).view(tuple(o.shape) + tuple(x.shape)) if cols[i][j]
                     else o.new_zeros(tuple(o.shape) + tuple(x.shape))) for j, x in enumerate(in_flat)]
                   for i, o in enumerate(prim)]
        finally:
            _depth[0] -= 1
        per_out = []
        for i in range(len(prim)):
            trees, k = [], 0
            for n, sp in in_specs:
                trees.append(_unflatten([_out(t) for t in jac[i][k:k + n]], sp))
                k += n
            per_out.append(trees[0] if isinstance(argnums, int) else tuple(trees))
        result = _unflatten(per_out, out_spec)
        if has_aux:
            return result, _tree_map(_out, aux)
        return result
    return wrapper


def hessian(func, argnums=0):
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------------------ vmap
def _fname(func):
    return getattr(func, '__name__', repr(func))


def _broadcast_in_dims(in_dims, args, fname):
    if isinstance(in_dims, int):
        return _tree_map(lambda _: in_dims, args)
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         "structure of `inputs`.")
    out = []
    for d, a in zip(in_dims, args):
        if d is None or isinstance(d, int):
            out.append(_tree_map(lambda _, d=d: d, a))
        else:
            out.append(_broadcast_nested(d, a, fname, in_dims))
    return tuple(out)


def _broadcast_nested(d, a, fname, in_dims):
    if d is None or isinstance(d, int):
        return _tree_map(lambda _: d, a)
    if isinstance(d, (tuple, list)) and isinstance(a, (tuple, list)) and len(d) == len(a):
        return type(a)(_broadcast_nested(x, y, fname, in_dims) for x, y in zip(d, a))
    if isinstance(d, dict) and isinstance(a, dict) and d.keys() == a.keys():
        return {k: _broadcast_nested(d[k], a[k], fname, in_dims) for k in a}
    raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                     "structure of `inputs`.")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    if not _BATCHING:
        return _vmap_loop(func, in_dims, out_dims, randomness, chunk_size=chunk_size)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        fname = _fname(func)
        dims_tree = _broadcast_in_dims(in_dims, args, fname)
        leaves, spec = _flatten(args)
        dims, _ = _flatten(dims_tree)
        sizes, moved = [], []
        for x, d in zip(leaves, dims):
            if d is None:
                moved.append(None)
                continue
            if not isinstance(x, torch.Tensor):
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                                 f"the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, please "
                                 "use None as the respective in_dim")
            if not -x.dim() <= d < x.dim():
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                                 f"but that input is a Tensor of dimensionality {x.dim()} so expected in_dim to "
                                 f"satisfy -{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.size(d))
            moved.append(x.movedim(d, 0))
        if not sizes:
            raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor "
                             "that is being vmapped over (in_dims not None).")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        n = sizes[0]
        state = torch.get_rng_state()
        try:
            if chunk_size is None or chunk_size >= n:
                return _vmap_batched(func, fname, leaves, moved, spec, kwargs, n, out_dims, randomness, state)
            parts = []
            rs = torch.get_rng_state() if randomness == "same" else None   # torch: every chunk draws the same
            for lo in range(0, n, chunk_size):
                k = min(chunk_size, n - lo)
                mv = [None if m is None else m.narrow(0, lo, k) for m in moved]
                if rs is not None:
                    torch.set_rng_state(rs)
                parts.append(_vmap_batched(func, fname, leaves, mv, spec, kwargs, k, out_dims, randomness,
                                           torch.get_rng_state()))
            flat0, out_spec = _flatten(parts[0])
            od = _broadcast_out_dims(out_dims, parts[0], fname)
            outs = []
            for i, d in enumerate(od):
                col = [_flatten(p)[0][i] for p in parts]
                outs.append(col[0] if d is None else torch.cat(col, d))
            return _unflatten(outs, out_spec)
        except _vmap.NeedLoop:
            torch.set_rng_state(state)
            return _vmap_loop(func, in_dims, out_dims, randomness, chunk_size=chunk_size)(*args, **kwargs)
    return wrapper


def _vmap_batched(func, fname, leaves, moved, spec, kwargs, n, out_dims, randomness, state):
    """one batched call of func: inputs wrapped as BatchedTensors of a new level, outputs unwrapped at out_dims"""
    lvl = _vmap._levels[-1][0] + 1 if _vmap._levels else 1
    _vmap._levels.append([lvl, n, randomness])
    if randomness == "different":
        _random.enter()
    try:
        sample = [x if m is None else _vmap._wrap(m, lvl) for x, m in zip(leaves, moved)]
        result = func(*_unflatten(sample, spec), **kwargs)
        if randomness == "error" and not torch.equal(torch.get_rng_state(), state):
            torch.set_rng_state(state)   # torch raises before the draw
            raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                               "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                               "operation out of vmap")
    finally:
        _vmap._levels.pop()
        if randomness == "different":
            _random.exit()
    out_leaves, out_spec = _flatten(result)
    od = _broadcast_out_dims(out_dims, result, fname)
    outs = []
    for o, d in zip(out_leaves, od):
        if d is None:
            if _vmap._is_b(o, lvl):
                raise ValueError(f"vmap({fname}, ...): `{fname}` can not return a BatchedTensor when out_dim is None")
            outs.append(o)
            continue
        if not isinstance(o, torch.Tensor):
            raise ValueError(f"vmap({fname}, ...): `{fname}` must only return Tensors, got type {type(o)}. Did "
                             "you mean to set out_dims= to None for output?")
        v = o._v if _vmap._is_b(o, lvl) else o.unsqueeze(0).expand((n,) + tuple(o.shape))
        outs.append(v.movedim(0, d))
    return _unflatten(outs, out_spec)


def _vmap_loop(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """vmap as a loop over the batch: what runs where the batching transform cannot (no hook in the extension,
    or a transform other than grad inside vmap)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        fname = _fname(func)
        dims_tree = _broadcast_in_dims(in_dims, args, fname)
        leaves, spec = _flatten(args)
        dims, _ = _flatten(dims_tree)
        sizes = []
        moved = []
        for x, d in zip(leaves, dims):
            if d is None:
                moved.append(None)
                continue
            if not isinstance(x, torch.Tensor):
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                                 f"the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, please "
                                 "use None as the respective in_dim")
            if not -x.dim() <= d < x.dim():
                raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                                 f"but that input is a Tensor of dimensionality {x.dim()} so expected in_dim to "
                                 f"satisfy -{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.size(d))
            moved.append(x.movedim(d, 0))
        if not sizes:
            raise ValueError(f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a Tensor "
                             "that is being vmapped over (in_dims not None).")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                             f"{sizes} for the mapped dimension")
        n = sizes[0]
        state = torch.get_rng_state() if randomness in ("error", "same") else None
        results, after = [], None
        for b in range(n):
            if randomness == "same":
                torch.set_rng_state(state)
            sample = [x if m is None else m[b] for x, m in zip(leaves, moved)]
            results.append(func(*_unflatten(sample, spec), **kwargs))
            if randomness == "error" and not torch.equal(torch.get_rng_state(), state):
                torch.set_rng_state(state)   # torch raises before the draw
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
            if randomness == "same" and after is None:
                after = torch.get_rng_state()
        if after is not None:
            torch.set_rng_state(after)
        out_leaves0, out_spec = _flatten(results[0])
        od = _broadcast_out_dims(out_dims, results[0], fname)
        per = [_flatten(r)[0] for r in results]
        outs = []
        for k, (o0, d) in enumerate(zip(out_leaves0, od)):
            if d is None:
                outs.append(o0)
                continue
            if not isinstance(o0, torch.Tensor):
                raise ValueError(f"vmap({fname}, ...): `{fname}` must only return Tensors, got type {type(o0)}. Did "
                                 "you mean to set out_dims= to None for output?")
            outs.append(torch.stack([p[k] for p in per], d))
        return _unflatten(outs, out_spec)
    return wrapper


def _broadcast_out_dims(out_dims, result, fname):
    leaves, _ = _flatten(result)
    if out_dims is None or isinstance(out_dims, int):
        return [out_dims] * len(leaves)
    if isinstance(out_dims, tuple) and isinstance(result, tuple) and len(out_dims) == len(result):
        out = []
        for d, r in zip(out_dims, result):
            out += _broadcast_out_dims(d, r, fname)
        return out
    raise ValueError(f"vmap({fname}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the "
                     "structure of `outputs`.")


# ------------------------------------------------------------------------------------------ modules
def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    from ..nn.utils.stateless import _functional_call
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, c in counts.items() if c > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                         f"but got {type(parameter_and_buffer_dicts)}")
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _stacked_leaf(tensors, name):
    all_rg = all(t.requires_grad for t in tensors)
    none_rg = all(not t.requires_grad for t in tensors)
    if not all_rg and not none_rg:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = torch.stack(tensors)
    if all_rg:
        result = result.detach().requires_grad_()
    return result


def stack_module_state(models):
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    typ = type(models[0])
    if not all(type(m) is typ for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers

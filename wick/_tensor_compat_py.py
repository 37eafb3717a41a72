"""Tensor names torch keeps for other backends and for old code: the is_<backend> properties (False for a CPU
tensor, as torch's), is_shared / is_distributed, the removed `volatile` flag (torch's warnings), `name` (named
tensors: None), the Python-2 spellings __div__ / __idiv__, and apply_ / map_ / map2_ (a Python callable over each
element, in place, CPU only: torch's checks and messages)."""
import numbers
import sys
import warnings

from ._tensor import Tensor

_wick = sys.modules[__package__]


def _false(self):
    return False


for _n in ('is_xla', 'is_ipu', 'is_maia', 'is_mtia', 'is_vulkan', 'is_xpu', 'is_mkldnn', 'is_nested',
           'is_sparse_csr'):
    if not hasattr(Tensor, _n):
        setattr(Tensor, _n, property(_false))

for _n in ('is_shared', 'is_distributed'):
    if not hasattr(Tensor, _n):
        _f = (lambda n: lambda self: False)(_n)
        _f.__name__ = _f.__qualname__ = _n
        setattr(Tensor, _n, _f)


def _volatile_get(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.", UserWarning,
                  stacklevel=2)


if not hasattr(Tensor, 'volatile'):
    Tensor.volatile = property(_volatile_get, _volatile_set)
if not hasattr(Tensor, 'name'):
    Tensor.name = property(lambda self: None)


def __div__(self, other):
    return self.__truediv__(other)


def __idiv__(self, other):
    return self.__itruediv__(other)


for _f in (__div__, __idiv__):
    if _f.__name__ not in Tensor.__dict__:
        setattr(Tensor, _f.__name__, _f)


_ARG_TEXT = {('map_', 'other'): "'other'", ('map2_', 'x'): "argument 'x'", ('map2_', 'y'): "argument 'y'"}


def _apply_checks(self, name, others=()):
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if self.device.type != 'cpu':
        raise TypeError(f"{name}_ is only implemented on CPU tensors")
    out = []
    for arg, pos, o in others:
        if not isinstance(o, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(o).__name__}")
        if o.dtype != self.dtype:
            raise TypeError(f"{name}: expected {self.type()} for {_ARG_TEXT[name, arg]} (got {o.type()})")
        out.append(o.expand_as(self).reshape(-1).tolist())
    return out


def _store(self, values):
    with _wick.no_grad():
        self.copy_(_wick.tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _cast(self):
    to = bool if self.dtype == _wick.bool else (float if self.dtype.is_floating_point else int)

    def cast(r):
        if not isinstance(r, numbers.Real):
            raise TypeError(f"must be real number, not {type(r).__name__}")
        return to(r)
    return cast


def apply_(self, callable):
    _apply_checks(self, 'apply_')
    cast = _cast(self)
    return _store(self, [cast(callable(x)) for x in self.reshape(-1).tolist()])


def map_(self, other, callable):
    (o,) = _apply_checks(self, 'map_', (('other', 1, other),))
    cast = _cast(self)
    return _store(self, [cast(callable(a, b)) for a, b in zip(self.reshape(-1).tolist(), o)])


def map2_(self, x, y, callable):
    xs, ys = _apply_checks(self, 'map2_', (('x', 1, x), ('y', 2, y)))
    cast = _cast(self)
    return _store(self, [cast(callable(a, b, c)) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)])


for _f in (apply_, map_, map2_):
    if _f.__name__ not in Tensor.__dict__:
        setattr(Tensor, _f.__name__, _f)


# ---- torch/_tensor.py's Python methods: resize / resize_as (deprecated, autograd's Resize), module_load,
# reinforce (removed), dim_order, const_data_ptr, is_set_to
class Resize(_wick.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, sizes):
        numel = 1
        for s in sizes:
            numel *= s
        ctx.numel, ctx.input_sizes = numel, tensor.size()
        if tensor.numel() != numel:
            raise RuntimeError(
                "requested resize to {} ({} elements in total), but the given tensor has a size of {} ({} elements). "
                "autograd's resize can only change the shape of a given tensor, while preserving the number of "
                "elements. ".format("x".join(map(str, sizes)), numel, "x".join(map(str, tensor.size())),
                                    tensor.numel()))
        if tensor.is_contiguous():
            return tensor.new(tensor).contiguous().view(*sizes)   # torch's: a new tensor on the same storage
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None



def resize(self, *sizes):
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, sizes)


def resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, tensor.size())


def module_load(self, other, assign=False):
    if assign:
        return other.detach()
    return self.copy_(other).detach()


_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def reinforce(self, reward):
    raise RuntimeError(_REINFORCE)


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory: torch's stride sort (torch._prims_common's
    compute_elementwise_output_logical_to_physical_perm for one tensor: an insertion sort that leaves dims of
    stride 0 and equal strides of equal sizes where they are)."""
    if isinstance(ambiguity_check, list):
        raise NotImplementedError("wick: Tensor.dim_order(ambiguity_check=<list of memory formats>) is not "
                                  "supported yet; use True or False")
    sizes, strides = list(self.shape), list(self.stride())
    if ambiguity_check:
        dup = any(a == b for a, b in zip(strides, strides[1:]))
        if dup or any(s == 1 for s in sizes):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                               "memory formats.")
    nd = len(sizes)
    perm = list(reversed(range(nd)))

    def should_swap(a, b):
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] < strides[b]:
            return -1
        if strides[a] > strides[b]:
            return 1
        if sizes[a] > sizes[b]:
            return 1
        return 0

    for i in range(1, nd):
        d1 = i
        for d0 in reversed(range(i)):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if ambiguity_check and any(should_swap(perm[i], perm[i + 1]) != -1 for i in range(nd - 1)):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


def const_data_ptr(self):
    return self.data_ptr()


def is_set_to(self, tensor):
    a, b = _wick._C._storage_info(self), _wick._C._storage_info(tensor)
    return (a[0] == b[0] and self.storage_offset() == tensor.storage_offset() and self.shape == tensor.shape
            and self.stride() == tensor.stride())


for _f in (resize, resize_as, module_load, reinforce, dim_order, const_data_ptr, is_set_to):
    if _f.__name__ not in Tensor.__dict__:
        setattr(Tensor, _f.__name__, _f)


# ---- storages (wick/storage.py, loaded on first use)
def untyped_storage(self):
    from . import storage
    return storage.untyped_storage_of(self)


def storage(self):
    from . import storage
    return storage.storage_of(self)


def storage_type(self):
    from . import storage
    return storage.storage_type_of(self)


for _f in (untyped_storage, storage, storage_type):
    if _f.__name__ not in Tensor.__dict__:
        setattr(Tensor, _f.__name__, _f)

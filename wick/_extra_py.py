"""The extra area's Python layer (ops/extra.def): the torch-level names torch itself writes in Python
(torch.pi / e / inf / nan / newaxis, torch.broadcast_shapes, torch.unravel_index, Tensor.__contains__, the
legacy Tensor.new constructor), and the C slot aliases torch's TensorBase carries (__long__, __nonzero__)."""
import math
import sys
from collections.abc import Sequence
from numbers import Number

from . import _C
from ._tensor import Tensor

_wick = sys.modules[__package__]

# ---- constants (torch/__init__.py: from math import e, inf, nan, pi; newaxis = None)
_wick.e, _wick.inf, _wick.nan, _wick.pi = math.e, math.inf, math.nan, math.pi
_wick.newaxis = None


# ---- torch.broadcast_shapes (torch/functional.py over torch._refs._broadcast_shapes)
def broadcast_shapes(*shapes):
    """torch.broadcast_shapes(*shapes) -> Size: the shape broadcast_tensors would give, without tensors."""
    shapes = tuple((x,) if isinstance(x, int) else x for x in shapes if x is not None)
    if not shapes:
        return _C.Size([])
    for shape in shapes:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max(len(shape) for shape in shapes)
    for arg_idx, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if shape[idx] == common[idx]:
                continue
            if common[idx] == 1:
                if shape[idx] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[idx] = shape[idx]
            if shape[idx] == 1:
                continue
            if common[idx] != shape[idx]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                                   f"Mismatching argument at index {arg_idx} had {shape}; but expected shape "
                                   f"should be broadcastable to {common}")
    return _C.Size(common)


# ---- torch.unravel_index (torch/functional.py)
def unravel_index(indices, shape):
    """torch.unravel_index(indices, shape) -> tuple of tensors, one per dim of shape."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    if indices.is_complex() or indices.is_floating_point() or indices.dtype == _wick.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = _C.Size([shape])
    else:
        for dim in shape:
            if not isinstance(dim, int):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(dim)}")
        shape = _C.Size(shape)
    if not all(dim >= 0 for dim in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    coefs, acc = [], 1
    for s in reversed(list(shape[1:]) + [1]):
        acc *= s
        coefs.append(acc)
    coefs.reverse()
    res = indices.unsqueeze(-1).floor_divide(_C.tensor(coefs, dtype=_wick.int64)) % _C.tensor(list(shape),
                                                                                               dtype=_wick.int64)
    return res.unbind(-1)


for _f in (broadcast_shapes, unravel_index):
    setattr(_wick, _f.__name__, _f)


# ---- Tensor.__contains__ (torch/_tensor.py)
def __contains__(self, element):
    if isinstance(element, (Tensor, Number)):
        return bool((element == self).any().item())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


Tensor.__contains__ = __contains__

# ---- C slot aliases of torch's TensorBase: __long__ is int(), __nonzero__ is bool()
Tensor.__long__ = _C.TensorBase.__int__
Tensor.__nonzero__ = _C.TensorBase.__bool__


# ---- Tensor.new: the legacy constructor (torch/csrc/utils/tensor_new.cpp: legacy_tensor_new) -- a tensor of self's
# dtype: new() is empty, new(*sizes) / new(torch.Size) uninitialised, new(sequence) from data, new(tensor) aliases it.
def new(self, *args, device=None):
    if device is not None:
        _wick.device(device)  # 'cpu' is the only device; others raise there
    if not args:
        return _C.empty(0, dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if other.dtype != self.dtype:
            raise TypeError(f"expected {_type_options(self.dtype)} (got {_type_options(other.dtype)})")
        return other.detach()
    if len(args) == 1 and isinstance(args[0], _C.Size):
        return _C.empty(args[0], dtype=self.dtype)
    if len(args) == 1 and isinstance(args[0], Sequence) and not isinstance(args[0], str):
        return _C.tensor(args[0], dtype=self.dtype)
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return _C.empty(args, dtype=self.dtype)
    raise TypeError("new() received an invalid combination of arguments - got (" +
                    ", ".join(type(a).__name__ for a in args) + ")")


_CPP = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
        'int64': 'long int', 'int32': 'int', 'int16': 'short int', 'int8': 'signed char', 'uint8': 'unsigned char',
        'bool': 'bool'}


def _type_options(dtype):
    name = _CPP.get(str(dtype).rpartition('.')[2], str(dtype))
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false (default), "
            f"pinned_memory=false (default), memory_format=(nullopt))")


Tensor.new = new

# ---- torch.return_types of this area's ops
for _name, _fields in [('frexp', ('mantissa', 'exponent')), ('linalg_inv_ex', ('inverse', 'info')),
                       ('linalg_slogdet', ('sign', 'logabsdet')), ('slogdet', ('sign', 'logabsdet')),
                       ('linalg_solve_ex', ('result', 'info')), ('linalg_cholesky_ex', ('L', 'info')),
                       ('linalg_qr', ('Q', 'R')), ('qr', ('Q', 'R')),
                       ('linalg_eigh', ('eigenvalues', 'eigenvectors')),
                       ('linalg_svd', ('U', 'S', 'Vh')), ('_linalg_svd', ('U', 'S', 'Vh')), ('svd', ('U', 'S', 'V'))]:
    setattr(_wick.return_types, _name, _C._register_return_type(_name, _fields))
    setattr(_wick.return_types, _name + '_out', _C._register_return_type(_name + '_out', _fields))

# ---- torch.linalg names of this area
_wick.linalg.cross = _C._linalg_cross
# dense linear algebra (src/ops/linalg_dense.c)
_wick.linalg.LinAlgError = _C._LinAlgError
_wick.linalg.inv = _C._linalg.linalg_inv
_wick.linalg.inv_ex = _C._linalg.linalg_inv_ex
_wick.linalg.det = _C._linalg.linalg_det
_wick.linalg.slogdet = _C._linalg.linalg_slogdet
_wick.linalg.solve = _C._linalg.linalg_solve
_wick.linalg.solve_ex = _C._linalg.linalg_solve_ex
_wick.linalg.cholesky = _C._linalg.linalg_cholesky
_wick.linalg.cholesky_ex = _C._linalg.linalg_cholesky_ex
_wick.linalg.solve_triangular = _C._linalg.linalg_solve_triangular
_wick.linalg.qr = _C._linalg.linalg_qr
_wick.linalg.eigh = _C._linalg.linalg_eigh
_wick.linalg.eigvalsh = _C._linalg.linalg_eigvalsh
_wick.linalg.svd = _C._linalg.linalg_svd
_wick.linalg.svdvals = _C._linalg.linalg_svdvals
# composites over svd / eigh / inv (src/ops/linalg_pinv.c)
_wick.linalg.pinv = _C._linalg.linalg_pinv
_wick.linalg.matrix_rank = _C._linalg.linalg_matrix_rank
_wick.linalg.cond = _C._linalg.linalg_cond


def _matrix_power(A, n, api):
    """torch's linalg_matrix_power_impl: n == 0 the identity (clone then copy_), n == 1 a clone, n == -1 the inverse;
    |n| == 2, 3 as (A @ A) @ A; larger n by binary decomposition from the least significant bit, z squared each
    step and multiplied into the result (result @ z) where the bit is set. Negative n: inv(A) to the power -n."""
    if not isinstance(A, _wick.Tensor):
        raise TypeError(f"{api}(): argument 'input' (position 1) must be Tensor, not {type(A).__name__}")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{api}(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if A.dim() < 2:
        raise RuntimeError('linalg.matrix_power: The input tensor A must have at least 2 dimensions.')
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError('linalg.matrix_power: A must be batches of square matrices, but they are %d by %d matrices'
                           % (A.shape[-2], A.shape[-1]))
    if n == 0:
        return A.clone(memory_format=_wick.contiguous_format).copy_(
            _wick.eye(A.shape[-2], A.shape[-1], dtype=A.dtype).expand_as(A))
    if n == 1:
        return A.clone(memory_format=_wick.contiguous_format)
    if n == -1:
        return _C._linalg.linalg_inv(A)
    a = _C._linalg.linalg_inv(A) if n < 0 else A
    n = abs(n)
    if n == 2:
        return _wick.matmul(a, a)
    if n == 3:
        return _wick.matmul(_wick.matmul(a, a), a)
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else _wick.matmul(z, z)
        if bit == 1:
            result = z if result is None else _wick.matmul(result, z)
    return result


def _linalg_matrix_power(A, n):
    """torch.linalg.matrix_power"""
    return _matrix_power(A, n, 'linalg_matrix_power')


def matrix_power(input, n):
    """torch.matrix_power / Tensor.matrix_power"""
    return _matrix_power(input, n, 'matrix_power')


_wick.linalg.matrix_power = _linalg_matrix_power
_wick.matrix_power = matrix_power
Tensor.matrix_power = matrix_power
_linalg_matrix_power.__name__ = _linalg_matrix_power.__qualname__ = 'matrix_power'
_linalg_matrix_power.__module__ = 'wick.linalg'


def _linalg_matmul(input, other, *, out=None):
    """torch.linalg.matmul: an alias of torch.matmul"""
    return _wick.matmul(input, other) if out is None else _wick.matmul(input, other, out=out)


def _linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: torch.diagonal with the last two dims by default"""
    return _wick.diagonal(A, offset, dim1, dim2)


def _linalg_vecdot(x, y, *, dim=-1, out=None):
    """torch.linalg.vecdot: (x * y).sum(dim) for real floating tensors (conj is the identity)"""
    if x.dtype != y.dtype:
        raise RuntimeError('linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of '
                           'type %s instead' % (_scalar_name(x.dtype), _scalar_name(y.dtype)))
    if not x.dtype.is_floating_point:
        raise RuntimeError('linalg.vecdot: Expected a floating point or complex tensor as input. Got %s'
                           % _scalar_name(x.dtype))
    r = (x * y).sum(dim)
    return r if out is None else out.resize_(r.shape).copy_(r)


def _scalar_name(dtype):
    return {'float32': 'Float', 'float64': 'Double', 'float16': 'Half', 'bfloat16': 'BFloat16', 'int64': 'Long',
        'int32': 'Int', 'int16': 'Short', 'int8': 'Char', 'uint8': 'Byte', 'bool': 'Bool'}[str(dtype).rpartition('.')[2]]


def _chain_order(shapes):
    """torch's matrix_chain_order: the split of each sub-chain with the fewest multiplications (the first on ties)"""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain_mm(ts, split, i, j):
    if i == j:
        return ts[i]
    return _wick.mm(_chain_mm(ts, split, i, split[i][j]), _chain_mm(ts, split, split[i][j] + 1, j))


def _multi_dot(tensors, *, out=None):
    """torch.linalg.multi_dot as torch's: a 1-D first / last tensor is a row / column vector (its dim dropped from
    the result), the products in the cheapest order (3 matrices: (AB)C unless A(BC) costs less; 4 or more: torch's
    matrix_chain_order)"""
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError('multi_dot(): expected at least 2 tensors but got %d' % n)
    shape = []
    if ts[0].dim() == 1:
        ts[0] = ts[0].unsqueeze(0)
    elif ts[0].dim() == 2:
        shape.append(ts[0].size(0))
    else:
        raise RuntimeError('multi_dot(): the first tensor must be 1D or 2D but got %dD' % ts[0].dim())
    if ts[-1].dim() == 1:
        ts[-1] = ts[-1].unsqueeze(-1)
    elif ts[-1].dim() == 2:
        shape.append(ts[-1].size(1))
    else:
        raise RuntimeError('multi_dot(): the last tensor must be 1D or 2D but got %dD' % ts[-1].dim())
    for i in range(1, n - 1):
        if ts[i].dim() != 2:
            raise RuntimeError('multi_dot(): tensor %d must be 2D but got %dD' % (i, ts[i].dim()))
    for i in range(1, n):
        if ts[i].dtype != ts[0].dtype:
            raise RuntimeError('multi_dot(): all tensors must have be the same dtype but tensor 0 is %s and tensor %d %s'
                               % (_CPP[str(ts[0].dtype)[6:]], i, _CPP[str(ts[i].dtype)[6:]]))
        if ts[i - 1].size(-1) != ts[i].size(0):
            raise RuntimeError('multi_dot(): tensors %d and %d with shapes %s and %s cannot be multiplied'
                               % (i - 1, i, list(tensors[i - 1].shape), list(tensors[i].shape)))
    if n == 2:
        r = _wick.mm(ts[0], ts[1])
    elif n == 3:
        a, b, c, d = ts[0].size(0), ts[1].size(0), ts[2].size(0), ts[2].size(1)
        r = (_wick.mm(ts[0], _wick.mm(ts[1], ts[2])) if a * c * (b + d) > b * d * (a + c)
             else _wick.mm(_wick.mm(ts[0], ts[1]), ts[2]))
    else:
        r = _chain_mm(ts, _chain_order([tuple(t.shape) for t in ts]), 0, n - 1)
    r = r.view(shape)
    return r if out is None else out.resize_(r.shape).copy_(r)


_wick.linalg.matmul = _linalg_matmul
_wick.linalg.diagonal = _linalg_diagonal
_wick.linalg.vecdot = _linalg_vecdot
_wick.linalg.multi_dot = _multi_dot
for _f, _n in [(_linalg_matmul, 'matmul'), (_linalg_diagonal, 'diagonal'), (_linalg_vecdot, 'vecdot'),
               (_multi_dot, 'multi_dot')]:
    _f.__name__, _f.__qualname__, _f.__module__ = _n, _n, 'wick.linalg'


# ---- torch/functional.py wrappers taking *tensors
def block_diag(*tensors):
    """torch.block_diag(*tensors): the tensors (0-, 1- or 2-D) on the diagonal of a zero matrix."""
    return _C._block_diag(tensors)


def cartesian_prod(*tensors):
    """torch.cartesian_prod(*tensors): the cartesian product of 1-D tensors, one row per combination."""
    return _C._cartesian_prod(tensors)


for _f in (block_diag, cartesian_prod):
    setattr(_wick, _f.__name__, _f)


# ---- torch.cdist (torch/functional.py): compute_mode names
_CDIST_MODES = {'use_mm_for_euclid_dist_if_necessary': None, 'use_mm_for_euclid_dist': 1,
                'donot_use_mm_for_euclid_dist': 2}


def cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary'):
    """torch.cdist: the p-norm distance between each pair of rows of x1 [..., P, M] and x2 [..., R, M]."""
    if not isinstance(compute_mode, str) or compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _C._cdist(x1, x2, p, _CDIST_MODES[compute_mode])


_wick.cdist = cdist

# torch's private samplers and reparameterised gradients behind torch.distributions (ops/random.def)
for _name in ('_standard_gamma', '_standard_gamma_grad', '_sample_dirichlet', '_dirichlet_grad'):
    setattr(_wick, _name, getattr(_C, _name))

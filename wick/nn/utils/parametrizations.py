"""torch.nn.utils.parametrizations: orthogonal, weight_norm, spectral_norm as parametrizations (ported from
torch's parametrizations.py). wick has no geqrf / householder_product / matrix_exp ops yet: _geqrf,
_householder_product and _matrix_exp below are naive compositions of wick ops (differentiable where torch's are
used under autograd), giving torch's values to rounding."""
from enum import auto, Enum

import wick as torch
from wick import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ['orthogonal', 'spectral_norm', 'weight_norm']


def _householder_product(A, tau):
    """Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i = (0, .., 1, A[i+1:, i]) (LAPACK's orgqr): [..., n, k]."""
    n, k = A.size(-2), A.size(-1)
    eye = torch.eye(n, dtype=A.dtype)
    Q = eye.expand(*A.shape[:-2], n, n)
    for i in range(k):
        mask = torch.zeros(n, dtype=A.dtype)
        mask[i + 1:] = 1
        e = torch.zeros(n, dtype=A.dtype)
        e[i] = 1
        v = (A[..., :, i] * mask + e).unsqueeze(-1)                           # [..., n, 1]
        Q = Q - (Q @ v) @ (tau[..., i, None, None] * v.mH)
    return Q[..., :, :k]


def _geqrf(A):
    """LAPACK's geqrf by Householder reflections (dlarfg's convention): R on and above the diagonal, the
    reflectors' tails below it, and tau. No grad (torch's geqrf has no derivative either)."""
    with torch.no_grad():
        a = A.clone()
        m, n = a.size(-2), a.size(-1)
        taus = torch.zeros(*a.shape[:-2], min(m, n), dtype=a.dtype)
        flat, ft = a.reshape(-1, m, n), taus.reshape(-1, min(m, n))
        for b in range(flat.size(0)):
            M = flat[b]
            for i in range(min(m, n)):
                alpha = float(M[i, i])
                xnorm = float(M[i + 1:, i].norm()) if i + 1 < m else 0.0
                if xnorm == 0.0:
                    ft[b, i] = 0.0
                    continue
                beta = -((alpha * alpha + xnorm * xnorm) ** 0.5) * (1.0 if alpha >= 0 else -1.0)
                tau = (beta - alpha) / beta
                M[i + 1:, i] /= (alpha - beta)
                M[i, i] = beta
                ft[b, i] = tau
                if i + 1 < n:
                    v = torch.cat([torch.ones(1, dtype=a.dtype), M[i + 1:, i]])
                    sub = M[i:, i + 1:]
                    sub -= tau * torch.outer(v, v @ sub)
        return flat.reshape(a.shape), ft.reshape(taus.shape)


def _matrix_exp(A):
    """exp(A) by scaling and squaring a degree-18 Taylor polynomial (torch uses Bader-Blanes-Casas' optimised
    polynomials: the same function to rounding)."""
    norm = float(A.abs().sum(-2).amax()) if A.numel() else 0.0
    s = 0
    while norm > 0.5:
        norm /= 2
        s += 1
    X = A / (2 ** s)
    n = A.size(-1)
    eye = torch.eye(n, dtype=A.dtype).expand_as(A)
    term, result = eye, eye
    for j in range(1, 19):
        term = term @ X / j
        result = result + term
    for _ in range(s):
        result = result @ result
    return result


def _is_orthogonal(Q, eps=None):
    n, k = Q.size(-2), Q.size(-1)
    Id = torch.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * torch.finfo(Q.dtype).eps
    return torch.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    X, tau = _geqrf(A)
    Q = _householder_product(X, tau)
    Q *= X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)
    return Q


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map == _OrthMaps.matrix_exp or self.orthogonal_map == _OrthMaps.cayley:
            X = X.tril()
            if n != k:
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _matrix_exp(A)
            else:
                Id = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(Id, A, alpha=-0.5), torch.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with torch.no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map == _OrthMaps.cayley or self.orthogonal_map == _OrthMaps.matrix_exp:
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                A, tau = _geqrf(Q)
                A.diagonal(dim1=-2, dim2=-1).sign_()
                A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
                return A.mT if transpose else A
            if n == k:
                if not _is_orthogonal(Q):
                    Q = _make_orthogonal(Q)
                else:
                    Q = Q.clone()
            else:
                N = torch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = torch.cat([Q, N], dim=-1)
                Q = _make_orthogonal(Q)
            self.base = Q
            neg_Id = torch.zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex()
                          else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return torch._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = torch.norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    _weight_norm = _WeightNorm(dim)
    parametrize.register_parametrization(module, name, _weight_norm, unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(f"Expected weight to have more than 1 dimension, got {weight.ndim}")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        with torch.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(torch.mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=torch.contiguous_format)
        v = self._v.clone(memory_format=torch.contiguous_format)
        sigma = torch.vdot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        if isinstance(module, (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d)):
            dim = 1
        else:
            dim = 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module

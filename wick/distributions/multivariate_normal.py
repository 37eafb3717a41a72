"""MultivariateNormal(loc, covariance_matrix= | precision_matrix= | scale_tril=)
(torch.distributions.multivariate_normal): everything goes through the unbroadcast Cholesky factor."""
import math

import wick as torch
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ['MultivariateNormal']


def _batch_mv(bmat, bvec):
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """Squared Mahalanobis distance x^T (L L^T)^-1 x, for bx batched over (..., bL's batch)."""
    n = bx.size(-1)
    bx_batch_shape = bx.shape[:-1]
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2
    outer = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer + bL_batch_dims
    new_batch_dims = outer + 2 * bL_batch_dims
    # split each of bx's batch dims that bL broadcasts over into (sx // sL, sL)
    new_shape = bx.shape[:outer]
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer:-1]):
        new_shape += (sx // sL, sL)
    new_shape += (n,)
    bx = bx.reshape(new_shape)
    perm = (list(range(outer)) + list(range(outer, new_batch_dims, 2)) + list(range(outer + 1, new_batch_dims, 2))
            + [new_batch_dims])
    bx = bx.permute(perm)
    flat_L = bL.reshape(-1, n, n)                                # b x n x n
    flat_x = bx.reshape(-1, flat_L.size(0), n)                   # c x b x n
    flat_x_swap = flat_x.permute(1, 2, 0)                        # b x n x c
    M_swap = torch.linalg.solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)  # b x c
    M = M_swap.t()                                               # c x b
    permuted_M = M.reshape(bx.shape[:-1])
    inv = list(range(outer))
    for i in range(bL_batch_dims):
        inv += [outer + i, old_batch_dims + i]
    return permuted_M.permute(inv).reshape(bx_batch_shape)


def _precision_to_scale_tril(P):
    Lf = torch.linalg.cholesky(torch.flip(P, (-2, -1)))
    L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
    Id = torch.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return torch.linalg.solve_triangular(L_inv, Id, upper=False)


def _cholesky_inverse(L):
    """(L L^T)^-1 from the lower Cholesky factor L (what torch.cholesky_inverse gives), by one triangular solve."""
    Linv = torch.linalg.solve_triangular(L, torch.eye(L.shape[-1], dtype=L.dtype, device=L.device), upper=False)
    return Linv.mT @ Linv


class MultivariateNormal(Distribution):
    """The multivariate normal distribution, parameterised by a mean vector and one of a covariance matrix, a
    precision matrix or a lower-triangular scale with a positive diagonal."""
    arg_constraints = {'loc': constraints.real_vector, 'covariance_matrix': constraints.positive_definite,
                       'precision_matrix': constraints.positive_definite, 'scale_tril': constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError('loc must be at least one-dimensional.')
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError('Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.')
        for name, m in (('scale_tril matrix', scale_tril), ('covariance_matrix', covariance_matrix),
                        ('precision_matrix', precision_matrix)):
            if m is not None:
                if m.dim() < 2:
                    raise ValueError(f'{name} must be at least two-dimensional, with optional leading batch '
                                     'dimensions')
                batch_shape = torch.broadcast_shapes(m.shape[:-2], loc.shape[:-1])
                setattr(self, name.split()[0], m.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = torch.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = torch.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ('covariance_matrix', 'scale_tril', 'precision_matrix'):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return torch.matmul(L, L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return _cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=torch.Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)

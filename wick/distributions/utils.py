"""Helpers shared by the distributions (torch.distributions.utils): broadcasting of parameters, probs/logits
conversions, lazily computed attributes."""
import numbers

import wick as torch

euler_constant = 0.57721566490153286060  # the Euler-Mascheroni constant

__all__ = ['broadcast_all', 'logits_to_probs', 'clamp_probs', 'probs_to_logits', 'lazy_property',
           'tril_matrix_to_vec', 'vec_to_tril_matrix']


def _is_number(v):
    return isinstance(v, numbers.Number) and not isinstance(v, torch.Tensor)


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers take the dtype of the first tensor (else the default)."""
    for v in values:
        if not (isinstance(v, torch.Tensor) or hasattr(v, '__torch_function__') or isinstance(v, numbers.Number)):
            raise ValueError('Input arguments must all be instances of Number, '
                             'torch.Tensor or objects implementing __torch_function__.')
    if all(isinstance(v, torch.Tensor) for v in values):
        return torch.broadcast_tensors(*values)
    first = next((v for v in values if isinstance(v, torch.Tensor)), None)
    opts = dict(dtype=torch.get_default_dtype()) if first is None else dict(dtype=first.dtype, device=first.device)
    return torch.broadcast_tensors(*[v if isinstance(v, torch.Tensor) else torch.tensor(v, **opts) for v in values])


def _standard_normal(shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    p = clamp_probs(probs)
    if is_binary:
        return torch.log(p) - torch.log1p(-p)
    return torch.log(p)


class lazy_property:
    """A property computed once on first access (under enable_grad) and then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        for attr in ('__module__', '__name__', '__qualname__', '__doc__'):
            try:
                setattr(self, attr, getattr(wrapped, attr))
            except AttributeError:
                pass

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    ar = torch.arange(n, device=device)
    return ar < ar.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f'diag ({diag}) provided is outside [{-n}, {n - 1}].')
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > torch.finfo(vec.dtype).eps:
        raise ValueError(f'The size of last dimension is {vec.shape[-1]} which cannot be expressed as '
                         'the lower triangular part of a square D x D matrix.')
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + torch.Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat

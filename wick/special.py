"""torch.special: the special functions wick computes, under torch.special's names.

Most are the core's ops under another name (expit is sigmoid, gammaln is lgamma, psi is digamma, multigammaln is
mvlgamma, ...); entr, ndtr and xlog1py are composites of core ops written the way torch's CPU kernels compute them
(ndtr = (1 + erf(x / sqrt 2)) / 2, torch's formula). The Bessel, orthogonal-polynomial, incomplete-gamma, zeta,
airy, erfcx, i0e / i1 / i1e, ndtri and log_ndtr families have no kernel in wick yet: calling one raises
NotImplementedError naming it, never a quietly different answer."""
import math

import wick as _torch

__all__ = ['airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'chebyshev_polynomial_t',
           'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w', 'digamma', 'entr', 'erf',
           'erfc', 'erfcx', 'erfinv', 'exp2', 'expit', 'expm1', 'gammainc', 'gammaincc', 'gammaln',
           'hermite_polynomial_h', 'hermite_polynomial_he', 'i0', 'i0e', 'i1', 'i1e', 'laguerre_polynomial_l',
           'legendre_polynomial_p', 'log1p', 'log_ndtr', 'log_softmax', 'logit', 'logsumexp', 'modified_bessel_i0',
           'modified_bessel_i1', 'modified_bessel_k0', 'modified_bessel_k1', 'multigammaln', 'ndtr', 'ndtri',
           'polygamma', 'psi', 'round', 'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1',
           'shifted_chebyshev_polynomial_t', 'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
           'shifted_chebyshev_polynomial_w', 'sinc', 'softmax', 'spherical_bessel_j0', 'xlog1py', 'xlogy', 'zeta']

digamma = psi = _torch.digamma
erf = _torch.erf
erfc = _torch.erfc
erfinv = _torch.erfinv
exp2 = _torch.exp2
expit = _torch.sigmoid
expm1 = _torch.expm1
gammaln = _torch.lgamma
i0 = _torch.i0
log1p = _torch.log1p
logit = _torch.logit
multigammaln = _torch.mvlgamma
polygamma = _torch.polygamma
sinc = _torch.sinc
xlogy = _torch.xlogy


_NO_ARG = object()
_SCALAR_NAME = {'int64': 'Long', 'int32': 'Int', 'int16': 'Short', 'int8': 'Char', 'uint8': 'Byte', 'bool': 'Bool'}


def round(input, *, decimals=0, out=None):
    """torch.special.round: torch.round, except that it refuses integer tensors (torch.round returns them)."""
    if isinstance(input, _torch.Tensor) and not input.is_floating_point():
        kernel = 'round_vml_cpu' if decimals == 0 else 'round_cpu'
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_SCALAR_NAME[str(input.dtype)[6:]]}\'')
    return _torch.round(input, decimals=decimals, out=out)



def _missing_dim(name, input):
    missing = ['"input"', '"dim"'] if input is _NO_ARG else ['"dim"']
    plural = 'argument' if len(missing) == 2 else 'arguments'  # torch's wording, both ways round
    raise TypeError(f'special_{name}() missing {len(missing)} required positional {plural}: {", ".join(missing)}')


def logsumexp(input=_NO_ARG, dim=_NO_ARG, keepdim=False, *, out=None):
    if input is _NO_ARG or dim is _NO_ARG:
        _missing_dim('logsumexp', input)
    return _torch.logsumexp(input, dim, keepdim, out=out)


def softmax(input=_NO_ARG, dim=_NO_ARG, *, dtype=None):
    if input is _NO_ARG or dim is _NO_ARG:
        _missing_dim('softmax', input)
    return _torch.softmax(input, dim, dtype=dtype)


def log_softmax(input=_NO_ARG, dim=_NO_ARG, *, dtype=None):
    if input is _NO_ARG or dim is _NO_ARG:
        _missing_dim('log_softmax', input)
    return _torch.log_softmax(input, dim, dtype=dtype)


def _float_of(name, input):
    """input (a Tensor, as torch's binder demands) in the dtype torch's unary float ops give: integers and bool
    promote to the default dtype."""
    if not isinstance(input, _torch.Tensor):
        raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input if input.is_floating_point() else input.to(_torch.get_default_dtype())


def _finish(result, out):
    if out is None:
        return result
    return out.resize_(result.shape).copy_(result)


def entr(input, *, out=None):
    """-x log x for x > 0, 0 at 0, -inf below 0, nan kept (a composite: its node is WhereBackward0, torch's
    SpecialEntrBackward0; at x = 0 its gradient is nan where torch's is inf)."""
    x = _float_of('entr', input)
    r = _torch.where(x > 0, -x * _torch.log(x), _torch.where(x == 0, _torch.zeros_like(x),
                                                              _torch.full_like(x, -math.inf)))
    return _finish(_torch.where(_torch.isnan(x), x, r), out)


def ndtr(input, *, out=None):
    """The standard normal CDF, (1 + erf(x / sqrt 2)) / 2 as torch computes it."""
    x = _float_of('ndtr', input)
    return _finish((1 + _torch.erf(x * 0.7071067811865476)) * 0.5, out)


def xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input is 0 and other is not nan (a composite: its node is WhereBackward0)."""
    T = _torch.Tensor
    if not isinstance(input, T) and not isinstance(other, T) or not isinstance(input, (T, int, float)) or \
            not isinstance(other, (T, int, float)):
        got = ', '.join('Tensor' if isinstance(a, T) else type(a).__name__ for a in (input, other))
        raise TypeError(f'special_xlog1py() received an invalid combination of arguments - got ({got}), but expected '
                        'one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n * (Number self, Tensor '
                        'other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n')
    ref = input if isinstance(input, T) else other
    fdt = ref.dtype if ref.is_floating_point() else _torch.get_default_dtype()
    x = input if isinstance(input, T) else _torch.tensor(input, dtype=fdt)
    y = other if isinstance(other, T) else _torch.tensor(other, dtype=fdt)
    if not x.is_floating_point() and not y.is_floating_point():
        x = x.to(fdt)
    r = x * _torch.log1p(y)
    r = _torch.where((x == 0) & ~_torch.isnan(y), _torch.zeros_like(r), r)
    return _finish(r, out)


def _missing(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"torch.special.{name} is not supported yet in wick")
    f.__name__ = f.__qualname__ = name
    return f


for _name in ('airy_ai', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'chebyshev_polynomial_t',
              'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w', 'erfcx', 'gammainc',
              'gammaincc', 'hermite_polynomial_h', 'hermite_polynomial_he', 'i0e', 'i1', 'i1e', 'laguerre_polynomial_l',
              'legendre_polynomial_p', 'log_ndtr', 'modified_bessel_i0', 'modified_bessel_i1', 'modified_bessel_k0',
              'modified_bessel_k1', 'ndtri', 'scaled_modified_bessel_k0', 'scaled_modified_bessel_k1',
              'shifted_chebyshev_polynomial_t', 'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v',
              'shifted_chebyshev_polynomial_w', 'spherical_bessel_j0', 'zeta'):
    globals()[_name] = _missing(_name)
del _name

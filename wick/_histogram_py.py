"""torch.histogram / Tensor.histogram (issue 24), composed of wick ops as torch's Histogram.cpp computes it.

The edges: bins given as a tensor are used as they are (binary search, as torch's BINARY_SEARCH); bins given as a
count are linspace(leftmost, rightmost, bins + 1) in the input's dtype, the outer edges from range= or the input's
min and max (widened by 0.5 each way when equal; [0, 1] for an empty input), and torch's linear interpolation with
local search finds the same bin as a binary search over those edges. An element outside [edges[0], edges[-1]] (or
NaN) is not counted; the last bin includes its right edge. The counts (or the weights) are accumulated in the
input's dtype; density divides by their sum and then by each bin's width."""
import math
import sys

from . import _C
from ._tensor import Tensor

_wick = sys.modules[__package__]
_C_TYPE = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16'}
_SCALAR = {'float16': 'Half', 'bfloat16': 'BFloat16', 'int64': 'Long', 'int32': 'Int', 'int16': 'Short',
           'int8': 'Char', 'uint8': 'Byte', 'bool': 'Bool'}
_HIST_RT = _C._register_return_type('histogram', ('hist', 'bin_edges'))
_HIST_OUT_RT = _C._register_return_type('histogram_out', ('hist', 'bin_edges'))
_wick.return_types.histogram = _HIST_RT
_wick.return_types.histogram_out = _HIST_OUT_RT


def _name(dt):
    return repr(dt)[6:]


def _bad_call(input, bins, kwargs):
    got = ', '.join([type(input).__name__ if not isinstance(input, Tensor) else 'Tensor',
                     'Tensor' if isinstance(bins, Tensor) else type(bins).__name__] +
                    ['%s=%s' % (k, 'Tensor' if isinstance(v, Tensor) else type(v).__name__) for k, v in kwargs.items()])
    return TypeError(
        'histogram() received an invalid combination of arguments - got (%s), but expected one of:\n'
        ' * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, tuple of Tensors out = None)\n'
        ' * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = None, bool density = False,'
        ' tuple of Tensors out = None)\n' % got)


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """torch.histogram(input, bins, *, range=None, weight=None, density=False, out=None) -> (hist, bin_edges)"""
    kwargs = {k: v for k, v in (('range', range), ('weight', weight), ('out', out)) if v is not None}
    if density:
        kwargs['density'] = density
    edges_given = isinstance(bins, Tensor)
    if (not isinstance(input, Tensor) or not (edges_given or (isinstance(bins, int) and not isinstance(bins, bool)))
            or (edges_given and range is not None) or not isinstance(density, bool)
            or (weight is not None and not isinstance(weight, Tensor))):
        raise _bad_call(input, bins, kwargs)
    dt = input.dtype
    if _name(dt) not in ('float32', 'float64'):
        raise NotImplementedError('"histogramdd" not implemented for \'%s\'' % _SCALAR[_name(dt)])
    x = input.reshape(-1)  # (n,)
    if edges_given:
        if bins.dtype != dt:
            raise RuntimeError('torch.histogramdd: input tensor and bins tensors should have the same dtype, but got '
                               'input with dtype %s and bins for dimension 0 with dtype %s'
                               % (_C_TYPE[_name(dt)], _C_TYPE.get(_name(bins.dtype), _name(bins.dtype))))
        if bins.dim() != 1:
            raise RuntimeError('torch.histogramdd: bins tensor should have one dimension, but got %d dimensions in the '
                               'bins tensor for dimension 0' % bins.dim())
        if bins.numel() == 0:
            raise RuntimeError('torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in '
                               'the bins tensor for dimension 0')
    if weight is not None:
        if weight.dtype != dt:
            raise RuntimeError('torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should '
                               'have the same dtype, but got input(%s), and weight(%s)'
                               % (_C_TYPE[_name(dt)], _C_TYPE.get(_name(weight.dtype), _name(weight.dtype))))
        if weight.numel() != x.numel():
            raise RuntimeError('torch.histogramdd: if weight tensor is provided it should have the same shape as the '
                               'input tensor excluding its innermost dimension, but got input with shape [%d, 1] and '
                               'weight with shape [%s]' % (x.numel(), ', '.join(str(s) for s in weight.reshape(-1).shape)))
    nbins = bins.numel() - 1 if edges_given else bins
    if nbins <= 0:
        raise RuntimeError('torch.histogram(): bins must be > 0, but got %d for dimension 0' % nbins)
    if edges_given:
        edges = bins.clone()  # (nbins + 1,)
    else:
        if range is not None:
            r = list(range)
            if len(r) != 2:
                raise RuntimeError('torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but '
                                   'got %d' % len(r))
            lo, hi = float(r[0]), float(r[1])
        elif x.numel() > 0:
            lo, hi = float(x.min().item()), float(x.max().item())
        else:
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError("torch.histogramdd: dimension 0's range [%s, %s] is not finite" % (_num(lo), _num(hi)))
        if lo > hi:
            raise RuntimeError('torch.histogramdd: min should not exceed max, but got min %s max %s for dimension 0'
                               % (_num(lo), _num(hi)))
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = _wick.linspace(lo, hi, bins + 1, dtype=dt)  # (bins + 1,)
    nb = nbins
    hist = _wick.zeros(nb, dtype=dt)  # (nbins,)
    if x.numel() > 0:
        inside = (x >= edges[0]) & (x <= edges[-1])  # (n,)
        pos = (_wick.searchsorted(edges, x, right=True) - 1).clamp_(max=nb - 1)  # (n,) the bin of each element
        w = weight.reshape(-1) if weight is not None else _wick.ones_like(x)  # (n,)
        hist.index_add_(0, pos[inside], w[inside])
    if density:
        hist = hist / hist.sum()
        hist = hist / edges.diff()
    if out is not None:
        if not (isinstance(out, (tuple, list)) and len(out) == 2 and all(isinstance(o, Tensor) for o in out)):
            raise _bad_call(input, bins, kwargs)
        for o, v in zip(out, (hist, edges)):
            o.resize_(v.shape)
            o.copy_(v)
        return _HIST_OUT_RT((out[0], out[1]))
    return _HIST_RT((hist, edges))


def _num(v):  # a double as torch's message prints it (C++ ostream: 3, 0.5, inf, nan)
    if math.isnan(v):
        return 'nan'
    if math.isinf(v):
        return 'inf' if v > 0 else '-inf'
    return '%g' % v


_wick.histogram = histogram
Tensor.histogram = lambda self, bins=100, **kwargs: histogram(self, bins, **kwargs)

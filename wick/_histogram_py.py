"""torch.histogram / Tensor.histogram / torch.histogramdd (issue 24), composed of wick ops as torch's Histogram.cpp computes it.

The edges: bins given as a tensor are used as they are (binary search, as torch's BINARY_SEARCH); bins given as a
count are linspace(leftmost, rightmost, bins + 1) in the input's dtype, the outer edges from range= or the input's
min and max (widened by 0.5 each way when equal; [0, 1] for an empty input), and torch's linear interpolation with
local search finds the same bin as a binary search over those edges. An element outside [edges[0], edges[-1]] (or
NaN) is not counted; the last bin includes its right edge. The counts (or the weights) are accumulated in the
input's dtype; density divides by their sum and then by each bin's width."""
import builtins
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
_HISTDD_RT = _C._register_return_type('histogramdd', ('hist', 'bin_edges'))
_wick.return_types.histogram = _HIST_RT
_wick.return_types.histogram_out = _HIST_OUT_RT
_wick.return_types.histogramdd = _HISTDD_RT


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


def _type_label(v):
    return 'Tensor' if isinstance(v, Tensor) else type(v).__name__


def _bad_dd_call(args, kwargs):
    got = ', '.join([_type_label(a) for a in args] + ['%s=%s' % (k, _type_label(v)) for k, v in kwargs.items()])
    sig = 'tuple of floats range = None, Tensor weight = None, bool density = False'
    return TypeError('histogramdd() received an invalid combination of arguments - got (%s), but expected one of:\n'
                     ' * (Tensor input, int bins, %s)\n * (Tensor input, tuple of ints bins, %s)\n'
                     ' * (Tensor input, tuple of Tensors bins, %s)\n' % (got, sig, sig, sig))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def histogramdd(input=None, bins=None, *args, **kwargs):
    """torch.histogramdd(input, bins, *, range=None, weight=None, density=False) -> (hist, bin_edges)"""
    given = [a for a in (input, bins) if a is not None] + list(args)
    range, weight, density = kwargs.get('range'), kwargs.get('weight'), kwargs.get('density', False)
    seq = isinstance(bins, (list, tuple))
    if (not isinstance(input, Tensor) or args or set(kwargs) - {'range', 'weight', 'density'}
            or not (_is_int(bins) or (seq and (all(_is_int(b) for b in bins) or all(isinstance(b, Tensor) for b in bins))))
            or not isinstance(density, bool) or (weight is not None and not isinstance(weight, Tensor))):
        raise _bad_dd_call(given, kwargs)
    dt = input.dtype
    if _name(dt) not in ('float32', 'float64'):
        raise NotImplementedError('"histogramdd" not implemented for \'%s\'' % _SCALAR[_name(dt)])
    if input.dim() < 2:
        raise RuntimeError('torch.histogramdd: input tensor should have at least 2 dimensions')
    n = input.size(-1)
    pts = input.reshape(-1, n)  # (points, n)
    tensors = seq and len(bins) > 0 and isinstance(bins[0], Tensor)
    counts = [bins] * n if _is_int(bins) else list(bins)
    if not tensors and len(counts) != n:
        raise RuntimeError('histogramdd: The size of bins must be equal to the innermost dimension of the input.')
    if tensors:
        if len(bins) != n:
            raise RuntimeError('torch.histogramdd: expected %d sequences of bin edges for a %d-dimensional histogram '
                               'but got %d' % (n, n, len(bins)))
        for d, b in enumerate(bins):
            if b.dtype != dt:
                raise RuntimeError('torch.histogramdd: input tensor and bins tensors should have the same dtype, but '
                                   'got input with dtype %s and bins for dimension %d with dtype %s'
                                   % (_C_TYPE[_name(dt)], d, _C_TYPE.get(_name(b.dtype), _name(b.dtype))))
            if b.dim() != 1:
                raise RuntimeError('torch.histogramdd: bins tensor should have one dimension, but got %d dimensions in '
                                   'the bins tensor for dimension %d' % (b.dim(), d))
            if b.numel() == 0:
                raise RuntimeError('torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements '
                                   'in the bins tensor for dimension %d' % d)
        counts = [b.numel() - 1 for b in bins]
    if weight is not None:
        if weight.dtype != dt:
            raise RuntimeError('torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should '
                               'have the same dtype, but got input(%s), and weight(%s)'
                               % (_C_TYPE[_name(dt)], _C_TYPE.get(_name(weight.dtype), _name(weight.dtype))))
        if list(weight.shape) != list(input.shape[:-1]):
            raise RuntimeError('torch.histogramdd: if weight tensor is provided it should have the same shape as the '
                               'input tensor excluding its innermost dimension, but got input with shape [%s] and '
                               'weight with shape [%s]' % (', '.join(str(s) for s in input.shape),
                                                           ', '.join(str(s) for s in weight.shape)))
    for d, c in enumerate(counts):
        if c <= 0:
            raise RuntimeError('torch.histogram(): bins must be > 0, but got %d for dimension %d' % (c, d))
    if tensors:
        edges = [b.clone() for b in bins]
    else:
        if range is not None and len(range) != 2 * n:
            raise RuntimeError('torch.histogramdd: for a %d-dimensional histogram range should have %d elements, but '
                               'got %d' % (n, 2 * n, len(range)))
        edges = [_outer_edges(pts[:, d], c, None if range is None else range[2 * d:2 * d + 2], d, dt)
                 for d, c in enumerate(counts)]
    hist = _counts(pts, edges, counts, None if weight is None else weight.reshape(-1), dt)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            hist = hist / e.diff().reshape([-1 if i == d else 1 for i in builtins.range(n)])
    return _HISTDD_RT((hist, tuple(edges)))


_wick.histogramdd = histogramdd


def _outer_edges(col, count, r, d, dt):
    """linspace edges of dimension d: from range= (2 values) or the points' min and max (torch's select_outer_bin_edges)"""
    if r is not None:
        lo, hi = float(r[0]), float(r[1])
    elif col.numel() > 0:
        lo, hi = float(col.min().item()), float(col.max().item())
    else:
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError("torch.histogramdd: dimension %d's range [%s, %s] is not finite" % (d, _num(lo), _num(hi)))
    if lo > hi:
        raise RuntimeError('torch.histogramdd: min should not exceed max, but got min %s max %s for dimension %d'
                           % (_num(lo), _num(hi), d))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _wick.linspace(lo, hi, count + 1, dtype=dt)  # (count + 1,)


def _counts(pts, edges, counts, w, dt):
    """(counts...) the points' (or weights') sum per bin; pts (points, n), w (points,) or None"""
    hist = _wick.zeros(*counts, dtype=dt)  # (counts...)
    if pts.size(0) == 0:
        return hist
    inside = None
    flat = None
    for d, (e, c) in enumerate(zip(edges, counts)):
        col = pts[:, d].contiguous()  # (points,)
        ok = (col >= e[0]) & (col <= e[-1])
        pos = (_wick.searchsorted(e, col, right=True) - 1).clamp_(min=0, max=c - 1)  # (points,)
        inside = ok if inside is None else inside & ok
        flat = pos if flat is None else flat * c + pos
    w = w if w is not None else _wick.ones(pts.size(0), dtype=dt)
    hist.view(-1).index_add_(0, flat[inside], w[inside])
    return hist
Tensor.histogram = lambda self, bins=100, **kwargs: histogram(self, bins, **kwargs)

"""torch.set_printoptions / get_printoptions: the options live in the C core (src/ops/print.c), which formats."""
import math

from . import _C

_PROFILES = {'default': (4, 1000.0, 3, 80), 'short': (2, 1000.0, 2, 80), 'full': (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    cur_precision, cur_threshold, cur_edgeitems, cur_linewidth, _ = _C._get_printoptions()
    if profile is not None and profile in _PROFILES:
        cur_precision, cur_threshold, cur_edgeitems, cur_linewidth = _PROFILES[profile]
    if precision is not None:
        cur_precision = precision
    if threshold is not None:
        cur_threshold = threshold
    if edgeitems is not None:
        cur_edgeitems = edgeitems
    if linewidth is not None:
        cur_linewidth = linewidth
    sci = -1 if sci_mode is None else int(bool(sci_mode))
    _C._set_printoptions(int(cur_precision), float(cur_threshold), int(cur_edgeitems), int(cur_linewidth), sci)


def get_printoptions():
    precision, threshold, edgeitems, linewidth, sci = _C._get_printoptions()
    whole = math.isfinite(threshold) and threshold == int(threshold)
    return {'precision': precision, 'threshold': int(threshold) if whole else threshold,
            'edgeitems': edgeitems, 'linewidth': linewidth, 'sci_mode': None if sci < 0 else bool(sci)}


class printoptions:
    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __enter__(self):
        self.old = get_printoptions()
        set_printoptions(**self.kwargs)

    def __exit__(self, *exc):
        set_printoptions(**self.old)


_warn_always = [False]


def set_warn_always(b):
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    return _warn_always[0]


def set_default_dtype(d):
    _C._set_default_dtype(d)

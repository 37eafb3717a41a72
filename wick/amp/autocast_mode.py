"""CPU autocast: torch's per-op cast policy (aten/src/ATen/autocast_mode.cpp, CPU lists) for the ops wick has.

torch applies the policy in its dispatcher; wick applies it at the Python entry points of those ops (torch.mm,
Tensor.mm, F.linear, ...), which are swapped for casting wrappers while an enabled CPU autocast region is open, and
swapped back when the last one closes. Inside a wrapper autocast is off (torch excludes the autocast key while the
op runs), so composite ops are not cast twice. A reference to an op taken before the region opened
(`from torch import mm`) is not cast: that is the difference from torch.
- lower precision (the region's dtype, bfloat16 by default): float32 / float16 / bfloat16 arguments (not float64)
- float32: the ops torch runs in float32 (losses, prod, cdist, ...)
- promote: cat / stack / index_copy: float32 if any argument is, else the lower dtype (float64 ignored)."""
import functools
import threading

import wick as torch

_tls = threading.local()


def _state():
    st = getattr(_tls, 'st', None)
    if st is None:
        st = _tls.st = {'enabled': False, 'dtype': torch.bfloat16, 'depth': 0}
    return st


def is_enabled():
    return _state()['enabled']


def get_dtype():
    return _state()['dtype']


_LOWER = {
    'torch': ['mm', 'bmm', 'matmul', 'addmm', 'baddbmm', 'addbmm', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d',
              'conv_transpose2d', 'conv_transpose3d', 'prelu', 'conv_tbc'],
    'F': ['linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d', 'conv_transpose3d', 'prelu',
          'scaled_dot_product_attention'],
    'Tensor': ['mm', 'bmm', 'matmul', '__matmul__', '__rmatmul__', 'addmm', 'baddbmm', 'addbmm', 'prelu'],
    'linalg': ['vecdot'],
}
_FP32 = {
    'torch': ['prod', 'cdist', 'trace', 'polar', 'quantile', 'nanquantile', 'cholesky', 'cholesky_inverse',
              'cholesky_solve', 'inverse', 'pinverse', 'stft', 'binary_cross_entropy_with_logits', 'kl_div',
              'poisson_nll_loss', 'cosine_embedding_loss', 'hinge_embedding_loss', 'margin_ranking_loss',
              'triplet_margin_loss', 'ctc_loss', 'view_as_complex'],
    'F': ['avg_pool3d', 'binary_cross_entropy', 'binary_cross_entropy_with_logits', 'grid_sample', 'max_pool3d',
          'max_unpool2d', 'max_unpool3d', 'adaptive_avg_pool3d', 'mse_loss', 'cosine_embedding_loss', 'nll_loss',
          'hinge_embedding_loss', 'poisson_nll_loss', 'smooth_l1_loss', 'cross_entropy', 'l1_loss', 'huber_loss',
          'margin_ranking_loss', 'soft_margin_loss', 'triplet_margin_loss', 'multi_margin_loss', 'ctc_loss', 'kl_div',
          'multilabel_margin_loss', 'gaussian_nll_loss'],
    'Tensor': ['prod', 'trace', 'inverse', 'pinverse', 'cholesky', 'cholesky_inverse', 'cholesky_solve'],
    'linalg': ['cholesky', 'inv', 'pinv', 'det', 'slogdet', 'eig', 'eigh', 'eigvals', 'eigvalsh', 'svd', 'svdvals',
               'qr', 'lstsq', 'matrix_exp', 'matrix_rank', 'solve', 'lu_factor', 'lu', 'householder_product',
               'matrix_power', 'tensorinv', 'tensorsolve', 'inv_ex', 'cholesky_ex'],
}
_PROMOTE = {'torch': ['cat', 'stack', 'index_copy'], 'Tensor': ['index_copy']}
_PAD_FP32 = ('reflect', 'replicate')


def _owners():
    import wick.nn.functional as F
    return {'torch': torch, 'F': F, 'Tensor': torch.Tensor, 'linalg': torch.linalg}


def _eligible(x):
    return isinstance(x, torch.Tensor) and x.is_floating_point() and x.dtype != torch.float64


def _cast(v, dtype):
    if _eligible(v) and v.dtype != dtype:
        return v.to(dtype)
    if isinstance(v, (list, tuple)):
        return type(v)(_cast(x, dtype) for x in v)
    return v


def _promote(args, kwargs, lower):
    """torch's at::autocast::prioritize: float64 arguments are ignored, any float32 makes float32, else all must be
    the region's lower-precision dtype."""
    current = lower

    def walk(v):
        nonlocal current
        if _eligible(v):
            if v.dtype == torch.float32 or current == torch.float32:
                current = torch.float32
            elif not (current == lower and v.dtype == lower):
                raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
    walk(args)
    walk(list(kwargs.values()))
    return current


def _wrap(fn, policy):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        st = _state()
        if not st['enabled']:
            return fn(*args, **kwargs)
        if policy == 'lower':
            dtype = st['dtype']
        elif policy == 'fp32':
            dtype = torch.float32
        else:
            dtype = _promote(args, kwargs, st['dtype'])
        if dtype is not None:
            args, kwargs = _cast(args, dtype), {k: _cast(v, dtype) for k, v in kwargs.items()}
        st['enabled'] = False
        try:
            return fn(*args, **kwargs)
        finally:
            st['enabled'] = True
    wrapper.__wick_autocast__ = fn
    return wrapper


def _wrap_pad(fn):
    fp32 = _wrap(fn, 'fp32')

    @functools.wraps(fn)
    def wrapper(input, pad, mode='constant', value=None):
        if mode in _PAD_FP32:
            return fp32(input, pad, mode, value)
        return fn(input, pad, mode, value)
    wrapper.__wick_autocast__ = fn
    return wrapper


_patched = []
_lock = threading.Lock()


def _install():
    owners = _owners()
    for table, policy in ((_LOWER, 'lower'), (_FP32, 'fp32'), (_PROMOTE, 'promote')):
        for owner_name, names in table.items():
            owner = owners[owner_name]
            for name in names:
                fn = getattr(owner, name, None)
                if fn is None or hasattr(fn, '__wick_autocast__'):
                    continue
                own = name in vars(owner)   # a method inherited from the C base is shadowed, then unshadowed
                _patched.append((owner, name, fn if own else _INHERITED))
                setattr(owner, name, _wrap(fn, policy))
    F = owners['F']
    if not hasattr(F.pad, '__wick_autocast__'):
        _patched.append((F, 'pad', F.pad))
        F.pad = _wrap_pad(F.pad)


_INHERITED = object()


def _uninstall():
    while _patched:
        owner, name, fn = _patched.pop()
        if fn is _INHERITED:
            delattr(owner, name)
        else:
            setattr(owner, name, fn)


_regions = [0]   # open CPU autocast regions in every thread (the wrappers stay while any is open)


def enter(enabled, dtype):
    st = _state()
    prev = (st['enabled'], st['dtype'])
    with _lock:
        if _regions[0] == 0:
            _install()
        _regions[0] += 1
    st['enabled'], st['dtype'] = enabled, dtype
    return prev


def exit(prev):
    st = _state()
    st['enabled'], st['dtype'] = prev
    with _lock:
        _regions[0] -= 1
        if _regions[0] == 0:
            _uninstall()

"""torch's window functions (aten/src/ATen/native/TensorFactories.cpp): hann_window, hamming_window,
blackman_window, bartlett_window, kaiser_window.

Each is torch's composite written op for op in torch's order, so the rounding matches in every floating dtype:
an arange in the requested dtype, scaled in place, the cosine applied in place; a periodic window is the
symmetric window of length N + 1 without its last point. A Python scalar that torch multiplies in is cast to the
tensor's dtype first (as a c10::Scalar becomes the kernel's scalar_t), which matters for float16 / bfloat16."""
import math
import sys

_wick = sys.modules[__package__]

_DTYPE_TEXT = {'float32': 'float', 'float64': 'double', 'float16': 'c10::Half', 'bfloat16': 'c10::BFloat16',
               'int64': 'long int', 'int32': 'int', 'int16': 'short int', 'int8': 'signed char',
               'uint8': 'unsigned char', 'bool': 'bool'}


def _options_text(dtype, layout):
    """torch's TensorOptions printing, as window_function_checks puts it in its messages."""
    d = _DTYPE_TEXT.get(str(dtype).replace('torch.', ''), str(dtype))
    if dtype is None or dtype is _DEFAULT:
        d = _DTYPE_TEXT[str(_wick.get_default_dtype()).replace('torch.', '')] + ' (default)'
    lay = 'Strided (default)' if layout is None else ('Sparse' if layout is not _wick.strided else 'Strided')
    return (f"TensorOptions(dtype={d}, device=cpu, layout={lay}, requires_grad=false (default), "
            f"pinned_memory=false, memory_format=(nullopt))")


_DEFAULT = object()


def _checks(name, window_length, dtype, layout):
    if layout is not None and layout is not _wick.strided:
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {_options_text(dtype, layout)}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    d = _wick.get_default_dtype() if dtype is None else dtype
    if not d.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_text(dtype, layout)}")
    return d


def _int_arg(name, arg, pos, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {type(v).__name__}")
    return v


def _window(name, window_length, periodic, dtype, layout, device, requires_grad, body):
    _int_arg(name, 'window_length', 1, window_length)
    d = _checks(name, window_length, dtype, layout)
    if window_length == 0:
        return _wick.empty(0, dtype=d, device=device, requires_grad=requires_grad)
    if window_length == 1:
        return _wick.ones(1, dtype=d, device=device, requires_grad=requires_grad)
    n = window_length + 1 if periodic else window_length
    with _wick.no_grad():
        w = body(_wick.arange(n, dtype=d, device=device), n, d)
        if periodic:
            w = w.narrow(0, 0, n - 1).clone()
    return w.requires_grad_(requires_grad)


def _s(x, dtype):
    """A Python scalar as the kernel sees it: cast to the tensor's dtype."""
    return _wick.tensor(x, dtype=dtype).item()


def _hamming_body(alpha, beta):
    def body(w, n, d):
        return w.mul_(_s(math.pi * 2.0 / (n - 1), d)).cos_().mul_(_s(-beta, d)).add_(_s(alpha, d))
    return body


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _window('hamming_window', window_length, periodic, dtype, layout, device, requires_grad,
                   _hamming_body(alpha, beta))


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    return _window('hann_window', window_length, periodic, dtype, layout, device, requires_grad,
                   _hamming_body(0.5, 0.5))


def _blackman_body(w, n, d):
    w = w.mul_(_s(math.pi / (n - 1), d))
    return w.mul(4).cos_().mul_(_s(0.08, d)) - w.mul(2).cos_().mul_(_s(0.5, d)) + _s(0.42, d)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    return _window('blackman_window', window_length, periodic, dtype, layout, device, requires_grad, _blackman_body)


def _bartlett_body(w, n, d):
    w = w.mul_(_s(2.0 / (n - 1), d))
    first_half = ((n - 1) >> 1) + 1
    w.narrow(0, first_half, n - first_half).mul_(-1).add_(2)
    return w


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    return _window('bartlett_window', window_length, periodic, dtype, layout, device, requires_grad, _bartlett_body)


def _kaiser_body(beta):
    def body(w, n, d):
        # torch's kernel works in the op-math type (float32 for half types): i0(beta * sqrt(1 - ((k - a) / a)^2))
        # / i0(beta) with a = (n - 1) / 2
        op = _wick.float64 if d == _wick.float64 else _wick.float32
        k = w.to(op)
        a = (n - 1) / 2.0
        b = _wick.tensor(beta, dtype=op)
        r = _wick.i0(b * _wick.sqrt(1 - ((k - a) / a).pow(2))) / _wick.i0(b)
        return r.to(d)
    return body


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    return _window('kaiser_window', window_length, periodic, dtype, layout, device, requires_grad, _kaiser_body(beta))


for _f in (hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window):
    _f.__module__ = 'torch'
    setattr(_wick, _f.__name__, _f)

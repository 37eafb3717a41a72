"""Tensor methods of the pointwise area that are Python in torch (attached to wick.Tensor).

The reflected operators torch writes in Python (torch/_tensor.py): each returns NotImplemented on a TypeError, so
`x // "a"` raises Python's own "unsupported operand type(s)" error, as in torch."""
import functools

from . import _C
from ._tensor import Tensor


def _wrap_type_error_to_not_implemented(f):
    @functools.wraps(f)
    def wrapped(self, other):
        try:
            return f(self, other)
        except TypeError:
            return NotImplemented
    return wrapped


@_wrap_type_error_to_not_implemented
def __rpow__(self, other):
    return _C.pow(other, self)


@_wrap_type_error_to_not_implemented
def __floordiv__(self, other):
    return _C.floor_divide(self, other)


@_wrap_type_error_to_not_implemented
def __rfloordiv__(self, other):
    return _C.floor_divide(other, self)


@_wrap_type_error_to_not_implemented
def __rmod__(self, other):
    return _C.remainder(other, self)


@_wrap_type_error_to_not_implemented
def __rlshift__(self, other):
    return _C.bitwise_left_shift(other, self)


@_wrap_type_error_to_not_implemented
def __rrshift__(self, other):
    return _C.bitwise_right_shift(other, self)


@_wrap_type_error_to_not_implemented
def __rsub__(self, other):
    return _C.rsub(self, other)


@_wrap_type_error_to_not_implemented
def __rdiv__(self, other):
    return self.reciprocal() * other


for _name, _f in [('__rpow__', __rpow__), ('__floordiv__', __floordiv__), ('__rfloordiv__', __rfloordiv__),
                  ('__rmod__', __rmod__), ('__rlshift__', __rlshift__), ('__rrshift__', __rrshift__),
                  ('__rsub__', __rsub__), ('__rdiv__', __rdiv__), ('__rtruediv__', __rdiv__)]:
    setattr(Tensor, _name, _f)

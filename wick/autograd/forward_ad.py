"""torch.autograd.forward_ad: dual tensors for forward-mode AD, over the C core's tangents (Note [Forward AD] in
src/autograd/forward_ad.c). Every op of the table carries a jvp formula beside its backward one (or refuses with
torch's NotImplementedError naming it); one dual level at a time, as torch."""
from typing import Any, NamedTuple

import wick as torch
from wick import _C
from . import _DecoratorContextManager

__all__ = ['UnpackedDualTensor', 'enter_dual_level', 'exit_dual_level', 'make_dual', 'unpack_dual', 'dual_level']

_current_level = -1


def enter_dual_level():
    global _current_level
    new_level = _C._enter_dual_level()
    if new_level != _current_level + 1:
        _C._exit_dual_level(new_level)
        raise RuntimeError("Entering a new forward AD level but the current level is not valid. Make sure you did not "
                           "modify it directly.")
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _C._exit_dual_level(level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    return _C._make_dual(tensor, tangent, level)


class UnpackedDualTensor(NamedTuple):
    primal: Any
    tangent: Any


UnpackedDualTensor.__module__ = 'torch.autograd.forward_ad'


def unpack_dual(tensor, *, level=None):
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    tangent = _C._fw_tangent(tensor, level) if _C._has_fw_grad(tensor, level) else None
    return UnpackedDualTensor(_C._fw_primal(tensor, level), tangent)


class dual_level(_DecoratorContextManager):
    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

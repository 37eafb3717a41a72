"""torch.autograd.forward_ad: dual tensors for forward-mode AD. wick has no forward-mode AD yet (no jvp formulas
beside the backward ones in the op table): every entry point raises NotImplementedError naming itself.
torch.func.jvp / jacfwd / linearize give forward-mode results through the double-backward trick instead."""

__all__ = ['UnpackedDualTensor', 'enter_dual_level', 'exit_dual_level', 'make_dual', 'unpack_dual', 'dual_level']


def _refuse(name):
    raise NotImplementedError(f"wick: torch.autograd.forward_ad.{name} is not supported yet (wick has no "
                              "forward-mode AD; torch.func.jvp / jacfwd compute forward-mode results by double "
                              "backward)")


def enter_dual_level():
    _refuse('enter_dual_level')


def exit_dual_level(*, level=None):
    _refuse('exit_dual_level')


def make_dual(tensor, tangent, *, level=None):
    _refuse('make_dual')


def unpack_dual(tensor, *, level=None):
    _refuse('unpack_dual')


class UnpackedDualTensor(tuple):
    def __new__(cls, *args, **kwargs):
        _refuse('UnpackedDualTensor')


class dual_level:
    def __enter__(self):
        _refuse('dual_level')

    def __exit__(self, *exc):
        return False

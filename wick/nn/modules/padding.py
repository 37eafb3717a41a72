"""Padding modules: constant, zero, reflection, replication, circular."""
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair, _quadruple

__all__ = ['CircularPad1d', 'CircularPad2d', 'CircularPad3d', 'ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d',
           'ReflectionPad1d', 'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
           'ReplicationPad3d', 'ZeroPad1d', 'ZeroPad2d', 'ZeroPad3d']

_sextuple = _ntuple(6)


class _CircularPadNd(Module):
    __constants__ = ['padding']

    def _check_input_dim(self, input):
        raise NotImplementedError

    def forward(self, input):
        self._check_input_dim(input)
        return F.pad(input, self.padding, 'circular')

    def extra_repr(self):
        return f"{self.padding}"


def _circular(name, tup, dims):
    def __init__(self, padding):
        Module.__init__(self)
        self.padding = tup(padding)

    def _check_input_dim(self, input):
        if input.dim() != dims[0] and input.dim() != dims[1]:
            raise ValueError(f"expected {dims[0]}D or {dims[1]}D input (got {input.dim()}D input)")

    return type(name, (_CircularPadNd,), {'__init__': __init__, '_check_input_dim': _check_input_dim,
                                          '__module__': __name__})


CircularPad1d = _circular('CircularPad1d', _pair, (2, 3))
CircularPad2d = _circular('CircularPad2d', _quadruple, (3, 4))
CircularPad3d = _circular('CircularPad3d', _sextuple, (4, 5))


class _ConstantPadNd(Module):
    __constants__ = ['padding', 'value']

    def __init__(self, value):
        super().__init__()
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, 'constant', self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _pair(padding)


class ConstantPad2d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _quadruple(padding)


class ConstantPad3d(_ConstantPadNd):
    def __init__(self, padding, value):
        super().__init__(value)
        self.padding = _sextuple(padding)


class _ModePadNd(Module):
    __constants__ = ['padding']
    _mode = ''

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


def _mode_pad(name, tup, mode):
    def __init__(self, padding):
        Module.__init__(self)
        self.padding = tup(padding)

    return type(name, (_ModePadNd,), {'__init__': __init__, '_mode': mode, '__module__': __name__})


ReflectionPad1d = _mode_pad('ReflectionPad1d', _pair, 'reflect')
ReflectionPad2d = _mode_pad('ReflectionPad2d', _quadruple, 'reflect')
ReflectionPad3d = _mode_pad('ReflectionPad3d', _sextuple, 'reflect')
ReplicationPad1d = _mode_pad('ReplicationPad1d', _pair, 'replicate')
ReplicationPad2d = _mode_pad('ReplicationPad2d', _quadruple, 'replicate')
ReplicationPad3d = _mode_pad('ReplicationPad3d', _sextuple, 'replicate')


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"

"""wick.vision: torchvision's transforms, datasets, ops, utils and models over wick (`import torchvision` after
wick.install_as_torch()). Submodules load on first use, as wick's own."""
__version__ = '0.29.1'

_SUBMODULES = ('transforms', 'datasets', 'ops', 'utils', 'models', 'io')


def __getattr__(name):
    if name in _SUBMODULES:
        import importlib
        mod = importlib.import_module('.' + name, __name__)
        globals()[name] = mod
        return mod
    raise AttributeError(f"module 'torchvision' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))

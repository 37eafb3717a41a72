"""torch.utils."""
from . import data  # noqa: F401


def __getattr__(name):   # torch.utils.checkpoint / deterministic load on first use
    if name in ('checkpoint', 'deterministic'):
        import importlib
        return importlib.import_module('.' + name, __name__)
    raise AttributeError("module 'wick.utils' has no attribute '%s'" % name)

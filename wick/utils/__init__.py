"""torch.utils."""
from . import data  # noqa: F401


def __getattr__(name):   # torch.utils.checkpoint loads on first use
    if name == 'checkpoint':
        import importlib
        return importlib.import_module('.checkpoint', __name__)
    raise AttributeError("module 'wick.utils' has no attribute '%s'" % name)

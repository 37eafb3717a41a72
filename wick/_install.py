"""wick.install_as_torch(): `import torch` (and torch.nn, torch.utils.data, ...) and `import torchvision`
resolve to wick and wick.vision, so unmodified scripts and libraries that import torch run on wick."""
import importlib
import importlib.abc
import importlib.machinery
import sys

_ALIASES = {'torch': 'wick', 'torchvision': 'wick.vision'}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.own_spec   # importlib set the alias's spec: the module keeps its own


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds torch[.x.y] as wick[.x.y] and torchvision[.x] as wick.vision[.x]: the same module objects."""

    def find_spec(self, fullname, path=None, target=None):
        head, _, rest = fullname.partition('.')
        if head not in _ALIASES:
            return None
        target = _ALIASES[head] + ('.' + rest if rest else '')
        if importlib.util.find_spec(target) is None:
            return None   # torch.x that wick lacks: Python's own ModuleNotFoundError names torch.x
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target))


_finder = _AliasFinder()


def install_as_torch():
    """Make `import torch` and `import torchvision` give wick and wick.vision. A real torch (or torchvision)
    already imported cannot be replaced under its importers: that is a RuntimeError."""
    for name in _ALIASES:
        mod = sys.modules.get(name)
        if mod is not None and mod is not importlib.import_module(_ALIASES[name]):
            raise RuntimeError(f"wick.install_as_torch(): the real {name} is already imported; call "
                               f"install_as_torch() before anything imports {name}")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    import wick
    sys.modules['torch'] = wick

"""torch.utils.deterministic: the module whose property fill_uninitialized_memory says whether uninitialised
memory is filled while deterministic algorithms are on (see wick/_runtime_py.py)."""
import sys
import types

from .. import _runtime_py


class _Deterministic(types.ModuleType):
    @property
    def fill_uninitialized_memory(self):
        """Whether to fill uninitialized memory with a known value when
        :meth:`torch.use_deterministic_algorithms()` is set to ``True``."""
        return _runtime_py._get_fill_uninitialized_memory()

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode):
        return _runtime_py._set_fill_uninitialized_memory(mode)


sys.modules[__name__].__class__ = _Deterministic

"""wick — PyTorch's shape in C. `import wick as torch`."""
import sys as _sys
if _sys.platform == 'emscripten':  # Pyodide: _C over the wasm core through the JS bridge (wick/_pyodide/_C.py)
    from ._pyodide import _C
    _sys.modules[__name__ + '._C'] = _C
else:
    from . import _C
del _sys
from ._C import (  # noqa: F401
    dtype, Size, bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64,
    get_default_dtype, is_grad_enabled, is_inference_mode_enabled, tensor, get_num_threads, set_num_threads,
)
from ._tensor import Tensor  # noqa: F401
from ._ops import *  # noqa: F401,F403
from . import autograd  # noqa: F401
from . import _pointwise_py, _reduce_py, _shape_py, _index_py, _creation_py  # noqa: F401  (per-area Python methods)
from . import _extra_py  # noqa: F401,E402  (constants, broadcast_shapes, unravel_index, Tensor.new, ...)
from . import _histogram_py  # noqa: F401,E402  (torch.histogram / Tensor.histogram)
from . import _linalg_py  # noqa: F401,E402  (torch.linalg names written in Python: lu_factor, lu, lstsq, ...; torch.lu)
from . import _removed_py  # noqa: F401,E402  (torch.lstsq / solve / eig / symeig: torch's removed-name errors)
from . import _signal_py, _matrices_py, _runtime_py, _tensor_compat_py, _copy_ops_py  # noqa: F401,E402  (windows, vander, sym_*, deterministic, Tensor compat names, *_copy ops)
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: F401
from .autograd import is_anomaly_enabled, is_anomaly_check_nan_enabled  # noqa: F401
from . import random  # noqa: F401
from ._C import Generator, default_generator  # noqa: F401
from .random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa: F401

from ._printing import set_printoptions, set_warn_always, is_warn_always_enabled, set_default_dtype  # noqa: F401
from . import _printing as _tensor_str  # noqa: F401  (torch._tensor_str.get_printoptions / printoptions)
from ._device import device  # noqa: F401
from . import _nn_py  # noqa: F401,E402  (nn composites in the torch namespace)
from ._creation_py import *  # noqa: F401,F403  (finfo, iinfo, is_tensor)
from ._creation_py import _missing_attr
from ._install import install_as_torch  # noqa: F401

# Submodules a script may never touch load on first use (`import wick` stays cheap: bench/NOTES.md, import):
# wick.nn, wick.optim, ... are imported by the first `wick.nn` (or `import wick.nn`), and the names below by
# their first use. Nothing in them attaches methods to Tensor, so loading them later changes no behaviour.
_LAZY_MODULES = frozenset(('nn', 'optim', 'serialization', 'cuda', 'backends', 'amp', 'distributed', 'onnx', 'utils',
                           'hub', 'vision', 'func', 'webgpu', 'special', 'distributions', 'jit', 'storage'))
_LAZY_NAMES = {'save': 'serialization', 'load': 'serialization', 'save_safetensors': 'serialization',
               'load_safetensors': 'serialization', 'autocast': 'amp', 'is_autocast_enabled': 'amp',
               'get_autocast_dtype': 'amp', 'vmap': 'func', 'GradScaler': 'amp',
               'DisableTorchFunction': 'overrides', 'DisableTorchFunctionSubclass': 'overrides'}
_LAZY_NAMES.update(dict.fromkeys(('UntypedStorage', 'TypedStorage', 'FloatStorage', 'DoubleStorage', 'HalfStorage',
                                  'BFloat16Storage', 'LongStorage', 'IntStorage', 'ShortStorage', 'CharStorage',
                                  'ByteStorage', 'BoolStorage'), 'storage'))
_LAZY_NAMES.update(dict.fromkeys(('rnn_tanh', 'rnn_relu', 'lstm', 'gru', 'rnn_tanh_cell', 'rnn_relu_cell', 'lstm_cell',
                                  'gru_cell'), 'nn.modules.rnn'))  # torch.lstm & co: the recurrent layer ops


def __getattr__(name):  # lazy submodules, then names torch has and wick does not: a clear AttributeError
    if name in _LAZY_MODULES or name in _LAZY_NAMES:
        import importlib
        mod = importlib.import_module('.' + _LAZY_NAMES.get(name, name), __name__)
        value = getattr(mod, name) if name in _LAZY_NAMES else mod
        globals()[name] = value
        return value
    raise _missing_attr(name)


def __dir__():
    return sorted(set(globals()) | _LAZY_MODULES | set(_LAZY_NAMES))


__version__ = '0.1.0'

_matmul_precision = ['highest']


def set_float32_matmul_precision(precision):
    if precision not in ('highest', 'high', 'medium'):
        import warnings
        warnings.warn("%s is not one of 'highest', 'high', or 'medium'; the currentsetFloat32MatmulPrecision call "
                      "has no effect." % precision, UserWarning, stacklevel=2)
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


def compile(model=None, *, fullgraph=False, dynamic=None, backend='inductor', mode=None, options=None,
            disable=False):
    """wick has no compiler yet: torch.compile returns the model (or function) unchanged."""
    if model is None:
        return lambda m: m
    return model

# dtype aliases, as torch spells them
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16

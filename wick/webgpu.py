"""wick.webgpu: the WebGPU device (issue 20), natively through wgpu-native loaded at run time.

wgpu-native is an optional dependency: it is the library in the `wgpu` wheel (`pip install wgpu==0.32.0`), found
next to that package without importing it, or the file named by $WICK_WGPU_LIB. Without it, or without an adapter
(lavapipe: Debian's mesa-vulkan-drivers), is_available() is False and unavailable_reason() says why.

Step 1: the device's memory (buffers, pool, copies, fill); tensors on 'webgpu' from Python come next."""
import importlib.util
import os

from . import _C

__all__ = ['is_available', 'unavailable_reason', 'get_device_name', 'device_count', 'synchronize', 'memory_allocated',
           'memory_reserved']

_state = None  # (available, reason, adapter name, backend), decided once per process, as the C side decides


def _library_path():
    try:
        spec = importlib.util.find_spec('wgpu')
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, 'resources', 'libwgpu_native-release.so')
        if os.path.isfile(path):
            return path
    return None


def _open():
    global _state
    if _state is None:
        _state = _C._webgpu_open(_library_path())
    return _state


def is_available():
    """True when wgpu-native loads and gives an adapter and a device."""
    return bool(_open()[0])


def unavailable_reason():
    """Why is_available() is False ('' when it is True)."""
    return _open()[1]


def device_count():
    return 1 if is_available() else 0


def get_device_name(device=None):
    """The adapter's name, e.g. 'llvmpipe (LLVM 15.0.6, 256 bits)' on lavapipe."""
    if device not in (None, 0, 'webgpu', 'webgpu:0'):
        raise ValueError(f"wick.webgpu has one device (0), not {device!r}")
    ok, reason, name, _backend = _open()
    if not ok:
        raise RuntimeError(f"webgpu is not available: {reason}")
    return name


def _backend():
    return _open()[3]


def synchronize(device=None):
    """Waits for all work queued on the device (torch.cuda.synchronize)."""
    _C._webgpu_synchronize()


def memory_allocated(device=None):
    """Bytes of device memory held by live storages, counted in whole pool buckets (torch.cuda.memory_allocated)."""
    return _C._webgpu_memory()[0]


def memory_reserved(device=None):
    """memory_allocated() plus the idle buffers kept in the pool (torch.cuda.memory_reserved)."""
    return _C._webgpu_memory()[1]

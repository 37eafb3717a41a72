"""torch.cuda as a CPU-only torch build answers it: nothing is available; using a GPU raises torch's error."""
from . import amp  # noqa: F401

_NO_CUDA = 'Torch not compiled with CUDA enabled'


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def _lazy_init():
    raise AssertionError(_NO_CUDA)


def init():
    _lazy_init()


def current_device():
    _lazy_init()


def set_device(device):
    _lazy_init()


def get_device_name(device=None):
    _lazy_init()


def get_device_properties(device=None):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def synchronize(device=None):
    _lazy_init()


def manual_seed(seed):
    pass  # torch silently ignores CUDA seeding when CUDA is absent


def manual_seed_all(seed):
    pass


def seed():
    pass


def seed_all():
    pass


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def reset_peak_memory_stats(device=None):
    pass


class device:
    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        if self.idx is not None and self.idx != -1:
            _lazy_init()

    def __exit__(self, *exc):
        return False


class Event:
    def __init__(self, *args, **kwargs):
        _lazy_init()


class Stream:
    def __init__(self, *args, **kwargs):
        _lazy_init()

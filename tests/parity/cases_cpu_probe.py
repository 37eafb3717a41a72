"""What scripts written for GPUs probe on a CPU: the answers of a CPU-only torch build."""
from .harness import *  # noqa: F401,F403

case("cuda_is_available", lambda T: (T.cuda.is_available(), T.cuda.device_count(), T.cuda.is_initialized()))
case("mps_is_available", lambda T: (T.backends.mps.is_available(), T.backends.mps.is_built()))
case("cudnn_flags", lambda T: (T.backends.cudnn.is_available(), T.backends.cudnn.enabled, T.backends.cudnn.benchmark,
                               T.backends.cudnn.deterministic))
case("device_pick", lambda T: str(T.device('cuda' if T.cuda.is_available() else 'cpu')))
error_case("cuda_current_device", lambda T: T.cuda.current_device())
error_case("cuda_get_device_name", lambda T: T.cuda.get_device_name(0))
case("cuda_manual_seed_is_silent", lambda T: (T.cuda.manual_seed(0), T.cuda.manual_seed_all(0)))
case("distributed_importable", lambda T: (submodule(T, 'distributed').is_available(),
                                          submodule(T, 'distributed').is_initialized()))
case("nn_parallel_importable", lambda T: hasattr(submodule(T, 'nn.parallel'),
                                                 'DistributedDataParallel'))
case("onnx_importable", lambda T: hasattr(submodule(T, 'onnx'), 'export'))


def _matmul_precision(T):
    a = T.get_float32_matmul_precision()
    T.set_float32_matmul_precision('high')
    b = T.get_float32_matmul_precision()
    T.set_float32_matmul_precision('highest')
    return a, b
case("float32_matmul_precision", _matmul_precision)
case("float32_matmul_precision_bad", lambda T: (T.set_float32_matmul_precision('fast'),
                                               T.get_float32_matmul_precision()), warns=True)


def _compile(T):
    m = T.nn.Module()
    return T.compile(m) is m or type(T.compile(m)).__name__
case("compile_returns_callable_model", lambda T: callable(T.compile(lambda x: x)))


def _grad_scaler_disabled(T):
    s = T.cuda.amp.GradScaler(enabled=False)
    x = T.tensor([1.5, 2.0])
    return s.is_enabled(), s.get_scale(), s.scale(x) is x, s.state_dict()
case("grad_scaler_disabled", _grad_scaler_disabled, warns=True)


def _grad_scaler_cuda_on_cpu(T):
    s = T.amp.GradScaler('cuda')
    return s.is_enabled()
case("grad_scaler_cuda_without_cuda", _grad_scaler_cuda_on_cpu, warns=True)


def _autocast_disabled(T):
    x = T.tensor([[1.5, 2.0]])
    with T.autocast('cpu', enabled=False):
        y = x.mm(x.t())
    with T.amp.autocast(device_type='cpu', enabled=False):
        z = x * 2
    return y, z
case("autocast_cpu_disabled", _autocast_disabled)


def _autocast_cuda(T):
    x = T.tensor([1.5, 2.0])
    with T.autocast('cuda'):
        return x * 2
case("autocast_cuda_without_cuda", _autocast_cuda, warns=True)


def _tensorboard_blocked(T):
    """`import torch.utils.tensorboard` where the tensorboard package cannot be imported: torch's module
    imports it first, so the error is Python's own.  The package is blocked in sys.modules for the case
    (and a cached torch.utils.tensorboard dropped), so the answer does not depend on what is installed."""
    import sys
    base = "torch" if T.__name__.startswith("tests.parity.standins") else T.__name__
    names = ['tensorboard', base + '.utils.tensorboard']
    saved = {n: sys.modules.pop(n) for n in names if n in sys.modules}
    sys.modules['tensorboard'] = None
    try:
        return submodule(T, 'utils.tensorboard')
    finally:
        for n in names:
            sys.modules.pop(n, None)
        sys.modules.update(saved)
error_case("tensorboard_import", _tensorboard_blocked)

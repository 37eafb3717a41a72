"""torch.backends as a CPU-only build reports it."""
import types

mps = types.SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
cudnn = types.SimpleNamespace(is_available=lambda: False, enabled=True, benchmark=False, deterministic=False,
                              allow_tf32=True, version=lambda: None)
cuda = types.SimpleNamespace(is_built=lambda: False,
                             matmul=types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                                          allow_bf16_reduced_precision_reduction=True))
mkldnn = types.SimpleNamespace(is_available=lambda: False, enabled=False)
mkl = types.SimpleNamespace(is_available=lambda: False)
openmp = types.SimpleNamespace(is_available=lambda: False)
opt_einsum = types.SimpleNamespace(is_available=lambda: False, enabled=False, strategy=None)


class _MhaBackend:
    """torch.backends.mha: whether MultiheadAttention / TransformerEncoder(Layer) take their inference fast path."""

    def __init__(self):
        self._fastpath_enabled = True

    def get_fastpath_enabled(self):
        return self._fastpath_enabled

    def set_fastpath_enabled(self, value):
        self._fastpath_enabled = bool(value)


mha = _MhaBackend()

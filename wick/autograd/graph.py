"""torch.autograd.graph: Node, the abstract type of every grad_fn (built-in nodes and custom Functions' ctx), and the
saved-tensor hooks (saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks): while a saved_tensors_hooks
context is open, every tensor a node saves goes through its pack_hook and backward gets it back from its
unpack_hook (Note [Saved-tensor hooks] in src/autograd/autograd.h; custom Functions' save_for_backward in
wick/autograd/function.py). The stack is per thread, as torch's."""
import threading

from .. import _C

__all__ = ['Node', 'saved_tensors_hooks', 'save_on_cpu', 'disable_saved_tensors_hooks']

_tls = threading.local()


def _stack():
    s = getattr(_tls, 'stack', None)
    if s is None:
        s = _tls.stack = []
    return s


def _pack(tensor):
    """the packer the core calls for each saved tensor: (unpack_hook, what pack_hook returned)"""
    pack_hook, unpack_hook = _stack()[-1]
    return unpack_hook, call_pack(pack_hook, tensor)


def call_pack(pack_hook, tensor):
    """pack_hook(tensor), the tensors its own ops save not packed again"""
    _tls.packing = getattr(_tls, 'packing', 0) + 1
    _sync()
    try:
        return pack_hook(tensor)
    finally:
        _tls.packing -= 1
        _sync()


def _active():
    """(pack_hook, unpack_hook) of the innermost open saved_tensors_hooks, or None (also while a pack_hook runs)"""
    s = _stack()
    return s[-1] if s and not getattr(_tls, 'packing', 0) else None


def _sync():
    if hasattr(_C, '_set_saved_tensor_hooks'):
        _C._set_saved_tensor_hooks(_pack if _stack() and not getattr(_tls, 'packing', 0) else None)


class saved_tensors_hooks:
    """Context manager: pack_hook(tensor) -> anything runs when a tensor is saved for backward; unpack_hook(that) ->
    Tensor runs when backward needs it back."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        msg = getattr(_tls, 'disabled', None)
        if msg is not None:
            raise RuntimeError(msg)
        if not hasattr(_C, '_set_saved_tensor_hooks'):
            raise NotImplementedError("wick: torch.autograd.graph.saved_tensors_hooks is not supported by this build's "
                                      "extension (no saved-tensor hook in its core)")
        _stack().append((self.pack_hook, self.unpack_hook))
        _sync()

    def __exit__(self, *args):
        _stack().pop()
        _sync()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device when unpacked (wick's tensors are on the CPU:
    the pack is a copy there)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = _C.empty(tensor.size(), dtype=tensor.dtype, layout=tensor.layout,
                              pin_memory=True)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context manager: opening a saved_tensors_hooks inside raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.prev = getattr(_tls, 'disabled', None)
        _tls.disabled = self.error_message
        if _stack():
            raise RuntimeError(self.error_message)

    def __exit__(self, *args):
        _tls.disabled = self.prev


class _NodeMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _C._FunctionBase)

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, _C._FunctionBase)


class Node(metaclass=_NodeMeta):
    __module__ = 'torch.autograd.graph'

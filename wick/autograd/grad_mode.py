"""torch.autograd.grad_mode: the grad-mode context managers (defined in torch.autograd)."""
from . import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: F401

__all__ = ['no_grad', 'enable_grad', 'set_grad_enabled', 'inference_mode']

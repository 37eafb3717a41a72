"""torch.optim.SparseAdam: Adam for sparse gradients. wick has no sparse tensors, so every gradient is dense and
step() raises torch's error for dense gradients."""
from wick._tensor import Tensor
from .optimizer import Optimizer, _closure_loss, _hp

__all__ = ['SparseAdam']


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError('Tensor lr must be 1-element')
        if not 0.0 < _hp(lr):
            raise ValueError(f'Invalid learning rate: {lr}')
        if not 0.0 < eps:
            raise ValueError(f'Invalid epsilon value: {eps}')
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f'Invalid beta parameter at index 0: {betas[0]}')
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f'Invalid beta parameter at index 1: {betas[1]}')
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        import wick
        with wick.no_grad():
            loss = _closure_loss(closure)
            for group in self.param_groups:
                for p in group['params']:
                    if p.grad is not None:
                        raise RuntimeError('SparseAdam does not support dense gradients, please consider Adam '
                                           'instead')
        return loss

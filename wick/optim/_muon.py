"""torch.optim.Muon: momentum, then Newton-Schulz orthogonalisation of the update in bfloat16, for 2-D parameters.

torch writes Muon in Python over tensor ops (torch/optim/_muon.py); so does wick, op for op (the same bfloat16
matmuls in the same order), so the same roundings happen. Only the single-tensor path exists in torch too."""
import math

import wick as torch
from wick._tensor import Tensor
from .optimizer import Optimizer, _closure_loss, _to_scalar

__all__ = ['Muon']

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """k quintic Newton-Schulz steps towards U V^T of grad = U S V^T, in bfloat16 (grad: (m, n))."""
    if ns_steps >= 100:
        raise ValueError('Number of steps must be less than 100 for computational efficiency')
    if len(grad.shape) != 2:
        raise ValueError('Input tensor gradient must be a 2D matrix')
    if len(ns_coefficients) != 3:
        raise ValueError('Coefficients must be a tuple of exactly 3 values')
    a, b, c = ns_coefficients
    ortho_grad = grad.bfloat16()  # (m, n), transposed below to (min, max)
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    ortho_grad.div_(ortho_grad.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram_matrix = ortho_grad @ ortho_grad.T  # (min, min)
        gram_update = torch.addmm(gram_matrix, gram_matrix, gram_matrix, beta=b, alpha=c)
        ortho_grad = torch.addmm(ortho_grad, gram_update, ortho_grad, beta=a)
    if grad.size(0) > grad.size(1):
        ortho_grad = ortho_grad.T
    return ortho_grad


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == 'original':
        adjusted_ratio = math.sqrt(max(1, A / B))
    elif adjust_lr_fn == 'match_rms_adamw':
        adjusted_ratio = 0.2 * math.sqrt(max(A, B))
    else:
        adjusted_ratio = 1.0
    return lr * adjusted_ratio


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError('Tensor lr must be 1-element')
        if not 0.0 <= lr:
            raise ValueError(f'Learning rate should be >= 0 but is: {lr}')
        if not 0.0 <= momentum:
            raise ValueError(f'momentum should be >= 0 but is: {momentum}')
        if not 0.0 <= weight_decay:
            raise ValueError(f'weight decay should be >= 0 but is: {weight_decay}')
        if adjust_lr_fn is not None and adjust_lr_fn not in ['original', 'match_rms_adamw']:
            raise ValueError(f'Adjust learning rate function {adjust_lr_fn} is not supported')
        defaults = {'lr': lr, 'weight_decay': weight_decay, 'momentum': momentum, 'nesterov': nesterov,
                    'ns_coefficients': ns_coefficients, 'eps': eps, 'ns_steps': ns_steps,
                    'adjust_lr_fn': adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group['params']:
                if p.ndim != 2:
                    raise ValueError('Muon only supports 2D parameters whereas we found a parameter with size: '
                                     f'{p.size()}')

    def _init_group(self, group, params_with_grad, grads, muon_momentum_bufs):
        for p in group['params']:
            if p.grad is None:
                continue
            if p.grad.is_sparse:
                raise RuntimeError('Muon does not support sparse gradients')
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if 'momentum_buffer' not in state:
                state['momentum_buffer'] = torch.zeros_like(p.grad, memory_format=torch.preserve_format)  # p's shape
            muon_momentum_bufs.append(state['momentum_buffer'])
        return False  # has_complex: wick has no complex dtypes

    @torch.no_grad()
    def step(self, closure=None):
        """Performs a single optimization step."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params_with_grad, grads, muon_momentum_bufs = [], [], []
            has_complex = self._init_group(group, params_with_grad, grads, muon_momentum_bufs)
            muon(params_with_grad, grads, muon_momentum_bufs, lr=group['lr'], weight_decay=group['weight_decay'],
                 momentum=group['momentum'], nesterov=group['nesterov'], ns_coefficients=group['ns_coefficients'],
                 eps=group['eps'], ns_steps=group['ns_steps'], adjust_lr_fn=group['adjust_lr_fn'],
                 has_complex=has_complex)
        return loss


def _single_tensor_muon(params, grads, muon_momentum_bufs, *, lr, weight_decay, momentum, nesterov, ns_coefficients,
                        ns_steps, eps, adjust_lr_fn, has_complex):
    lr = _to_scalar(lr)
    if has_complex:
        raise ValueError('Complex parameters are not supported')
    for i, param in enumerate(params):
        grad = grads[i]
        if grad.ndim != 2:
            raise ValueError('Param gradient must be a 2D matrix')
        buf = muon_momentum_bufs[i]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf
        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        adjusted_lr = _adjust_lr(lr, adjust_lr_fn, param.shape)
        param.mul_(1 - lr * weight_decay)
        param.add_(update, alpha=-adjusted_lr)


def muon(params, grads, muon_momentum_bufs, *, foreach=None, lr, weight_decay, momentum, nesterov, ns_coefficients,
         ns_steps, eps, adjust_lr_fn, has_complex):
    """Functional API that performs Muon algorithm computation (see torch.optim.Muon)."""
    if foreach is not None and foreach:
        raise RuntimeError('Foreach is not supported for Muon yet')
    _single_tensor_muon(params, grads, muon_momentum_bufs, lr=lr, weight_decay=weight_decay, momentum=momentum,
                        nesterov=nesterov, ns_coefficients=ns_coefficients, ns_steps=ns_steps, eps=eps,
                        adjust_lr_fn=adjust_lr_fn, has_complex=has_complex)

"""torch.optim.Adafactor (beta2_decay, eps=(eps1, eps2), d, weight_decay, maximize, foreach).

torch writes Adafactor in Python over tensor ops (torch/optim/_adafactor.py); so does wick, op for op, so that
the same roundings happen in the same order. A parameter with more than one dimension keeps factored second
moments over its last two dimensions (row_var: (..., m, 1), col_var: (..., 1, n)); a vector keeps a full
variance. foreach=True runs torch's multi-tensor arithmetic (the update scaled, then added) per tensor."""
import wick as torch
from wick._tensor import Tensor
from .optimizer import Optimizer, _closure_loss, _get_scalar_dtype, _setstate_groups, _to_scalar

__all__ = ['Adafactor', 'adafactor']


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError('Tensor lr must be 1-element')
        if not 0.0 <= lr:
            raise ValueError(f'Learning rate should be >= 0 but is: {lr}')
        if not 0.0 >= beta2_decay:
            raise ValueError(f'beta2_decay should be <= 0 but is: {beta2_decay}')
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f'epsilon1 should be >= 0 but is: {eps[0]}')
        if not 0.0 <= eps[1]:
            raise ValueError(f'epsilon2 should be >= 0 but is: {eps[1]}')
        if not 1.0 <= d:
            raise ValueError(f'Clipping threshold d should be >= 1 but is: {d}')
        if not 0.0 <= weight_decay:
            raise ValueError(f'weight_decay should be >= 0 but is: {weight_decay}')
        defaults = {'lr': lr, 'beta2_decay': beta2_decay, 'eps': eps, 'd': d, 'weight_decay': weight_decay,
                    'foreach': foreach, 'maximize': maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('foreach', None),))

    def _init_group(self, group, params_with_grad, grads, row_vars, col_vars, variances, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            if p.grad.is_sparse:
                raise RuntimeError('Adafactor does not support sparse gradients')
            params_with_grad.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = torch.tensor(0.0, dtype=_get_scalar_dtype())
                if p.grad.dim() > 1:
                    row_shape = list(p.grad.shape)
                    row_shape[-1] = 1
                    state['row_var'] = p.grad.new_zeros(row_shape)  # (..., m, 1)
                    col_shape = list(p.grad.shape)
                    col_shape[-2] = 1
                    state['col_var'] = p.grad.new_zeros(col_shape)  # (..., 1, n)
                else:
                    state['variance'] = torch.zeros_like(p.grad, memory_format=torch.preserve_format)  # p's shape
            row_vars.append(state.get('row_var', None))
            col_vars.append(state.get('col_var', None))
            variances.append(state.get('variance', None))
            state_steps.append(state['step'])
        return False  # has_complex: wick has no complex dtypes

    @torch.no_grad()
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        self._accelerator_graph_capture_health_check()
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params_with_grad, grads, row_vars, col_vars, variances, state_steps = [], [], [], [], [], []
            eps1, eps2 = group['eps']
            has_complex = self._init_group(group, params_with_grad, grads, row_vars, col_vars, variances,
                                           state_steps)
            adafactor(params_with_grad, grads, row_vars, col_vars, variances, state_steps, d=group['d'],
                      lr=group['lr'], beta2_decay=group['beta2_decay'], weight_decay=group['weight_decay'],
                      eps1=eps1, eps2=eps2, foreach=group['foreach'], maximize=group['maximize'],
                      grad_scale=getattr(self, 'grad_scale', None), found_inf=getattr(self, 'found_inf', None),
                      has_complex=has_complex)
        return loss


def _adafactor_one(param, grad, row_var, col_var, variance, step_t, *, d, lr, beta2_decay, weight_decay, eps1,
                   eps2, foreach):
    """One parameter's update, in torch's order; eps1 is the group's (the first parameter's dtype's eps)."""
    step_t += 1
    step_float = step_t.item()
    one_minus_beta2_t = step_float ** beta2_decay
    rho_t = min(lr, 1 / (step_float ** 0.5))
    alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
    if weight_decay != 0:
        param.mul_(1 - lr * weight_decay)
    if grad.dim() > 1:
        if row_var is None or col_var is None:
            raise AssertionError('row_var and col_var should be defined when grad is multidimensional')
        row_mean = torch.norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))  # (..., m, 1)
        row_var.lerp_(row_mean, one_minus_beta2_t)
        col_mean = torch.norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))  # (..., 1, n)
        col_var.lerp_(col_mean, one_minus_beta2_t)
        var_estimate = row_var @ col_var  # (..., m, n)
        var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    else:
        if variance is None:
            raise AssertionError('variance should be defined when grad is a vector')
        variance.lerp_(grad * grad, one_minus_beta2_t)
        var_estimate = variance.clone()  # p's shape
    update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
    update.mul_(grad)
    denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
    if foreach:
        update.mul_(-alpha / denom)
        param.add_(update)
    else:
        param.add_(update, alpha=-alpha / denom)


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach=None, grad_scale=None,
              found_inf=None, has_complex=False, *, d, lr, beta2_decay, weight_decay, eps1, eps2, maximize):
    """Functional API that performs Adafactor algorithm computation (see torch.optim.Adafactor)."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError('`state_steps` argument must contain a list of singleton tensors')
    if grad_scale is not None or found_inf is not None:
        raise AssertionError('Grad scaling should occur outside of optimizer.step()')
    lr = _to_scalar(lr)
    if foreach:
        grads = [-g for g in grads] if maximize else grads
    for i, param in enumerate(params):
        grad = grads[i] if foreach or not maximize else -grads[i]
        if eps1 is None:
            eps1 = torch.finfo(param.dtype).eps
        _adafactor_one(param, grad, row_vars[i], col_vars[i], variances[i], state_steps[i], d=d, lr=lr,
                       beta2_decay=beta2_decay, weight_decay=weight_decay, eps1=eps1, eps2=eps2, foreach=foreach)

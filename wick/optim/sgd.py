"""torch.optim.SGD (momentum, dampening, nesterov, weight_decay, maximize); the update runs in C (_sgd_step)."""
from wick import _C
from .optimizer import (Optimizer, _check_impl_flags, _check_inplace, _check_lr, _check_step_flags, _closure_loss,
                        _hp, _use_grad_for_differentiable)

__all__ = ['SGD', 'sgd']


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        _check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f'Invalid momentum value: {momentum}')
        if weight_decay < 0.0:
            raise ValueError(f'Invalid weight_decay value: {weight_decay}')
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError('Nesterov momentum requires a momentum and zero dampening')
        super().__init__(params, defaults)
        _check_impl_flags(self, fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault('nesterov', False)
            group.setdefault('maximize', False)
            group.setdefault('foreach', None)
            group.setdefault('differentiable', False)
            group.setdefault('fused', False)

    def _init_group(self, group, params, grads, momentum_buffer_list):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            if group['momentum'] != 0:
                momentum_buffer_list.append(self.state[p].get('momentum_buffer'))
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, bufs = [], [], []
            self._init_group(group, params, grads, bufs)
            if params:
                _check_step_flags(group)
            bufs = sgd(params, grads, bufs, weight_decay=group['weight_decay'], momentum=group['momentum'],
                       lr=group['lr'], dampening=group['dampening'], nesterov=group['nesterov'],
                       maximize=group['maximize'])
            if group['momentum'] != 0:
                for p, buf in zip(params, bufs):
                    self.state[p]['momentum_buffer'] = buf
        return loss


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None, fused=None, grad_scale=None,
        found_inf=None, *, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """Functional SGD: updates params in place; returns the momentum buffers (created where the list had None)."""
    _check_inplace(params)
    bufs = _C._sgd_step(list(params), list(d_p_list), list(momentum_buffer_list) if momentum != 0 else [],
                        weight_decay=_hp(weight_decay), momentum=_hp(momentum), lr=_hp(lr),
                        dampening=_hp(dampening), nesterov=bool(nesterov), maximize=bool(maximize))
    if momentum != 0:
        for i, b in enumerate(bufs):
            momentum_buffer_list[i] = b
    return momentum_buffer_list

"""torch.optim.Adagrad (lr_decay, initial_accumulator_value, weight_decay, maximize); the update runs in C."""
from wick import _C
from wick._tensor import Tensor
from .optimizer import (Optimizer, _check_eps, _check_impl_flags, _check_inplace, _check_lr, _check_step_flags,
                        _check_weight_decay, _closure_loss, _full_state, _get_scalar_dtype, _hp, _new_step,
                        _tensor_steps, _use_grad_for_differentiable)
import wick as _wick

__all__ = ['Adagrad', 'adagrad']


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f'Invalid lr_decay value: {lr_decay}')
        _check_weight_decay(weight_decay)
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f'Invalid initial_accumulator_value value: {initial_accumulator_value}')
        _check_eps(eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        _check_impl_flags(self, fused, foreach, differentiable)
        # Adagrad builds its state up front, for every param (torch does too)
        for group in self.param_groups:
            for p in group['params']:
                state = self.state[p]
                state['step'] = _new_step()
                state['sum'] = _full_state(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault('foreach', None)
            group.setdefault('maximize', False)
            group.setdefault('differentiable', False)
            group.setdefault('fused', None)
            _tensor_steps(self, group)
        values = list(self.state.values())
        if values and not isinstance(values[0]['step'], Tensor):
            for s in values:
                s['step'] = _wick.tensor(float(s['step']), dtype=_get_scalar_dtype())

    def share_memory(self):
        """Shared memory is a no-op for wick's CPU tensors in one process."""

    def _init_group(self, group, params, grads, state_sums, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['sum'] = _full_state(p, self.defaults['initial_accumulator_value'])
            state_sums.append(state['sum'])
            state_steps.append(state['step'])
        return False, False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            self._init_group(group, params, grads, state_sums, state_steps)
            if params:
                _check_step_flags(group)
            adagrad(params, grads, state_sums, state_steps, lr=group['lr'], weight_decay=group['weight_decay'],
                    lr_decay=group['lr_decay'], eps=group['eps'], maximize=group['maximize'])
        return loss


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None, found_inf=None,
            has_sparse_grad=False, foreach=None, differentiable=False, has_complex=False, *, lr, weight_decay,
            lr_decay, eps, maximize):
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError('API has changed, `state_steps` argument must contain a list of singleton tensors')
    _check_inplace(params)
    _C._adagrad_step(list(params), list(grads), list(state_sums), list(state_steps), lr=_hp(lr),
                     weight_decay=_hp(weight_decay), lr_decay=_hp(lr_decay), eps=_hp(eps), maximize=bool(maximize))

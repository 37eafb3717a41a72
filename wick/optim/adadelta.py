"""torch.optim.Adadelta (rho, eps, weight_decay, maximize); the update runs in C (_adadelta_step)."""
from wick import _C
from .optimizer import (_setstate_groups, Optimizer, _check_eps, _check_inplace, _check_lr, _check_step_flags,
                        _check_weight_decay, _closure_loss, _hp, _new_step, _use_grad_for_differentiable, _zeros_state)

__all__ = ['Adadelta', 'adadelta']


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f'Invalid rho value: {rho}')
        _check_eps(eps)
        _check_weight_decay(weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('foreach', None), ('maximize', False), ('differentiable', False), ('capturable',
                               False)))

    def _init_group(self, group, params, grads, square_avgs, acc_deltas, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['square_avg'] = _zeros_state(p)
                state['acc_delta'] = _zeros_state(p)
            square_avgs.append(state['square_avg'])
            acc_deltas.append(state['acc_delta'])
            state_steps.append(state['step'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, acc_deltas, state_steps)
            if params:
                _check_step_flags(group, supports_xla=False)
            adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group['lr'], rho=group['rho'],
                     eps=group['eps'], weight_decay=group['weight_decay'], maximize=group['maximize'])
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False, foreach=None,
             differentiable=False, has_complex=False, *, lr, rho, eps, weight_decay, maximize):
    _check_inplace(params)
    _C._adadelta_step(list(params), list(grads), list(square_avgs), list(acc_deltas), list(state_steps), lr=_hp(lr),
                      rho=_hp(rho), eps=_hp(eps), weight_decay=_hp(weight_decay), maximize=bool(maximize))

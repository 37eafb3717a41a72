"""torch.optim.ASGD (averaged SGD: lambd, alpha, t0, weight_decay, maximize); the update runs in C (_asgd_step)."""
import wick as _wick
from wick import _C
from .optimizer import (_setstate_groups, Optimizer, _check_inplace, _check_lr, _check_step_flags,
                        _check_weight_decay, _closure_loss, _get_scalar_dtype, _hp, _new_step, _to_scalar,
                        _use_grad_for_differentiable, _zeros_state)

__all__ = ['ASGD', 'asgd']


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_weight_decay(weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('foreach', None), ('maximize', False), ('differentiable', False),
                                ('capturable', False)), ('step', 'eta', 'mu'))

    def _init_group(self, group, params, grads, mus, axs, etas, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['eta'] = _wick.tensor(_hp(_to_scalar(group['lr'])), dtype=_get_scalar_dtype())
                state['mu'] = _wick.tensor(1.0, dtype=_get_scalar_dtype())
                state['ax'] = _zeros_state(p)
            mus.append(state['mu'])
            axs.append(state['ax'])
            etas.append(state['eta'])
            state_steps.append(state['step'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, mus, axs, etas, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, mus, axs, etas, state_steps)
            if params:
                _check_step_flags(group, 'params, mus, etas, and state_steps')
            asgd(params, grads, axs, mus, etas, state_steps, lambd=group['lambd'], lr=group['lr'], t0=group['t0'],
                 alpha=group['alpha'], weight_decay=group['weight_decay'], maximize=group['maximize'])
        return loss


def asgd(params, grads, axs, mus, etas, state_steps, foreach=None, maximize=False, differentiable=False,
         capturable=False, has_complex=False, *, lambd, lr, t0, alpha, weight_decay):
    _check_inplace(params)
    _C._asgd_step(list(params), list(grads), list(axs), list(mus), list(etas), list(state_steps), lambd=_hp(lambd),
                  lr=_hp(lr), t0=_hp(t0), alpha=_hp(alpha), weight_decay=_hp(weight_decay), maximize=bool(maximize))

"""torch.optim.Adamax (betas, eps, weight_decay, maximize); the update runs in C (_adamax_step)."""
from wick import _C
from .optimizer import (_setstate_groups, Optimizer, _check_betas, _check_eps, _check_inplace, _check_lr,
                        _check_step_flags, _check_weight_decay, _closure_loss, _hp, _new_step,
                        _use_grad_for_differentiable, _zeros_state)

__all__ = ['Adamax', 'adamax']


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_eps(eps)
        _check_betas(betas)
        _check_weight_decay(weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('foreach', None), ('maximize', False), ('differentiable', False), ('capturable',
                               False)))

    def _init_group(self, group, params, grads, exp_avgs, exp_infs, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['exp_avg'] = _zeros_state(p)
                state['exp_inf'] = _zeros_state(p)
            exp_avgs.append(state['exp_avg'])
            exp_infs.append(state['exp_inf'])
            state_steps.append(state['step'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, state_steps = [], [], [], [], []
            beta1, beta2 = group['betas']
            self._init_group(group, params, grads, exp_avgs, exp_infs, state_steps)
            if params:
                _check_step_flags(group)
            adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=group['eps'], beta1=beta1, beta2=beta2,
                   lr=group['lr'], weight_decay=group['weight_decay'], maximize=group['maximize'])
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False, differentiable=False,
           capturable=False, has_complex=False, *, eps, beta1, beta2, lr, weight_decay):
    _check_inplace(params)
    _C._adamax_step(list(params), list(grads), list(exp_avgs), list(exp_infs), list(state_steps), eps=_hp(eps),
                    beta1=_hp(beta1), beta2=_hp(beta2), lr=_hp(lr), weight_decay=_hp(weight_decay),
                    maximize=bool(maximize))

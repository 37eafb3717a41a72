"""torch.optim.RAdam (decoupled_weight_decay, maximize); the update runs in C (_radam_step)."""
from wick import _C
from .optimizer import (_setstate_groups, Optimizer, _check_betas, _check_eps, _check_inplace, _check_lr,
                        _check_step_flags, _check_weight_decay, _closure_loss, _hp, _new_step,
                        _use_grad_for_differentiable, _zeros_state)

__all__ = ['RAdam', 'radam']


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        _check_eps(eps)
        _check_betas(betas)
        _check_weight_decay(weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('foreach', None), ('maximize', False), ('differentiable', False),
                               ('decoupled_weight_decay', False), ('capturable', False)))

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['exp_avg'] = _zeros_state(p)
                state['exp_avg_sq'] = _zeros_state(p)
            exp_avgs.append(state['exp_avg'])
            exp_avg_sqs.append(state['exp_avg_sq'])
            state_steps.append(state['step'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, state_steps)
            if params:
                _check_step_flags(group)
            beta1, beta2 = group['betas']
            radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, beta1=beta1, beta2=beta2, lr=group['lr'],
                  weight_decay=group['weight_decay'], eps=group['eps'], maximize=group['maximize'],
                  decoupled_weight_decay=group['decoupled_weight_decay'])
        return loss


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, decoupled_weight_decay=False, foreach=None,
          capturable=False, differentiable=False, has_complex=False, maximize=False, *, beta1, beta2, lr,
          weight_decay, eps):
    _check_inplace(params)
    _C._radam_step(list(params), list(grads), list(exp_avgs), list(exp_avg_sqs), list(state_steps), beta1=_hp(beta1),
                   beta2=_hp(beta2), lr=_hp(lr), weight_decay=_hp(weight_decay), eps=_hp(eps),
                   decoupled_weight_decay=bool(decoupled_weight_decay), maximize=bool(maximize))

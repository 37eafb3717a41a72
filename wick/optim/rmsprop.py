"""torch.optim.RMSprop (alpha, centered, momentum, weight_decay, maximize); the update runs in C (_rmsprop_step)."""
from wick import _C
from .optimizer import (_setstate_groups, Optimizer, _check_eps, _check_inplace, _check_lr, _check_step_flags,
                        _check_weight_decay, _closure_loss, _hp, _new_step, _use_grad_for_differentiable, _zeros_state)

__all__ = ['RMSprop', 'rmsprop']


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        _check_eps(eps)
        if not 0.0 <= momentum:
            raise ValueError(f'Invalid momentum value: {momentum}')
        _check_weight_decay(weight_decay)
        if not 0.0 <= alpha:
            raise ValueError(f'Invalid alpha value: {alpha}')
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('momentum', 0), ('centered', False), ('foreach', None), ('maximize', False),
                               ('differentiable', False), ('capturable', False)))

    def _init_group(self, group, params, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['square_avg'] = _zeros_state(p)
                if group['momentum'] > 0:
                    state['momentum_buffer'] = _zeros_state(p)
                if group['centered']:
                    state['grad_avg'] = _zeros_state(p)
            square_avgs.append(state['square_avg'])
            state_steps.append(state['step'])
            if group['momentum'] > 0:
                momentum_buffer_list.append(state['momentum_buffer'])
            if group['centered']:
                grad_avgs.append(state['grad_avg'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, square_avgs, bufs, grad_avgs, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, bufs, grad_avgs, state_steps)
            if params:
                _check_step_flags(group)
            rmsprop(params, grads, square_avgs, grad_avgs, bufs, state_steps, lr=group['lr'], alpha=group['alpha'],
                    eps=group['eps'], weight_decay=group['weight_decay'], momentum=group['momentum'],
                    centered=group['centered'], maximize=group['maximize'])
        return loss


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, foreach=None, maximize=False,
            differentiable=False, capturable=False, has_complex=False, *, lr, alpha, eps, weight_decay, momentum,
            centered):
    _check_inplace(params)
    _C._rmsprop_step(list(params), list(grads), list(square_avgs), list(grad_avgs) if centered else [],
                     list(momentum_buffer_list) if momentum > 0 else [], list(state_steps), lr=_hp(lr),
                     alpha=_hp(alpha), eps=_hp(eps), weight_decay=_hp(weight_decay), momentum=_hp(momentum),
                     centered=bool(centered), maximize=bool(maximize))

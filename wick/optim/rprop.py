"""torch.optim.Rprop (etas, step_sizes, maximize); the update runs in C (_rprop_step)."""
from wick import _C
from .optimizer import (_setstate_groups, Optimizer, _check_inplace, _check_lr, _check_step_flags, _closure_loss,
                        _full_state, _hp, _new_step, _to_scalar, _use_grad_for_differentiable, _zeros_state)

__all__ = ['Rprop', 'rprop']


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f'Invalid eta values: {etas[0]}, {etas[1]}')
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('foreach', None), ('maximize', False), ('differentiable', False), ('capturable',
                               False)))

    def _init_group(self, group, params, grads, prevs, step_sizes, state_steps):
        for p in group['params']:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state['step'] = _new_step()
                state['prev'] = _zeros_state(p)
                state['step_size'] = _full_state(p.grad, _hp(_to_scalar(group['lr'])))
            prevs.append(state['prev'])
            step_sizes.append(state['step_size'])
            state_steps.append(state['step'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, prevs, step_sizes, state_steps = [], [], [], [], []
            etaminus, etaplus = group['etas']
            step_size_min, step_size_max = group['step_sizes']
            self._init_group(group, params, grads, prevs, step_sizes, state_steps)
            if params:
                _check_step_flags(group)
            rprop(params, grads, prevs, step_sizes, state_steps, step_size_min=step_size_min,
                  step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus, maximize=group['maximize'])
        return loss


def rprop(params, grads, prevs, step_sizes, state_steps, foreach=None, capturable=False, maximize=False,
          differentiable=False, has_complex=False, *, step_size_min, step_size_max, etaminus, etaplus):
    _check_inplace(params)
    _C._rprop_step(list(params), list(grads), list(prevs), list(step_sizes), list(state_steps),
                   step_size_min=_hp(step_size_min), step_size_max=_hp(step_size_max), etaminus=_hp(etaminus),
                   etaplus=_hp(etaplus), maximize=bool(maximize))

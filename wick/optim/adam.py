"""torch.optim.Adam (amsgrad, weight_decay, decoupled_weight_decay, maximize); the update runs in C (_adam_step)."""
from wick import _C
from wick._tensor import Tensor
from .optimizer import (_setstate_groups, Optimizer, _check_betas, _check_eps, _check_impl_flags, _check_inplace,
                        _check_lr, _check_step_flags, _check_weight_decay, _closure_loss, _hp, _new_step, _to_scalar,
                        _use_grad_for_differentiable, _zeros_state)

__all__ = ['Adam', 'adam']


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError('lr as a Tensor is not supported for capturable=False and foreach=True')
            if lr.numel() != 1:
                raise ValueError('Tensor lr must be 1-element')
        _check_lr(lr)
        _check_eps(eps)
        _check_betas(betas)
        _check_weight_decay(weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError('betas must be either both floats or both Tensors')
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f'betas[{i}] as a Tensor is not supported for capturable=False and foreach=True')
                if betas[i].numel() != 1:
                    raise ValueError(f'Tensor betas[{i}] must be 1-element')
        betas = tuple(map(_to_scalar, betas))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _check_impl_flags(self, fused, foreach, differentiable)

    def __setstate__(self, state):
        super().__setstate__(state)
        _setstate_groups(self, (('amsgrad', False), ('maximize', False), ('foreach', None), ('capturable', False),
                               ('differentiable', False), ('decoupled_weight_decay', False), ('fused', None)))

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps):
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
                if group['amsgrad']:
                    state['max_exp_avg_sq'] = _zeros_state(p)
            exp_avgs.append(state['exp_avg'])
            exp_avg_sqs.append(state['exp_avg_sq'])
            if group['amsgrad']:
                max_exp_avg_sqs.append(state['max_exp_avg_sq'])
            if group['foreach'] and isinstance(group['lr'], Tensor) and not group['capturable']:
                raise RuntimeError('lr as a Tensor is not supported for capturable=False and foreach=True')
            state_steps.append(state['step'])
        return False

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Performs one optimization step (closure: re-evaluates the model and returns the loss)."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps)
            if params:
                _check_step_flags(group)
            beta1, beta2 = group['betas']
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=group['amsgrad'],
                 beta1=beta1, beta2=beta2, lr=group['lr'], weight_decay=group['weight_decay'], eps=group['eps'],
                 maximize=group['maximize'], decoupled_weight_decay=group['decoupled_weight_decay'])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None, capturable=False,
         differentiable=False, fused=None, grad_scale=None, found_inf=None, has_complex=False,
         decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """Functional Adam: one C call updates params, exp_avgs, exp_avg_sqs (and max_exp_avg_sqs) and the steps."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError('API has changed, `state_steps` argument must contain a list of singleton tensors')
    _check_inplace(params)
    _C._adam_step(list(params), list(grads), list(exp_avgs), list(exp_avg_sqs),
                  list(max_exp_avg_sqs) if amsgrad else [], list(state_steps), amsgrad=bool(amsgrad),
                  beta1=_hp(beta1), beta2=_hp(beta2), lr=_hp(lr), weight_decay=_hp(weight_decay), eps=_hp(eps),
                  maximize=bool(maximize), decoupled_weight_decay=bool(decoupled_weight_decay))

"""torch.optim.swa_utils: stochastic weight averaging and EMA of a model's parameters (AveragedModel), the SWALR
schedule, and update_bn (recomputing BatchNorm statistics with the averaged weights)."""
import itertools
import math
import warnings
from copy import deepcopy

import wick as _wick
from wick.nn import Module
from .lr_scheduler import LRScheduler, _format_param

__all__ = ['AveragedModel', 'update_bn', 'SWALR', 'get_ema_multi_avg_fn', 'get_swa_multi_avg_fn', 'get_ema_avg_fn',
           'get_swa_avg_fn']


def _is_float(t):
    return t.is_floating_point()


def get_ema_multi_avg_fn(decay=0.999):
    """An EMA update over lists of tensors: ema.lerp_(current, 1 - decay) for floating tensors."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f'Invalid decay value {decay} provided. Please provide a value in [0,1] range.')

    def ema_update(ema_param_list, current_param_list, _):
        with _wick.no_grad():
            if _is_float(ema_param_list[0]):
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.lerp_(p_model, 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """The running mean over lists of tensors: avg.lerp_(current, 1 / (n + 1))."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with _wick.no_grad():
            if _is_float(averaged_param_list[0]):
                w = float(1 / (num_averaged + 1))
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    p_avg.lerp_(p_model, w)
            else:
                for p_avg, p_model in zip(averaged_param_list, current_param_list):
                    diff = p_model - p_avg
                    if isinstance(num_averaged, _wick.Tensor):
                        p_avg.addcdiv_(diff, num_averaged + 1)
                    else:
                        p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """An EMA update of one tensor: decay * ema + (1 - decay) * current."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f'Invalid decay value {decay} provided. Please provide a value in [0,1] range.')

    def ema_update(ema_param, current_param, num_averaged):
        with _wick.no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """The running mean of one tensor: avg + (current - avg) / (n + 1)."""
    def swa_update(averaged_param, current_param, num_averaged):
        with _wick.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _by_dtype(averaged, current):
    """Pairs of (averaged, current) lists grouped by dtype, groups in first-seen order (torch groups by device and
    dtype; wick has one device)."""
    groups = {}
    for a, c in zip(averaged, current):
        ga, gc = groups.setdefault(a.dtype, ([], []))
        ga.append(a)
        gc.append(c)
    return list(groups.values())


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers, with use_buffers=True) hold an average of the model's
    parameters over the update_parameters() calls: the running mean by default, or avg_fn / multi_avg_fn."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError('Only one of avg_fn and multi_avg_fn should be provided')
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer('n_averaged', _wick.tensor(0, dtype=_wick.long))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        averaged, current = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param):
            p_model_ = p_model.detach()
            averaged.append(p_averaged.detach())
            current.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for self_params, model_params in _by_dtype(averaged, current):
                    if self.multi_avg_fn:
                        self.multi_avg_fn(self_params, model_params, self.n_averaged)
                    else:  # the CPU path of torch: the running mean, one tensor at a time
                        avg_fn = get_swa_avg_fn()
                        for p_averaged, p_model in zip(self_params, model_params):
                            p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(averaged, current):
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))
        if not self.use_buffers:
            # the averaged model keeps the model's buffers (e.g. BatchNorm statistics) as they are
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                b_swa.detach().copy_(b_model.detach())
        self.n_averaged += 1


def update_bn(loader, model, device=None):
    """One pass over loader in train mode to recompute every BatchNorm's running statistics (a cumulative average:
    momentum None), then restores the momenta and the training mode."""
    with _wick.no_grad():
        from wick.nn.modules.batchnorm import _BatchNorm
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its swa_lr over anneal_epochs (cos or linear), then keeps it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy='cos', last_epoch=-1):
        swa_lrs = _format_param('swa_lr', optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group['swa_lr'] = lr
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f'anneal_epochs must be equal or greater than 0, got {anneal_epochs}')
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn('To get the last learning rate computed by the scheduler, please use `get_last_lr()`.',
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group['lr'], group['swa_lr'], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group['swa_lr'] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == 'cos' else self._linear_anneal

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ('optimizer', 'anneal_func')}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

"""torch.optim.lr_scheduler: learning-rate schedules over an optimizer's param groups.

Pure Python float arithmetic, written with torch's formulas and operation order so the values agree to the last
bit over any number of epochs; state_dict() is the scheduler's attribute dict in torch's attribute order.
"""
import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from functools import partial, wraps
from weakref import ref

from wick._tensor import Tensor
from .optimizer import Optimizer, _to_scalar

__all__ = ['LambdaLR', 'MultiplicativeLR', 'StepLR', 'MultiStepLR', 'ConstantLR', 'LinearLR', 'ExponentialLR',
           'SequentialLR', 'CosineAnnealingLR', 'ChainedScheduler', 'ReduceLROnPlateau', 'CyclicLR',
           'CosineAnnealingWarmRestarts', 'OneCycleLR', 'PolynomialLR', 'LRScheduler']

inf = math.inf

EPOCH_DEPRECATION_WARNING = (
    'The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use '
    '`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed '
    'form is used instead of the new chainable form, where available. Please open an issue if you are unable to '
    'replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose.')

_STEP_ORDER_WARNING = (
    'Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call '
    'them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in '
    'PyTorch skipping the first value of the learning rate schedule. See more details at '
    'https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate')

_STEP_OVERRIDDEN_WARNING = (
    'Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. Please, make '
    'sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at '
    'https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate')


def _copy(v):
    return v.clone() if isinstance(v, Tensor) else v


def _format_param(name, optimizer, param):
    """One value per param group: a list/tuple is checked against the group count, a scalar is repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f'{name} must have the same length as optimizer.param_groups. {name} has {len(param)} '
                             f'values, param_groups has {len(optimizer.param_groups)}.')
    else:
        param = [param] * len(optimizer.param_groups)
    return [_copy(p) for p in param]


def _param_groups_val_list(optimizer, key):
    return [_copy(group[key]) for group in optimizer.param_groups]


def _update_param_group_val(param_group, key, val):
    """Sets a group's lr: a tensor lr is filled in place, a number replaced."""
    if isinstance(param_group[key], Tensor):
        param_group[key].fill_(_to_scalar(val))
    else:
        param_group[key] = val


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f'{type(optimizer).__name__} is not an Optimizer')


class _flag:
    """Sets a boolean attribute of the scheduler for the duration of a with-block (it lands in __dict__, and so
    in state_dict(), exactly where torch's does)."""

    def __init__(self, sched, name):
        self.sched, self.name = sched, name

    def __enter__(self):
        setattr(self.sched, self.name, True)
        return self

    def __exit__(self, *exc):
        setattr(self.sched, self.name, False)


def _enable_get_lr_call(sched):
    return _flag(sched, '_get_lr_called_within_step')


def _initial_mode(sched):
    return _flag(sched, '_is_initial')


def _warn_get_lr_called_within_step(sched):
    if not sched._get_lr_called_within_step:
        warnings.warn('To get the last learning rate computed by the scheduler, please use `get_last_lr()`.',
                      UserWarning, stacklevel=3)


def _track_optimizer_step(sched, opt):
    """Wraps opt.step (per instance) so the scheduler can tell whether optimizer.step() ran before its first step."""
    if hasattr(opt.step, '_wrapped_by_lr_sched'):
        return
    opt_ref = ref(sched.optimizer)
    func = opt.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        o = opt_ref()
        o._opt_called = True
        return func.__get__(o, o.__class__)(*args, **kwargs)
    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper


def _without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


def _lambdas_state(sched):
    sd = _without(sched.__dict__, 'optimizer', 'lr_lambdas')
    sd['lr_lambdas'] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in sched.lr_lambdas]
    return sd


def _load_lambdas_state(sched, state_dict):
    lr_lambdas = state_dict.pop('lr_lambdas')
    sched.__dict__.update(state_dict)
    state_dict['lr_lambdas'] = lr_lambdas
    for fn, saved in zip(sched.lr_lambdas, lr_lambdas):
        if saved is not None:
            fn.__dict__.update(saved)


def _lr_lambdas(optimizer, lr_lambda):
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f'Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}')
    return list(lr_lambda)


class LRScheduler:
    """Base class: subclasses give get_lr() (the chainable form, from the groups' current lrs) and optionally
    _get_closed_form_lr() (used when step() is given an explicit epoch)."""
    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault('initial_lr', _copy(group['lr']))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if 'initial_lr' not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with "
                        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
                        "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 "
                        "for a fresh training run (not recommended)")
        self.base_lrs = _param_groups_val_list(optimizer, 'initial_lr')
        self.last_epoch = last_epoch
        _track_optimizer_step(self, self.optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        with _initial_mode(self):
            self.step()

    def state_dict(self):
        return _without(self.__dict__, 'optimizer')

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, '_wrapped_by_lr_sched'):
                warnings.warn(_STEP_OVERRIDDEN_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, '_opt_called', False):
                warnings.warn(_STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        with _enable_get_lr_call(self):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = self._get_closed_form_lr() if hasattr(self, '_get_closed_form_lr') else self.get_lr()
        groups = self.optimizer.param_groups
        if len(values) != len(groups):
            raise ValueError(f'zip() argument 2 is {"shorter" if len(values) < len(groups) else "longer"} than '
                             'argument 1')
        for group, lr in zip(groups, values):
            _update_param_group_val(group, 'lr', lr)
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')


class _LRScheduler(LRScheduler):
    pass


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        return _lambdas_state(self)

    def load_state_dict(self, state_dict):
        _load_lambdas_state(self, state_dict)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    """lr = lr * lr_lambda(epoch) at every step."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lr_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f'lr_lambda should be a function, but got {type(fn).__name__}')
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        return _lambdas_state(self)

    def load_state_dict(self, state_dict):
        _load_lambdas_state(self, state_dict)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * lmbda(self.last_epoch)
                for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """lr *= gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr *= gamma at each milestone (a milestone listed twice applies gamma twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr * factor until total_iters, then lr."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError('Constant multiplicative factor expected to be between 0 and 1.')
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group['lr'] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """lr goes linearly from lr * start_factor to lr * end_factor over total_iters steps."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError('Starting multiplicative factor expected to be greater than 0 and less or equal to 1.')
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError('Ending multiplicative factor expected to be between 0 and 1.')
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group['lr'] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _param_groups_val_list(self.optimizer, 'lr')
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [group['lr'] * ratio for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr *= gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, 'lr')
        return [group['lr'] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


def _check_children(owner, optimizer, schedulers):
    name = owner.__class__.__name__
    for i, s in enumerate(schedulers):
        if not hasattr(s, 'optimizer'):
            raise TypeError(f'{name} at index {i} should have `optimizer` as its attribute.')
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f'{name} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs '
                             f'to be specified when calling `step`, but got one at index {i} in the given schedulers '
                             'sequence.')
        if optimizer != s.optimizer:
            raise ValueError(f'{name} expects all schedulers to belong to the same optimizer, but got scheduler '
                             f'{s.__class__.__name__} at index {i} has {s.optimizer}, which is different from '
                             f'{optimizer.__class__.__name__}.')


def _children_state(sched):
    sd = _without(sched.__dict__, 'optimizer', '_schedulers')
    sd['_schedulers'] = [s.state_dict() for s in sched._schedulers]
    return sd


def _load_children_state(sched, state_dict):
    children = state_dict.pop('_schedulers')
    sched.__dict__.update(state_dict)
    state_dict['_schedulers'] = children
    for s, sd in zip(sched._schedulers, children):
        s.load_state_dict(sd)


class SequentialLR(LRScheduler):
    """Runs schedulers[i] between milestones[i-1] and milestones[i]."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f'{self.__class__.__name__} expects at least one scheduler, but got no scheduler.')
        _check_children(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError('Sequential Schedulers expects number of schedulers provided to be one more than the '
                             f'number of milestone points, but got number of schedulers {len(schedulers)} and the '
                             f'number of milestones to be equal to {len(milestones)}')
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # undo what the schedulers did when they were built, then start the first one again
        for group in self.optimizer.param_groups:
            _update_param_group_val(group, 'lr', group['initial_lr'])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        s = self if sched is None else sched
        if hasattr(s, '_schedulers'):
            for child in s._schedulers:
                self.recursive_undo(child)
        elif hasattr(s, 'last_epoch'):
            s.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        return _children_state(self)

    def load_state_dict(self, state_dict):
        _load_children_state(self, state_dict)


class PolynomialLR(LRScheduler):
    """lr decays as (1 - epoch / total_iters) ** power."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _param_groups_val_list(self.optimizer, 'lr')
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group['lr'] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the initial lr to eta_min over T_max epochs (chainable form, as torch)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, 'lr')
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group['lr'] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group['lr'] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class ChainedScheduler(LRScheduler):
    """Steps every scheduler in turn (their effects multiply)."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f'{self.__class__.__name__} expects at least one scheduler to be chained, but got no '
                             'scheduler.')
        optimizer = optimizer or schedulers[0].optimizer
        _check_children(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, 'lr')

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _param_groups_val_list(self._schedulers[-1].optimizer, 'lr')

    def state_dict(self):
        return _children_state(self)

    def load_state_dict(self, state_dict):
        _load_children_state(self, state_dict)


class ReduceLROnPlateau(LRScheduler):
    """Multiplies the lr by factor when a metric has stopped improving for `patience` epochs."""

    def __init__(self, optimizer, mode='min', factor=0.1, patience=10, threshold=1e-4, threshold_mode='rel',
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError('Factor should be < 1.0.')
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f'expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}')
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # ignore bad epochs in cooldown
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f'The number of param groups in the `optimizer` ({len(groups)}) differs from when '
                    f'`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param group '
                    'being added to the optimizer. Please modify the `min_lrs` field to match the length of the '
                    '`optimizer` param groups.')
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old_lr = float(group['lr'])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                _update_param_group_val(group, 'lr', new_lr)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == 'min' and self.threshold_mode == 'rel':
            return a < best * (1.0 - self.threshold)
        if self.mode == 'min' and self.threshold_mode == 'abs':
            return a < best - self.threshold
        if self.mode == 'max' and self.threshold_mode == 'rel':
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {'min', 'max'}:
            raise ValueError('mode ' + mode + ' is unknown!')
        if threshold_mode not in {'rel', 'abs'}:
            raise ValueError('threshold mode ' + threshold_mode + ' is unknown!')
        self.mode_worse = inf if mode == 'min' else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


def _check_momentum_support(sched, optimizer):
    """cycle_momentum needs an optimizer with 'momentum' or 'betas'."""
    if 'momentum' not in optimizer.defaults and 'betas' not in optimizer.defaults:
        raise ValueError('optimizer must support momentum or beta1 with `cycle_momentum` option enabled')
    sched.use_beta1 = 'betas' in optimizer.defaults


def _set_momentum(sched, group, momentum):
    if sched.use_beta1:
        group['betas'] = (momentum, *group['betas'][1:])
    else:
        group['momentum'] = momentum


def _init_group_momentums(sched, optimizer, max_momentums, base_momentums):
    for m_momentum, b_momentum, group in zip(max_momentums, base_momentums, optimizer.param_groups):
        _set_momentum(sched, group, m_momentum)
        group['max_momentum'] = m_momentum
        group['base_momentum'] = b_momentum


class CyclicLR(LRScheduler):
    """Cycles the lr (and momentum) between two bounds: triangular, triangular2, exp_range or a scale_fn."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode='triangular',
                 gamma=1.0, scale_fn=None, scale_mode='cycle', cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param('base_lr', optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _update_param_group_val(group, 'lr', lr)
        self.max_lrs = _format_param('max_lr', optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ['triangular', 'triangular2', 'exp_range'] and scale_fn is None:
            raise ValueError('mode is invalid and scale_fn is None')
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _check_momentum_support(self, optimizer)
            self.base_momentums = _format_param('base_momentum', optimizer, base_momentum)
            self.max_momentums = _format_param('max_momentum', optimizer, max_momentum)
            if last_epoch == -1:
                _init_group_momentums(self, optimizer, self.max_momentums, self.base_momentums)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == 'triangular':
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = 'cycle'
        elif self.mode == 'triangular2':
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = 'cycle'
        elif self.mode == 'exp_range':
            self._scale_fn_ref = partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = 'iterations'

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == 'cycle' else self.last_epoch
        lrs = []
        for base_lr, max_lr in zip(self.base_lrs, self.max_lrs):
            base_height = (max_lr - base_lr) * scale_factor
            lrs.append(base_lr + base_height * self.scale_fn(at))
        if self.cycle_momentum:
            momentums = []
            for base_m, max_m in zip(self.base_momentums, self.max_momentums):
                base_height = (max_m - base_m) * scale_factor
                momentums.append(max_m - base_height * self.scale_fn(at))
            for group, momentum in zip(self.optimizer.param_groups, momentums):
                _set_momentum(self, group, momentum)
        return lrs

    def state_dict(self):
        state = super().state_dict()
        state.pop('_scale_fn_ref', None)
        fn = state.pop('_scale_fn_custom')
        state['_scale_fn_custom'] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state['_scale_fn_custom'] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        fn = state_dict.pop('_scale_fn_custom')
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, T_i growing by T_mult after each restart."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f'Expected positive integer T_0, but got {T_0}')
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f'Expected integer T_mult >= 1, but got {T_mult}')
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f'Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}')
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f'Expected non-negative epoch, but got {epoch}')
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _enable_get_lr_call(self):
            for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
                _update_param_group_val(group, 'lr', lr)
        self._last_lr = _param_groups_val_list(self.optimizer, 'lr')


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm up to max_lr then anneal far below the initial lr (two or three phases)."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy='cos', cycle_momentum=True, base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f'Expected positive integer total_steps, but got {total_steps}')
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f'Expected positive integer epochs, but got {epochs}')
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f'Expected positive integer steps_per_epoch, but got {steps_per_epoch}')
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError('You must define either total_steps OR (epochs AND steps_per_epoch)')

        def phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
            return {'end_step': end_step, 'start_lr': start_lr, 'end_lr': end_lr, 'start_momentum': start_momentum,
                    'end_momentum': end_momentum}
        if three_phase:
            self._schedule_phases = [
                phase(float(pct_start * self.total_steps) - 1, 'initial_lr', 'max_lr', 'max_momentum', 'base_momentum'),
                phase(float(2 * pct_start * self.total_steps) - 2, 'max_lr', 'initial_lr', 'base_momentum',
                      'max_momentum'),
                phase(self.total_steps - 1, 'initial_lr', 'min_lr', 'max_momentum', 'max_momentum')]
        else:
            self._schedule_phases = [
                phase(float(pct_start * self.total_steps) - 1, 'initial_lr', 'max_lr', 'max_momentum', 'base_momentum'),
                phase(self.total_steps - 1, 'max_lr', 'min_lr', 'base_momentum', 'max_momentum')]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f'Expected float between 0 and 1 pct_start, but got {pct_start}')
        if anneal_strategy not in ['cos', 'linear']:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param('max_lr', self.optimizer, max_lr)
        if last_epoch == -1:
            for idx, group in enumerate(self.optimizer.param_groups):
                group['initial_lr'] = max_lrs[idx] / div_factor
                group['max_lr'] = max_lrs[idx]
                group['min_lr'] = group['initial_lr'] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            _check_momentum_support(self, optimizer)
            max_momentums = _format_param('max_momentum', optimizer, max_momentum)
            base_momentums = _format_param('base_momentum', optimizer, base_momentum)
            if last_epoch == -1:
                _init_group_momentums(self, optimizer, max_momentums, base_momentums)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, *args, **kwargs):
        if hasattr(self, '_anneal_func_type'):
            if self._anneal_func_type == 'cos':
                return self._annealing_cos(*args, **kwargs)
            if self._anneal_func_type == 'linear':
                return self._annealing_linear(*args, **kwargs)
            raise ValueError(f'Unknown _anneal_func_type: {self._anneal_func_type}')
        return self.anneal_func(*args, **kwargs)  # a scheduler pickled by an old torch

    @staticmethod
    def _annealing_cos(start, end, pct):
        cos_out = math.cos(math.pi * pct) + 1
        return end + (start - end) / 2.0 * cos_out

    @staticmethod
    def _annealing_linear(start, end, pct):
        return (end - start) * pct + start

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f'Tried to step {step_num} times. The specified number of total steps is '
                             f'{self.total_steps}')
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase['end_step']
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal_func(group[phase['start_lr']], group[phase['end_lr']], pct)
                    if self.cycle_momentum:
                        computed_momentum = self._anneal_func(group[phase['start_momentum']],
                                                              group[phase['end_momentum']], pct)
                    break
                start_step = phase['end_step']
            lrs.append(computed_lr)
            if self.cycle_momentum:
                _set_momentum(self, group, computed_momentum)
        return lrs

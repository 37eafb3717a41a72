"""Lazy modules: LazyModuleMixin and the layers whose input size is inferred from the first forward
(LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d, LazyInstanceNorm1d/2d/3d).

Until the first call their parameters are UninitializedParameter placeholders; a forward pre-hook materializes
them from the input's shape, runs the layer's reset_parameters (so the random draws are torch's), and turns the
module into its eager class (cls_to_become). A state_dict holding real tensors also materializes them on load."""
import itertools

import wick as torch
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear

__all__ = ['LazyModuleMixin', 'LazyLinear', 'LazyConv1d', 'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d',
           'LazyConvTranspose2d', 'LazyConvTranspose3d', 'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d',
           'LazyInstanceNorm1d', 'LazyInstanceNorm2d', 'LazyInstanceNorm3d']


class LazyModuleMixin:
    """A mixin for modules that infer their parameters' shapes from the first input (see torch's docs)."""
    __module__ = 'torch.nn.modules.lazy'
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with torch.no_grad():
                        param.materialize(input_param.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(p) for p in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f'module {self._get_name()} has not been fully initialized')
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, '_initialize_hook')
        delattr(module, '_load_hook')
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. "
                           "Run a dummy forward pass to correctly initialize the modules")


class LazyLinear(LazyModuleMixin, Linear):
    __module__ = 'torch.nn.modules.linear'
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with torch.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    __module__ = 'torch.nn.modules.conv'

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if not isinstance(self.weight, UninitializedParameter):
                raise AssertionError("self.weight must be an UninitializedParameter")
            if self.transposed:
                self.weight.materialize((self.in_channels, self.out_channels // self.groups, *self.kernel_size))
            else:
                self.weight.materialize((self.out_channels, self.in_channels // self.groups, *self.kernel_size))
            if self.bias is not None:
                if not isinstance(self.bias, UninitializedParameter):
                    raise AssertionError("self.bias must be an UninitializedParameter")
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        num_dims_no_batch = self._get_num_spatial_dims() + 1  # + the channels dim
        num_dims_batch = num_dims_no_batch + 1
        if input.dim() not in (num_dims_no_batch, num_dims_batch):
            raise RuntimeError(f"Expected {num_dims_no_batch}D (unbatched) or {num_dims_batch}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == num_dims_batch else input.shape[0]

    def _get_num_spatial_dims(self):
        raise NotImplementedError


def _lazy_conv(name, base, n):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode='zeros', device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super(cls, self).__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                                  **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    cls = type(name, (_LazyConvXdMixin, base), {'__init__': __init__, 'cls_to_become': base,
                                                '_get_num_spatial_dims': lambda self: n,
                                                '__module__': 'torch.nn.modules.conv'})
    return cls


def _lazy_conv_t(name, base, n):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode='zeros', device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super(cls, self).__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                                  padding_mode, **factory_kwargs)
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    cls = type(name, (_LazyConvXdMixin, base), {'__init__': __init__, 'cls_to_become': base,
                                                '_get_num_spatial_dims': lambda self: n,
                                                '__module__': 'torch.nn.modules.conv'})
    return cls


LazyConv1d = _lazy_conv('LazyConv1d', Conv1d, 1)
LazyConv2d = _lazy_conv('LazyConv2d', Conv2d, 2)
LazyConv3d = _lazy_conv('LazyConv3d', Conv3d, 3)
LazyConvTranspose1d = _lazy_conv_t('LazyConvTranspose1d', ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_t('LazyConvTranspose2d', ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_t('LazyConvTranspose3d', ConvTranspose3d, 3)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    __module__ = 'torch.nn.modules.batchnorm'

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = torch.tensor(0, dtype=torch.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                if not isinstance(self.weight, UninitializedParameter):
                    raise AssertionError("self.weight must be an UninitializedParameter")
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    if not isinstance(self.bias, UninitializedParameter):
                        raise AssertionError("self.bias must be an UninitializedParameter")
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name, norm_base, eager, dims, module):
    def _check_input_dim(self, input):
        if input.dim() not in dims:
            got = f"{input.dim()}D input"
            want = " or ".join(f"{d}D" for d in dims)
            raise ValueError(f"expected {want} input (got {got})")
    attrs = {'cls_to_become': eager, '_check_input_dim': _check_input_dim, '__module__': module}
    if norm_base is _InstanceNorm:
        attrs['_get_no_batch_dim'] = lambda self: dims[0]
    return type(name, (_LazyNormBase, norm_base), attrs)


LazyBatchNorm1d = _lazy_norm('LazyBatchNorm1d', _BatchNorm, BatchNorm1d, (2, 3), 'torch.nn.modules.batchnorm')
LazyBatchNorm2d = _lazy_norm('LazyBatchNorm2d', _BatchNorm, BatchNorm2d, (4,), 'torch.nn.modules.batchnorm')
LazyBatchNorm3d = _lazy_norm('LazyBatchNorm3d', _BatchNorm, BatchNorm3d, (5,), 'torch.nn.modules.batchnorm')
LazyInstanceNorm1d = _lazy_norm('LazyInstanceNorm1d', _InstanceNorm, InstanceNorm1d, (2, 3),
                                'torch.nn.modules.instancenorm')
LazyInstanceNorm2d = _lazy_norm('LazyInstanceNorm2d', _InstanceNorm, InstanceNorm2d, (3, 4),
                                'torch.nn.modules.instancenorm')
LazyInstanceNorm3d = _lazy_norm('LazyInstanceNorm3d', _InstanceNorm, InstanceNorm3d, (4, 5),
                                'torch.nn.modules.instancenorm')

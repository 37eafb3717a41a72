"""torch.nn.parallel: DataParallel without GPUs runs the module itself (as torch does); DistributedDataParallel
needs a process group, which wick does not have."""
from ..modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    def __init__(self, module, *args, **kwargs):
        raise ValueError('Default process group has not been initialized, please make sure to call '
                         'init_process_group.')


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    return module(*inputs, **(module_kwargs or {})) if isinstance(inputs, tuple) else module(inputs)

"""torch.distributed: importable, as on a CPU build of torch; wick runs in one process, so starting a process
group raises a clear error."""


def is_available():
    return True


def is_initialized():
    return False


def get_rank(group=None):
    raise ValueError('Default process group has not been initialized, please make sure to call init_process_group.')


def get_world_size(group=None):
    raise ValueError('Default process group has not been initialized, please make sure to call init_process_group.')


def init_process_group(*args, **kwargs):
    raise NotImplementedError('wick: distributed training (torch.distributed.init_process_group) is not supported')


def destroy_process_group(group=None):
    pass


def barrier(*args, **kwargs):
    raise NotImplementedError('wick: torch.distributed is not supported')

"""torch.random: the default CPU generator and its module-level helpers (Python in torch too).

wick has only the CPU device, so seeding "all devices" is seeding the default generator. The semantics (seed
range and wrap-around, state bytes and their checks) live in C: Generator.manual_seed/get_state/set_state."""
import contextlib

from ._C import default_generator

__all__ = ['default_generator', 'fork_rng', 'get_rng_state', 'initial_seed', 'manual_seed', 'seed',
           'set_rng_state']


def manual_seed(seed):
    r"""Sets the seed for generating random numbers on all devices. Returns a `torch.Generator` object.

    Values in [-0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff] are accepted; negative seeds are taken modulo 2**64.
    """
    seed = int(seed)
    return default_generator.manual_seed(seed)


def seed():
    r"""Seeds the default generator with a non-deterministic number and returns it (64 bits)."""
    return default_generator.seed()


def initial_seed():
    r"""The initial seed of the default generator, as a Python int."""
    return default_generator.initial_seed()


def get_rng_state():
    r"""The default generator's state as a torch.ByteTensor of 5056 bytes (torch's layout)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    r"""Sets the default generator's state from a torch.ByteTensor taken from get_rng_state()."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    r"""Forks the RNG: on exit the CPU generator is back in the state it had on entry. wick has no accelerator,
    so only the CPU state is forked (as in a CPU-only torch)."""
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None and len(list(devices)) > 0:
        raise RuntimeError("wick has only the CPU device: fork_rng(devices=...) cannot fork accelerator generators")
    cpu_rng_state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(cpu_rng_state)

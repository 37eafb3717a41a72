"""torch.nn: modules, parameters, functional, init."""
from .parameter import Parameter, Buffer, UninitializedParameter  # noqa: F401
from . import functional, init  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
from . import utils  # noqa: F401,E402

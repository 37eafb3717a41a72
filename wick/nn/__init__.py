"""torch.nn: modules, parameters, functional, init."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from . import functional, init  # noqa: F401
modules.transformer._bind_relu_default()  # noqa: E402 -- F.relu as the Transformer layers' default activation
from .modules import *  # noqa: F401,F403
from .modules import Module, Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict  # noqa: F401
# `from .modules import *` also binds the submodule names of modules/ (modules.utils among them): torch.nn.utils is
# the package beside it
import importlib as _importlib  # noqa: E402
utils = _importlib.import_module(__name__ + '.utils')

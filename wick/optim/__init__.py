"""torch.optim: optimizers (the update arithmetic runs in C, one call per param group) and lr schedulers."""
from .optimizer import Optimizer  # noqa: F401
from ._adafactor import Adafactor  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from ._muon import Muon  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .sgd import SGD  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from . import lr_scheduler  # noqa: F401

# torch.optim keeps only the classes: its per-optimizer modules are reachable by import, not as attributes
del adadelta, adagrad, adam, adamax, adamw, asgd, lbfgs, nadam, optimizer, radam, rmsprop, rprop, sgd  # noqa: F821
del sparse_adam  # noqa: F821

__all__ = ['Adafactor', 'Adadelta', 'Adagrad', 'Adam', 'Adamax', 'AdamW', 'ASGD', 'LBFGS', 'lr_scheduler', 'Muon', 'NAdam', 'Optimizer',
           'RAdam', 'RMSprop', 'Rprop', 'SGD', 'SparseAdam']

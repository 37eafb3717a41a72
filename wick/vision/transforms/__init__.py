"""torchvision.transforms (v1): the transforms, and transforms.functional."""
from .transforms import *  # noqa: F401,F403
from .transforms import __all__  # noqa: F401
from . import functional  # noqa: F401
from .functional import InterpolationMode  # noqa: F401

"""wick.vision: torchvision's transforms, datasets, ops, utils and models over wick (`import torchvision`
after wick.install_as_torch())."""
__version__ = '0.29.1'

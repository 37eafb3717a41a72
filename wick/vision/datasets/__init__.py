"""torchvision.datasets: MNIST, FashionMNIST, KMNIST, CIFAR10, CIFAR100 from local files in torchvision's
on-disk formats, ImageFolder / DatasetFolder (PIL), FakeData. Nothing is downloaded: download=True with the
files absent raises a RuntimeError saying wick cannot reach the network and where the files go."""
from .vision import VisionDataset  # noqa: F401
from .mnist import MNIST, FashionMNIST, KMNIST  # noqa: F401
from .cifar import CIFAR10, CIFAR100  # noqa: F401
from .folder import DatasetFolder, ImageFolder, IMG_EXTENSIONS, default_loader, pil_loader  # noqa: F401
from .fakedata import FakeData  # noqa: F401

__all__ = ["VisionDataset", "MNIST", "FashionMNIST", "KMNIST", "CIFAR10", "CIFAR100", "DatasetFolder", "ImageFolder",
           "FakeData"]

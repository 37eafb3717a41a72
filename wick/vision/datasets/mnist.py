"""MNIST, FashionMNIST, KMNIST: the idx files (torchvision's <root>/<Class>/raw/, uncompressed)."""
import os

import numpy as np

import wick as torch
from .vision import VisionDataset, no_network

# idx type codes -> big-endian numpy dtypes
_IDX_TYPES = {8: np.uint8, 9: np.int8, 11: np.dtype('>i2'), 12: np.dtype('>i4'), 13: np.dtype('>f4'),
              14: np.dtype('>f8')}


def read_sn3_pascalvincent_tensor(path, strict=True):
    """An idx file: a big-endian magic (type code * 256 + number of dims), the dims, then the data."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 4:
        raise ValueError(f"{path}: not an idx file (too short)")
    magic = int.from_bytes(data[0:4], "big")
    nd, ty = magic % 256, magic // 256
    if not 1 <= nd <= 3 or ty not in _IDX_TYPES:
        raise ValueError(f"{path}: not an idx file (magic {magic:#x})")
    if len(data) < 4 * (nd + 1):
        raise ValueError(f"{path}: truncated idx header")
    dims = [int.from_bytes(data[4 * (i + 1):4 * (i + 2)], "big") for i in range(nd)]
    dtype = np.dtype(_IDX_TYPES[ty])
    count = int(np.prod(dims, dtype=object))
    body = data[4 * (nd + 1):]
    if len(body) < count * dtype.itemsize or (strict and len(body) != count * dtype.itemsize):
        raise ValueError(f"{path}: {len(body)} bytes of data for dims {dims}")
    arr = np.frombuffer(body, dtype=dtype, count=count).astype(dtype.newbyteorder('='))
    return torch.from_numpy(arr.reshape(dims).copy())


def read_label_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != torch.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != 1:
        raise ValueError(f"x should have 1 dimension instead of {x.ndimension()}")
    return x.long()


def read_image_file(path):
    x = read_sn3_pascalvincent_tensor(path, strict=False)
    if x.dtype != torch.uint8:
        raise TypeError(f"x should be of dtype torch.uint8 instead of {x.dtype}")
    if x.ndimension() != 3:
        raise ValueError(f"x should have 3 dimension instead of {x.ndimension()}")
    return x


class MNIST(VisionDataset):
    """Images [N, 28, 28] uint8 and labels; each item a PIL image (mode 'L') and an int, through the transforms."""
    files = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
             "t10k-labels-idx1-ubyte"]
    training_file = "training.pt"
    test_file = "test.pt"
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if self._check_legacy_exist():
            self.data, self.targets = self._load_legacy_data()
            return
        if download:
            self.download()
        if not self._check_exists():
            raise RuntimeError("Dataset not found. You can use download=True to download it")
        prefix = "train" if self.train else "t10k"
        self.data = read_image_file(os.path.join(self.raw_folder, f"{prefix}-images-idx3-ubyte"))
        self.targets = read_label_file(os.path.join(self.raw_folder, f"{prefix}-labels-idx1-ubyte"))

    def _check_legacy_exist(self):
        if not os.path.exists(self.processed_folder):
            return False
        return all(os.path.isfile(os.path.join(self.processed_folder, f))
                   for f in (self.training_file, self.test_file))

    def _load_legacy_data(self):
        return torch.load(os.path.join(self.processed_folder, self.training_file if self.train else self.test_file))

    @property
    def raw_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "raw")

    @property
    def processed_folder(self):
        return os.path.join(self.root, self.__class__.__name__, "processed")

    @property
    def class_to_idx(self):
        return {_class: i for i, _class in enumerate(self.classes)}

    def _check_exists(self):
        return all(os.path.isfile(os.path.join(self.raw_folder, f)) for f in self.files)

    def download(self):
        if self._check_exists():
            return
        raise no_network(self.__class__.__name__, self.raw_folder)

    def __getitem__(self, index):
        from PIL import Image
        img, target = self.data[index], int(self.targets[index])
        img = Image.fromarray(img.numpy(), mode="L")
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class FashionMNIST(MNIST):
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]


class KMNIST(MNIST):
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]

"""CIFAR10 / CIFAR100: torchvision's python-pickle batches (<root>/cifar-10-batches-py, cifar-100-python), each
file checked against its md5 as torchvision's."""
import hashlib
import os
import pickle

import numpy as np

from .vision import VisionDataset, no_network


def check_integrity(fpath, md5=None):
    if not os.path.isfile(fpath):
        return False
    if md5 is None:
        return True
    h = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(1024 * 1024), b""):
            h.update(chunk)
    return h.hexdigest() == md5


class _RestrictedUnpickler(pickle.Unpickler):
    """The batches hold dicts of lists, bytes, strings and numpy arrays: nothing else is loaded."""
    _ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
                ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
                ("numpy._core.multiarray", "scalar"), ("_codecs", "encode")}

    def find_class(self, module, name):
        if (module, name) in self._ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"wick.vision: a CIFAR batch may not reference {module}.{name}")


def _load(path):
    with open(path, "rb") as f:
        return _RestrictedUnpickler(f, encoding="latin1").load()


class CIFAR10(VisionDataset):
    base_folder = "cifar-10-batches-py"
    filename = "cifar-10-python.tar.gz"
    train_list = [["data_batch_1", "c99cafc152244af753f735de768cd75f"],
                  ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
                  ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
                  ["data_batch_4", "634d18415352ddfa80567beed471001a"],
                  ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"]]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_integrity():
            raise RuntimeError("Dataset not found or corrupted. You can use download=True to download it")
        data, self.targets = [], []
        for name, _ in (self.train_list if self.train else self.test_list):
            entry = _load(os.path.join(self.root, self.base_folder, name))
            data.append(entry["data"])
            self.targets.extend(entry["labels"] if "labels" in entry else entry["fine_labels"])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))   # [N, 32, 32, 3] uint8
        self._load_meta()

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        if not check_integrity(path, self.meta["md5"]):
            raise RuntimeError("Dataset metadata file not found or corrupted. You can use download=True to download it")
        self.classes = _load(path)[self.meta["key"]]
        self.class_to_idx = {_class: i for i, _class in enumerate(self.classes)}

    def __getitem__(self, index):
        from PIL import Image
        img, target = self.data[index], self.targets[index]
        img = Image.fromarray(img)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        return all(check_integrity(os.path.join(self.root, self.base_folder, name), md5)
                   for name, md5 in self.train_list + self.test_list)

    def download(self):
        if self._check_integrity():
            return
        raise no_network(self.__class__.__name__, os.path.join(self.root, self.base_folder))

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    base_folder = "cifar-100-python"
    filename = "cifar-100-python.tar.gz"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}

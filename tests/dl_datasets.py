"""A dataset for tests/test_dataloader_workers.py that imports neither torch nor wick until a sample is read, so a
spawned worker starts quickly (it imports only the library under test)."""
import importlib
import random


class SeedProbe:
    """Each sample: a value that depends on the index, plus what the worker's RNGs and get_worker_info say."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import numpy as np
        T = importlib.import_module(self.lib)
        info = T.utils.data.get_worker_info()
        return (T.rand(2) + i, T.tensor(i), info.id, info.num_workers, info.seed, T.initial_seed(),
                random.random(), float(np.random.rand()), type(info.dataset).__name__)

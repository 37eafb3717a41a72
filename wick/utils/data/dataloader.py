"""DataLoader: batches in torch's order (Note [DataLoader order] in ../../../shared/pytorch-semantics §6).

Each `iter(loader)` first draws a base seed (one int64 from the loader's generator, or the default one), exactly as
torch's _BaseDataLoaderIter does; RandomSampler then draws its own seed when its iterator starts. So the batches,
and the state of the global generator after each epoch, are torch's."""
import warnings

from . import _collate
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ['DataLoader', 'default_collate', 'default_convert', 'get_worker_info']

default_collate = _collate.default_collate
default_convert = _collate.default_convert


def get_worker_info():
    return None


class _InfiniteConstantSampler:
    def __iter__(self):
        while True:
            yield None


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device='', in_order=True):
        if num_workers < 0:
            raise ValueError('num_workers option should be non-negative; use num_workers=0 to disable '
                             'multiprocessing.')
        if num_workers > 0:
            raise NotImplementedError('wick: DataLoader(num_workers>0) is not supported yet; use num_workers=0 '
                                      '(wick loads batches in the main process)')
        if timeout < 0:
            raise ValueError('timeout option should be non-negative')
        if prefetch_factor is not None:
            raise ValueError('prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 '
                             'to enable multiprocessing, otherwise set prefetch_factor to None.')
        if persistent_workers:
            raise ValueError('persistent_workers option needs num_workers > 0')
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in (False, None):
                raise ValueError('DataLoader with IterableDataset: expected unspecified shuffle option, but got '
                                 'shuffle=%s' % (shuffle,))
            if sampler is not None:
                raise ValueError('DataLoader with IterableDataset: expected unspecified sampler option, but got '
                                 'sampler=%s' % (sampler,))
            if batch_sampler is not None:
                raise ValueError('DataLoader with IterableDataset: expected unspecified batch_sampler option, but got '
                                 'batch_sampler=%s' % (batch_sampler,))
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError('sampler option is mutually exclusive with shuffle')
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError('batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and '
                                 'drop_last')
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError('batch_size=None option disables auto-batching and is mutually exclusive with '
                                 'drop_last')
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = _collate.default_collate if self._auto_collation else _collate.default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _base_seed(self):
        from ... import empty, int64
        return empty((), dtype=int64).random_(generator=self.generator).item()

    def __iter__(self):
        if self.pin_memory and self.pin_memory_device:  # torch's iterator says so when it is made (CPU only here)
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{self.pin_memory_device}'.", stacklevel=2)
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                          "won't be used.", stacklevel=2)
        index_iter = iter(self._index_sampler)   # created first: its body runs at the first next()
        self._last_base_seed = self._base_seed()
        if self._is_iterable:
            return self._iter_iterable(index_iter)
        return self._iter_map(index_iter)

    def _iter_map(self, index_iter):
        for index in index_iter:
            if self._auto_collation:
                getitems = getattr(self.dataset, '__getitems__', None)
                data = getitems(index) if getitems else [self.dataset[i] for i in index]
            else:
                data = self.dataset[index]
            yield self.collate_fn(data)

    def _iter_iterable(self, index_iter):
        it = iter(self.dataset)
        while True:
            if self._auto_collation:
                batch = []
                for _ in next(index_iter):
                    try:
                        batch.append(next(it))
                    except StopIteration:
                        break
                if len(batch) == 0 or (self.drop_last and len(batch) < self.batch_size):
                    return
                yield self.collate_fn(batch)
            else:
                try:
                    yield self.collate_fn(next(it))
                except StopIteration:
                    return

    def __len__(self):
        if self._is_iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

"""DataLoader: batches in torch's order (Note [DataLoader order] in ../../../shared/pytorch-semantics §6).

Each `iter(loader)` first draws a base seed (one int64 from the loader's generator, or the default one), exactly as
torch's _BaseDataLoaderIter does; RandomSampler then draws its own seed when its iterator starts. So the batches,
and the state of the global generator after each epoch, are torch's. num_workers > 0 starts worker processes
(_MultiProcessingDataLoaderIter below, the worker side in _worker.py); a persistent iterator draws its base seed once."""
import itertools
import os
import queue
import sys
import warnings

from . import _collate, _worker
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ['DataLoader', 'default_collate', 'default_convert', 'get_worker_info']

default_collate = _collate.default_collate
default_convert = _collate.default_convert


get_worker_info = _worker.get_worker_info


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
        if num_workers > 0 and sys.platform == 'emscripten':
            raise RuntimeError('wick: DataLoader(num_workers>0) needs worker processes, which Pyodide (WebAssembly) '
                               'cannot start; use num_workers=0')
        if timeout < 0:
            raise ValueError('timeout option should be non-negative')
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError('prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 '
                             'to enable multiprocessing, otherwise set prefetch_factor to None.')
        elif num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError('prefetch_factor option should be non-negative')
        if persistent_workers and num_workers == 0:
            raise ValueError('persistent_workers option needs num_workers > 0')
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.multiprocessing_context = _check_context(multiprocessing_context, num_workers)
        self.in_order = in_order
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
        self._iterator = None
        self._check_worker_number_rationality()

    def _check_worker_number_rationality(self):
        if not self.num_workers:
            return
        cpuset = hasattr(os, 'sched_getaffinity')
        suggest = len(os.sched_getaffinity(0)) if cpuset else os.cpu_count()
        if suggest is None or self.num_workers > suggest:
            if suggest is None:
                why = 'DataLoader is not able to compute a suggested max number of worker in current system.'
            else:
                why = ('Our suggested max number of worker in current system is %d%s, which is smaller than what this '
                       'DataLoader is going to create.' % (suggest, '' if cpuset else ' (`cpuset` is not taken into '
                                                                                         'account)'))
            warnings.warn('This DataLoader will create %d worker processes in total. %s Please be aware that excessive '
                          'worker creation might get DataLoader running slow or even freeze, lower the worker number '
                          'to avoid potential slowness/freeze if necessary.' % (self.num_workers, why), stacklevel=3)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _warn_pin_memory(self, stacklevel=3):
        if self.pin_memory and self.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{self.pin_memory_device}'.", stacklevel=stacklevel)
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                          "won't be used.", stacklevel=stacklevel)

    def _base_seed(self):
        from ... import empty, int64
        return empty((), dtype=int64).random_(generator=self.generator).item()

    def __iter__(self):
        if self.num_workers > 0:
            if not self.persistent_workers:
                self._check_worker_number_rationality()
                return _MultiProcessingDataLoaderIter(self)
            if self._iterator is None:
                self._check_worker_number_rationality()
                self._iterator = _MultiProcessingDataLoaderIter(self)
            else:
                self._iterator._reset()
            return self._iterator
        self._warn_pin_memory()
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


def _check_context(ctx, num_workers):
    """multiprocessing_context= as torch checks it: a start-method name or a context object, only with workers."""
    import multiprocessing
    if ctx is None:
        return None
    if num_workers == 0:
        raise ValueError('multiprocessing_context can only be used with multi-process loading (num_workers > 0), but '
                         'got num_workers=%d' % num_workers)
    if isinstance(ctx, str):
        methods = multiprocessing.get_all_start_methods()
        if ctx not in methods:
            raise ValueError('multiprocessing_context option should specify a valid start method in %r, but got '
                             'multiprocessing_context=%r' % (methods, ctx))
        ctx = multiprocessing.get_context(ctx)
    if not isinstance(ctx, multiprocessing.context.BaseContext):
        raise TypeError('multiprocessing_context option should be a valid context object or a string specifying the '
                        'start method, but got multiprocessing_context=%s' % (ctx,))
    return ctx


def _at_exit():
    _MultiProcessingDataLoaderIter._exiting = True


import atexit  # noqa: E402
atexit.register(_at_exit)


class _MultiProcessingDataLoaderIter:
    """Batches from num_workers processes (torch's scheme): task i (an index, or a batch of indices) goes to the
    next live worker in round-robin order; at most prefetch_factor * num_workers tasks are outstanding; results
    are handed out in task order (in_order=True) or as they arrive. The base seed is drawn once, when the
    iterator is made, after the sampler's iterator (so a persistent iterator draws it once for all epochs).

    Note [Tensors between processes]: a batch is pickled into the result pipe with its tensors' bytes (a contiguous
    copy each) and unpickled into new tensors here: one extra copy at each end. torch instead moves the storage
    into shared memory and sends a file descriptor; that costs a shared-memory segment per tensor but no copy of
    large batches. Measured (10k samples of 8 floats, batch_size=32, 2 workers, fork, one epoch, best of 3, on a
    loaded 2-core host): wick 0.80 s, torch 1.21 s (num_workers=0: wick 0.05 s, torch 0.10 s)."""
    _exiting = False

    def __init__(self, loader):
        import multiprocessing
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._auto_collation = loader._auto_collation
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        loader._warn_pin_memory(stacklevel=4)
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = loader._base_seed()
        if self._prefetch_factor <= 0:
            raise AssertionError('prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter')
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._shutdown = False
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        try:
            for i in range(self._num_workers):
                q = ctx.Queue()
                q.cancel_join_thread()
                w = ctx.Process(target=_worker._worker_loop,
                                args=(self._is_iterable, self._dataset, q, self._result_queue, self._done_event,
                                      self._auto_collation, loader.collate_fn, loader.drop_last, self._base_seed,
                                      loader.worker_init_fn, i, self._num_workers))
                w.daemon = True
                w.start()
                self._index_queues.append(q)
                self._workers.append(w)
        except BaseException:
            self._workers_status = [True] * len(self._workers)
            self._shutdown_workers()
            raise
        self._reset(first=True)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError('{} cannot be pickled', type(self).__name__)

    def _reset(self, first=False):
        if not first:
            self._sampler_iter = iter(self._index_sampler)
        self._send_idx = 0            # next task number to send
        self._rcvd_idx = 0            # next task number to hand out (in order)
        self._task_info = {}          # task number -> (worker,) while pending, (worker, data) once received early
        self._outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first:                 # persistent workers: start a new epoch in every worker and wait for each
            for q in self._index_queues:
                q.put(_worker._ResumeIteration())
            pending = self._num_workers
            while pending:
                idx, _ = self._get_data()
                if isinstance(idx, _worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=_worker.MP_STATUS_CHECK_INTERVAL):
        try:
            return True, self._result_queue.get(timeout=timeout)
        except Exception as e:
            failed = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            for i, w in enumerate(self._workers):
                if w in failed:
                    self._mark_worker_unavailable(i)
            if failed:
                raise RuntimeError('DataLoader worker (pid(s) %s) exited unexpectedly'
                                   % ', '.join(str(w.pid) for w in failed)) from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError('DataLoader timed out after %s seconds' % (self._timeout,))
            return data
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def __next__(self):
        while True:
            while self._rcvd_idx < self._send_idx:      # skip tasks of workers that ended (iterable datasets)
                info = self._task_info.get(self._rcvd_idx)
                if info and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:   # arrived earlier, out of order
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            idx, data = self._get_data()
            self._outstanding -= 1
            if self._is_iterable and isinstance(data, _worker._IterableDatasetStopIteration):
                if self._persistent:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    return self._process_data(data, self._task_info.pop(idx)[0])
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self):
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            w = next(self._worker_cycle)
            if self._workers_status[w] and (self._in_order or
                                            self._workers_num_tasks[w] < max_tasks // sum(self._workers_status)):
                break
        else:
            return
        self._index_queues[w].put((self._send_idx, index))
        self._task_info[self._send_idx] = (w,)
        self._workers_num_tasks[w] += 1
        self._outstanding += 1
        self._send_idx += 1

    def _process_data(self, data, worker_id):
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_unavailable(self, worker_id):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if getattr(self, '_shutdown', True) or getattr(self, '_workers', None) is None:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for i in range(len(self._workers)):
                if self._persistent or self._workers_status[i]:
                    try:
                        self._index_queues[i].put(None)
                    except Exception:
                        pass
            for w in self._workers:
                w.join(timeout=_worker.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_worker.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        if not _MultiProcessingDataLoaderIter._exiting:
            self._shutdown_workers()

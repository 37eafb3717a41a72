"""What runs inside a DataLoader worker process, and what crosses the process boundary.

A worker is seeded as torch's _worker_loop seeds it: seed = base_seed + worker_id for `random` and the torch
generator, and numpy (when it imports) from the 4-word state torch derives from (base_seed, worker_id). Tensors
cross the queues by value: a reducer registered with multiprocessing's ForkingPickler sends the bytes of a
contiguous copy (torch sends a shared-memory handle instead; see the note in dataloader.py for the cost)."""
import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler

MP_STATUS_CHECK_INTERVAL = 5.0   # seconds between liveness checks while waiting on a queue (torch's value)

_worker_info = None


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str = 'multiprocessing'


def get_worker_info():
    """The WorkerInfo of this worker process; None in the main process."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: object = None


def _generate_state(base_seed, worker_id):
    """numpy's per-worker seed: 4 uint32 words hashed from (worker_id, base_seed low, base_seed high, 0), the
    SeedSequence-style mixing torch uses (constants are numpy's)."""
    m32 = 0xFFFFFFFF
    mult_a, mult_b = 0x931E8875, 0x58F38DED
    const_a = [0x43B0D7E5]

    def hash_a(v):
        v = (v ^ const_a[0]) & m32
        const_a[0] = (const_a[0] * mult_a) & m32
        v = (v * const_a[0]) & m32
        return (v ^ (v >> 16)) & m32

    def mix(x, y):
        r = ((0xCA01F9DD * x) - (0x4973F715 * y)) & m32
        return (r ^ (r >> 16)) & m32

    pool = [hash_a(e) for e in (worker_id, base_seed & m32, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hash_a(pool[src]))
    const_b, out = 0x8B51F9DD, []
    for v in pool:
        v = (v ^ const_b) & m32
        const_b = (const_b * mult_b) & m32
        v = (v * const_b) & m32
        out.append((v ^ (v >> 16)) & m32)
    return out


class _KeyErrorMessage(str):
    """KeyError's str() is the repr of its argument: this keeps the multi-line message readable (as torch's)."""
    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, carried from a worker to the main process (torch._utils')."""

    def __init__(self, exc_info=None, where='in background'):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = ''.join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = 'Caught %s %s.\nOriginal %s' % (self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, 'message', None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


# ---- tensors through the queues -------------------------------------------------------------------------------

def _rebuild_tensor(kind, data, dtype, shape, requires_grad):
    """kind: 0 a Tensor, 1 a Parameter, else the subclass itself (torch's classes are named torch.*, so they
    cannot be pickled by reference from wick)."""
    from ... import _C, empty
    from ..._tensor import Tensor
    from ...nn.parameter import Parameter
    cls = Tensor if kind == 0 else Parameter if kind == 1 else kind
    if len(data) == 0:
        t = empty(shape, dtype=dtype)
    else:
        t = _C.frombuffer(bytearray(data), dtype=dtype).view(shape)   # frombuffer keeps the bytearray alive
    if cls is not type(t):
        t = cls(t, requires_grad=requires_grad) if _is_parameter(cls) else t.as_subclass(cls)
    if requires_grad and not t.requires_grad:
        t.requires_grad_(True)
    return t


def _is_parameter(cls):
    from ...nn.parameter import Parameter
    return issubclass(cls, Parameter)


def _reduce_tensor(t):
    from ... import _C, contiguous_format
    from ..._tensor import Tensor
    from ...nn.parameter import Parameter
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError('Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does '
                           'not support crossing process boundaries.  If you just want to transfer the data, call '
                           'detach() on the tensor before serializing (e.g., putting it on the queue).')
    c = t.detach().clone(memory_format=contiguous_format)     # shape (*t.shape), contiguous, its own storage
    data = _C._storage_bytes(c) if c.numel() else b''
    cls = type(t)
    kind = 0 if cls is Tensor else 1 if cls is Parameter else cls
    return _rebuild_tensor, (kind, data, t.dtype, tuple(t.shape), t.requires_grad)


def _register_reducers():
    from ..._tensor import Tensor
    from ...nn.parameter import Parameter
    for cls in (Tensor, Parameter):
        ForkingPickler.register(cls, _reduce_tensor)


# ---- the worker loop -------------------------------------------------------------------------------------------

class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if self.auto_collation:
            getitems = getattr(self.dataset, '__getitems__', None)
            data = getitems(index) if getitems else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.it = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.it))
        batch = []
        for _ in index:
            try:
                batch.append(next(self.it))
            except StopIteration:
                self.ended = True
                break
        if not batch or (self.drop_last and len(batch) < len(index)):
            raise StopIteration
        return self.collate_fn(batch)


def _seed_worker(seed, base_seed, worker_id):
    from ... import manual_seed
    random.seed(seed)
    manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return
    np.random.seed(_generate_state(base_seed, worker_id))


def _worker_loop(is_iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                 base_seed, init_fn, worker_id, num_workers):
    """One worker: seed, run init_fn, then answer (idx, index) tasks with (idx, batch) until told to stop (None) or
    the parent is gone. Exceptions travel as ExceptionWrapper; an iterable dataset's end as
    _IterableDatasetStopIteration."""
    global _worker_info
    from ... import set_num_threads
    try:
        set_num_threads(1)
        seed = base_seed + worker_id
        _seed_worker(seed, base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        fetcher_cls = _IterableFetcher if is_iterable else _MapFetcher
        init_exception = fetcher = None
        where = 'in DataLoader worker process %d' % worker_id
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = fetcher_cls(dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=where)
        iteration_end = False
        parent = os.getppid()
        while os.getppid() == parent:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):         # persistent workers: a new epoch
                data_queue.put((r, None))
                iteration_end = False
                fetcher = fetcher_cls(dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and is_iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=where)
            try:
                data_queue.put((idx, data))
            except Exception:       # the batch does not pickle: say so in the main process
                data_queue.put((idx, ExceptionWrapper(where=where)))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


_register_reducers()

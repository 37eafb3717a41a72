"""DataLoader(num_workers > 0) held to real torch, live: each scenario runs once with `torch` and once with `wick`
(worker processes of each, fork and spawn) and the results must be equal: the batches and their order, each
worker's seeds and random draws inside __getitem__ (torch.rand, torch.initial_seed, random, numpy), get_worker_info,
the global generator's state after the loader, persistent workers across epochs, IterableDataset sharding, a
worker's exception re-raised with torch's wrapping, timeouts, and torch's argument errors and warnings.
Datasets live at module level so spawned workers can import them."""
import multiprocessing
import pickle
import re
import sys
import warnings

import numpy as np
import pytest
import torch

import wick
from dl_datasets import SeedProbe

LIBS = (torch, wick)


def _plain(x):
    """A comparable form: tensors become (dtype name, shape, values)."""
    if isinstance(x, (torch.Tensor, wick.Tensor)):
        return ('tensor', str(x.dtype).split('.')[-1], tuple(x.shape), x.tolist())
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _lib(name):
    return torch if name == 'torch' else wick




def _run(fn):
    got = [_plain(fn(T)) for T in LIBS]
    assert got[0] == got[1]
    return got[1]


def _epoch(loader):
    return [b for b in loader]


@pytest.mark.parametrize('shuffle', [False, True])
def test_map_dataset_seeds_and_order_fork(shuffle):
    def f(T):
        T.manual_seed(11)
        loader = T.utils.data.DataLoader(SeedProbe(T.__name__, 10), batch_size=3, shuffle=shuffle, num_workers=2,
                                         multiprocessing_context='fork')
        return _epoch(loader), _epoch(loader), T.rand(3)        # two epochs: two base seeds drawn
    out = _run(f)
    assert len(out[0]) == 4 and out[0][0][2] != out[0][1][2]   # batches alternate workers 0, 1


def test_spawn_context_and_no_auto_collation():
    """wick's workers started by spawn give what torch's give (forked: the start method changes no seed; torch's
    own spawned workers take ~10 s to import torch here, so they are not started)."""
    def f(T, ctx):
        T.manual_seed(3)
        g = T.Generator().manual_seed(99)
        loader = T.utils.data.DataLoader(SeedProbe(T.__name__, 5), batch_size=None, shuffle=True, generator=g,
                                         num_workers=2, multiprocessing_context=ctx)
        return _plain((_epoch(loader), T.rand(2), g.initial_seed()))
    assert f(torch, 'fork') == f(wick, multiprocessing.get_context('spawn'))


def _init_fn(worker_id):
    info = wick.utils.data.get_worker_info() or torch.utils.data.get_worker_info()
    info.dataset.tag = 'init%d:%d' % (worker_id, info.seed % 1000)


class Tagged(SeedProbe):
    tag = 'unset'

    def __getitem__(self, i):
        return self.tag, super().__getitem__(i)[0]


def test_worker_init_fn_and_prefetch_factor():
    def f(T):
        T.manual_seed(5)
        return _epoch(T.utils.data.DataLoader(Tagged(T.__name__, 7), batch_size=2, num_workers=2,
                                              worker_init_fn=_init_fn, prefetch_factor=1))
    _run(f)


def test_persistent_workers():
    def f(T):
        T.manual_seed(21)
        loader = T.utils.data.DataLoader(SeedProbe(T.__name__, 6), batch_size=2, shuffle=True, num_workers=2,
                                         persistent_workers=True)
        a = _epoch(loader)
        r1 = T.rand(1)            # only one base seed was drawn, at the first epoch
        b = _epoch(loader)        # the workers' generators continue; they are not reseeded
        return a, r1, b, T.rand(1), loader._iterator is iter(loader)
    _run(f)


def test_in_order_false_gives_every_batch():
    def f(T):
        loader = T.utils.data.DataLoader(list(range(20)), batch_size=3, num_workers=2, in_order=False)
        return sorted(b.tolist() for b in loader)
    _run(f)


class Shards(torch.utils.data.IterableDataset):
    """range(start, end), split between workers by get_worker_info as torch's documentation does it."""

    def __init__(self, lib, start, end):
        self.lib, self.start, self.end = lib, start, end

    def __iter__(self):
        info = _lib(self.lib).utils.data.get_worker_info()
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


class WShards(wick.utils.data.IterableDataset):
    __init__, __iter__ = Shards.__init__, Shards.__iter__


@pytest.mark.parametrize('drop_last', [False, True])
def test_iterable_dataset_sharding(drop_last):
    def f(T):
        ds = (Shards if T is torch else WShards)(T.__name__, 3, 20)
        return _epoch(T.utils.data.DataLoader(ds, batch_size=3, num_workers=2, drop_last=drop_last))
    _run(f)


class Fails:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError('sample %d is broken' % i)
        if i == 6:
            raise KeyError('missing')
        return i


@pytest.mark.parametrize('bad', [5, 6])
def test_worker_exception_reraised_with_torchs_wrapping(bad):
    msgs = []
    for T in LIBS:
        sampler = [0, 1, 2, bad]
        with pytest.raises(Exception) as e:
            _epoch(T.utils.data.DataLoader(Fails(), batch_size=None, sampler=sampler, num_workers=2))
        msg = str(e.value)
        msgs.append((type(e.value), msg.splitlines()[0], msg.splitlines()[1], msg.strip().splitlines()[-1]))
    assert msgs[0] == msgs[1]
    assert msgs[1][1].startswith('Caught ') and 'in DataLoader worker process 1' in msgs[1][1]


class Slow:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        import time
        time.sleep(1.5 if i == 1 else 0)
        return i


def test_timeout():
    got = []
    for T in LIBS:
        with pytest.raises(RuntimeError) as e:
            _epoch(T.utils.data.DataLoader(Slow(), batch_size=None, num_workers=2, timeout=0.3))
        got.append(str(e.value))
    assert got[0] == got[1] == 'DataLoader timed out after 0.3 seconds'


BAD_ARGS = [dict(num_workers=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
            dict(num_workers=1, prefetch_factor=-1), dict(timeout=-1), dict(multiprocessing_context='fork'),
            dict(num_workers=1, multiprocessing_context='nope'), dict(num_workers=1, multiprocessing_context=3)]


@pytest.mark.parametrize('kw', BAD_ARGS, ids=[str(k) for k in BAD_ARGS])
def test_argument_errors(kw):
    got = []
    for T in LIBS:
        with pytest.raises(Exception) as e:
            T.utils.data.DataLoader(list(range(4)), **kw)
        got.append((type(e.value), str(e.value)))
    assert got[0] == got[1]


def test_prefetch_factor_zero_refused_at_iteration():
    got = []
    for T in LIBS:
        loader = T.utils.data.DataLoader(list(range(4)), num_workers=1, prefetch_factor=0)
        with pytest.raises(AssertionError) as e:
            iter(loader)
        got.append(str(e.value))
    assert got[0] == got[1]


def _warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        fn()
    return [(x.category, str(x.message)) for x in w]


def test_warnings_pin_memory_and_too_many_workers():
    def f(T):
        n = len(__import__('os').sched_getaffinity(0)) + 1
        a = _warnings(lambda: T.utils.data.DataLoader(list(range(4)), num_workers=n))
        b = _warnings(lambda: _epoch(T.utils.data.DataLoader(list(range(4)), num_workers=1, pin_memory=True)))
        return a, b
    a, b = _run(f)
    assert len(a) == 1 and len(b) == 1


def test_tensors_cross_processes():
    """Dtypes, shapes, empty and non-contiguous tensors, requires_grad leaves and Parameters arrive as torch's."""
    def f(T):
        samples = [(T.arange(6, dtype=T.int16).reshape(2, 3).t(), T.zeros(0, 3), T.tensor([True, False]),
                    T.tensor(2.5, dtype=T.float64), T.nn.Parameter(T.ones(2)), T.ones(2, requires_grad=True))]
        out = _epoch(T.utils.data.DataLoader(samples, batch_size=None, num_workers=1, collate_fn=lambda x: x))
        return out, [(type(t).__name__, t.requires_grad, t.is_leaf) for t in out[0]]
    _run(f)


def test_non_leaf_requiring_grad_refused():
    got = []
    for T in LIBS:
        with pytest.raises(RuntimeError) as e:
            from multiprocessing.reduction import ForkingPickler
            ForkingPickler.dumps(T.ones(2, requires_grad=True) * 2)
        got.append(str(e.value))
    assert got[0] == got[1]
    # plain pickle takes it (a leaf comes back), as torch's: tests/test_pickle.py
    assert pickle.loads(pickle.dumps(wick.ones(2, requires_grad=True) * 2)).is_leaf


def test_pyodide_refuses_workers(monkeypatch):
    monkeypatch.setattr(sys, 'platform', 'emscripten')
    with pytest.raises(RuntimeError, match=re.escape('Pyodide (WebAssembly) cannot start')):
        wick.utils.data.DataLoader(list(range(4)), num_workers=2)
    assert list(wick.utils.data.DataLoader(list(range(4)), batch_size=None)) == [0, 1, 2, 3]

"""Plain pickle, copy.copy / copy.deepcopy and multiprocessing queues of tensors, parameters and modules, held to
real torch live: each scenario runs with `torch` and with `wick` and the descriptions (type, dtype, shape, strides,
storage offset and storage size, values, requires_grad, is_leaf, grad, Python attributes, which results share a
storage) must be equal. A pickle names its library's functions (torch._utils._rebuild_tensor_v2 /
wick._tensor._rebuild_tensor_bytes), so a pickle is read back by the library that wrote it; torch.save files are
the format both read (tests/test_serialization.py)."""
import copy
import multiprocessing
import pickle

import pytest
import torch

import wick

LIBS = (torch, wick)


@pytest.fixture(autouse=True)
def _no_dispatch_after():
    """The subclasses here turn on wick's lazy __torch_function__ dispatch (Note [Lazy dispatch]); once on, a
    function bound before it (TransformerEncoderLayer's default activation F.relu) is no longer the module's
    attribute and pickle refuses it: each test starts with dispatch off."""
    yield
    wick.overrides._uninstall()


def _storage(T, t):
    """(storage id, storage bytes)"""
    if T is torch:
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    sid, nbytes, _ = wick._C._storage_info(t)
    return sid, nbytes


def _desc(T, t):
    if isinstance(t, (list, tuple)):
        sids = [_storage(T, x)[0] for x in t if isinstance(x, T.Tensor)]
        shared = [[sids.index(a) for a in sids]]      # which items share a storage, by first index
        return [_desc(T, x) for x in t] + shared
    if not isinstance(t, T.Tensor):
        return t
    d = dict(type=type(t).__name__, dtype=str(t.dtype), shape=tuple(t.shape), stride=tuple(t.stride()),
             offset=t.storage_offset(), nbytes=_storage(T, t)[1], requires_grad=t.requires_grad, leaf=t.is_leaf,
             values=t.detach().tolist(), grad=None if not t.is_leaf or t.grad is None else t.grad.tolist())
    if type(t) not in (T.Tensor, T.nn.Parameter):
        state = t.__getstate__()
        d['attrs'] = [sorted(x.items()) if isinstance(x, dict) else x
                      for x in (state if isinstance(state, tuple) else (state,))]
    return d


def _both(fn):
    got = [fn(T) for T in LIBS]
    assert got[0] == got[1]
    return got[1]


def _rt(obj, protocol=pickle.DEFAULT_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


@pytest.mark.parametrize('protocol', range(pickle.HIGHEST_PROTOCOL + 1))
def test_round_trip_protocols(protocol):
    _both(lambda T: _desc(T, _rt(T.tensor([[1.5, -2.0, 3.25], [4.0, 0.5, -6.75]]), protocol)))


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8',
                                   'uint8', 'bool'])
def test_dtypes(dtype):
    _both(lambda T: _desc(T, _rt(T.tensor([3, 0, 1, 2]).to(getattr(T, dtype)))))


def test_views_keep_storage_offset_strides():
    """A view brings its whole base storage with its offset and strides; an expanded tensor keeps stride 0."""
    def f(T):
        base = T.arange(24.).reshape(4, 6)
        return [_desc(T, _rt(v)) for v in (base[1:, ::2], base.t(), base[2], base[:, 3], T.ones(3).expand(2, 3),
                                           T.tensor(5.0), T.empty(0, 3))]
    _both(f)


def test_storages_not_shared_within_one_pickle():
    _both(lambda T: _desc(T, _rt([T.arange(6.), T.arange(6.)[2:]])))
    _both(lambda T: _desc(T, _rt((lambda a: [a, a[1:], a])(T.arange(6.)))))   # the same object twice: memoized


def test_requires_grad_leaf_nonleaf_grad_dropped():
    def f(T):
        x = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
        (x * T.tensor([0.5, 2.0, -3.0])).sum().backward()
        return [_desc(T, _rt(x)), _desc(T, _rt(x * 2)), _desc(T, _rt(x.detach()))]
    _both(f)


def test_parameter_and_attributes():
    def f(T):
        p = T.nn.Parameter(T.tensor([1.0, 2.0]))
        p.grad = T.tensor([0.25, 0.5])
        q = T.nn.Parameter(T.tensor([3.0]), requires_grad=False)
        r = T.nn.Parameter(T.tensor([4.0]))
        r.tag = 'shared'
        r2 = _rt(r)
        return [_desc(T, _rt(p)), _desc(T, _rt(q)), _desc(T, r2), r2.tag]
    _both(f)


def _subclasses(T):
    class Plain(T.Tensor):
        pass

    class Slotted(T.Tensor):
        __slots__ = ('unit',)
    return Plain, Slotted


def test_subclass_with_state():
    def f(T):
        Plain, Slotted = _subclasses(T)
        globals()['Plain'], globals()['Slotted'] = Plain, Slotted     # picklable by reference
        Plain.__qualname__, Slotted.__qualname__ = 'Plain', 'Slotted'
        a = T.tensor([1.0, 2.0]).as_subclass(Plain)
        a.note, a.scale = 'hi', 3
        b = T.tensor([[1, 2], [3, 4]]).as_subclass(Slotted)
        b.unit = 'm'
        c = T.tensor([0.5, 1.5], requires_grad=True).as_subclass(Plain)
        a2, b2, c2 = _rt(a), _rt(b), _rt(c)
        return [_desc(T, a2), _desc(T, b2), b2.unit, _desc(T, c2)]
    _both(f)


def test_modules():
    def f(T):
        T.manual_seed(0)
        out = []
        for m in (T.nn.Linear(3, 2), T.nn.Sequential(T.nn.Conv2d(1, 2, 3), T.nn.ReLU(), T.nn.BatchNorm2d(2)),
                  T.nn.LSTM(3, 4), T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)):
            m.eval()
            m2 = _rt(m)
            out.append([repr(m2), type(m2).__module__, m2.training,
                        [(k, _desc(T, v)) for k, v in m2.state_dict(keep_vars=True).items()]])
        x = T.tensor([[0.5, -1.0, 2.0]])
        out.append(_desc(T, _rt(T.nn.Linear(3, 2))(x).detach().round(decimals=4) * 0))   # callable after loading
        return out
    _both(f)


def test_module_training_after_pickle():
    """A loaded module trains: its parameters are leaves that require grad and accumulate gradients."""
    def f(T):
        T.manual_seed(1)
        m = _rt(T.nn.Linear(2, 1))
        loss = (m(T.tensor([[1.0, -2.0], [0.5, 3.0]])) * T.tensor([[0.5], [-1.5]])).sum()
        loss.backward()
        return [_desc(T, p) for p in m.parameters()]
    _both(f)


def test_copy_copy_shares_storage():
    def f(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        c = copy.copy(x)
        p = T.nn.Parameter(T.tensor([3.0]))
        cp = copy.copy(p)
        return [_desc(T, c), _storage(T, c)[0] == _storage(T, x)[0], _desc(T, cp), _storage(T, cp)[0] == _storage(T, p)[0]]
    _both(f)


def test_deepcopy():
    """deepcopy keeps views sharing one copied storage (torch's storage memo), strides and offsets, grad and
    Python attributes; a non-leaf refuses with torch's message."""
    def f(T):
        a = T.arange(12.).reshape(3, 4)
        copies = copy.deepcopy([a, a[1:, ::2], a.t()])
        x = T.tensor([1.0, -2.0], requires_grad=True)
        (x * T.tensor([3.0, 0.5])).sum().backward()
        Plain, _ = _subclasses(T)

        class OwnNewEmpty(T.Tensor):
            def new_empty(self, *args, **kwargs):
                return super().new_empty(*args, **kwargs).as_subclass(OwnNewEmpty)
        s = T.tensor([1.0, 2.0]).as_subclass(OwnNewEmpty)
        s.note = ['a']
        s2 = copy.deepcopy(s)
        out = [_desc(T, copies), _desc(T, copy.deepcopy(x)), _desc(T, s2), s2.note is not s.note]
        with pytest.raises(RuntimeError, match=r'Only Tensors created explicitly by the user \(graph leaves\) '
                                               r'support the deepcopy protocol'):
            copy.deepcopy(x * 2)
        with pytest.raises(RuntimeError, match=r'The default implementation of __deepcopy__\(\) for non-wrapper '
                                               r'subclasses only works for subclass types that implement new_empty'):
            copy.deepcopy(T.tensor([1.0]).as_subclass(Plain))     # torch's own refusal
        return out
    _both(f)


def test_deepcopy_module_ties():
    """A module whose two layers share one Parameter keeps the tie after deepcopy and after pickle."""
    def f(T):
        T.manual_seed(2)
        a, b = T.nn.Linear(2, 2), T.nn.Linear(2, 2)
        b.weight = a.weight
        m = T.nn.Sequential(a, b)
        m2, m3 = copy.deepcopy(m), _rt(m)
        return [m2[0].weight is m2[1].weight, m3[0].weight is m3[1].weight, m2[0].weight is not a.weight,
                _desc(T, m3[1].weight)]
    _both(f)


def _echo(q_in, q_out):
    t = q_in.get()
    q_out.put([t, t * 2, t.requires_grad])
    q_in.get()      # torch shares the storages by file descriptor: the sender lives until they are received


@pytest.mark.parametrize('method', ['fork', 'spawn'])
def test_multiprocessing_queue(method):
    """A tensor through multiprocessing queues to a child process and back (torch by its shared-memory reducers,
    wick by value). torch's spawned child takes ~10 s to import torch: spawn runs wick only, compared with torch's
    fork result."""
    def f(T, how):
        ctx = multiprocessing.get_context(how)
        q_in, q_out = ctx.Queue(), ctx.Queue()
        proc = ctx.Process(target=_echo, args=(q_in, q_out))
        proc.start()
        q_in.put(T.tensor([[1.5, -2.0], [0.25, 8.0]])[:, 1])
        got = q_out.get(timeout=60)
        q_in.put('done')
        proc.join(60)
        return [_desc(T, got[0])['values'], _desc(T, got[1])['values'], got[2], proc.exitcode]
    assert f(torch, 'fork') == f(wick, method)

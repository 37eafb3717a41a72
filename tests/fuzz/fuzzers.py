"""The fuzzers of issue 16: each makes hostile inputs from a seeded RNG and loads every one in wick and, where it is
importable, in the reference (real torch, or the safetensors package), then compares the outcomes.

    ckpt       real torch.save files (made by torch when it is importable, else tests/fuzz/corpus/*.pt), mutated at
               three levels: raw zip bytes, the pickle's opcodes (sizes, strides, offsets, keys, globals swapped for
               hostile values), and the records (truncated, dropped, byteorder flipped)
    pickle     pickles crafted from a grammar (craft.py): nested containers, tensor geometries, allowed / refused /
               blocked globals, BUILD / SETITEM / NEWOBJ / REDUCE on random targets, random opcode bytes; after
               each load the process-wide objects a file once replaced (Size.__len__, device.__eq__, ...) are checked
    safetensors  safetensors files (header length, JSON header: shapes, dtypes, offsets) mutated

An outcome is ('ok', summary) or ('err', exception type). A crash ends the worker process (the driver reports the
input); wick loading what the reference refuses, or loading different values, is a failure; differing exception
types are counted and shown, not failed (zip-level errors have other types in torch's C++ reader)."""
import io
import json
import pickletools
import random
import struct
import zipfile

from tests.parity.craft import P, build, call, ckpt, glob, pickle_bytes, setitem, storage, tensor_ref

INTERESTING = [0, 1, 2, 3, -1, -2, 7, 255, 256, 2 ** 16, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 62,
               2 ** 62 - 1, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 2 ** 64, 10 ** 6, 100000]
GLOBALS = [('torch._utils', '_rebuild_tensor_v2'), ('torch._utils', '_rebuild_parameter'), ('torch', 'Size'),
           ('torch', 'device'), ('collections', 'OrderedDict'), ('collections', 'Counter'), ('torch', 'FloatStorage'),
           ('torch', 'LongStorage'), ('torch', 'HalfStorage'), ('torch', 'BoolStorage'), ('torch', 'float32'),
           ('builtins', 'set'), ('builtins', 'complex'), ('builtins', 'bytearray'), ('_codecs', 'encode'),
           ('torch.nn.parameter', 'Parameter'), ('torch._utils', '_rebuild_tensor'), ('torch', 'Tensor'),
           ('os', 'system'), ('posix', 'system'), ('sys', 'modules'), ('builtins', 'eval'), ('builtins', 'getattr'),
           ('__builtin__', 'setattr'), ('subprocess', 'Popen'), ('torch._utils', '_rebuild_tensor_v3'),
           ('torch._tensor', '_rebuild_from_type_v2'), ('numpy', 'dtype'), ('torch', 'nonexistent')]
STORAGE_TYPES = ['FloatStorage', 'DoubleStorage', 'HalfStorage', 'LongStorage', 'IntStorage', 'ShortStorage',
                 'CharStorage', 'ByteStorage', 'BoolStorage', 'BFloat16Storage']
MAX_READ = 100000   # elements read back from a loaded tensor (all of them, below this)


# ------------------------------------------------------------------------------------------------ outcomes
def summarize(lib, obj, depth=0):
    """A comparable summary of a loaded object; reads every element of each tensor (where out-of-bounds reads
    would show), or its first and last element when it is huge."""
    if depth > 50:
        return '...'
    if isinstance(obj, lib.Tensor):
        n = obj.numel()
        head = (type(obj).__name__, str(obj.dtype), tuple(obj.shape), tuple(obj.stride()), obj.storage_offset(),
                obj.requires_grad)
        t = obj.detach()
        if n <= MAX_READ:
            vals = t.float().tolist() if t.dtype == lib.bfloat16 else t.tolist()
        else:
            vals = [t[(0,) * t.dim()].item(), t[tuple(s - 1 for s in t.shape)].item()]
        return head + (_nan_safe(vals),)
    if isinstance(obj, dict):
        return ('dict', type(obj).__name__, [(summarize(lib, k, depth + 1), summarize(lib, v, depth + 1))
                                            for k, v in obj.items()])
    if isinstance(obj, (list, tuple)) and not isinstance(obj, lib.Size):
        return (type(obj).__name__, [summarize(lib, x, depth + 1) for x in obj])
    if isinstance(obj, (set, frozenset)):
        return ('set', sorted(repr(summarize(lib, x, depth + 1)) for x in obj))
    if isinstance(obj, lib.Size):
        return ('Size', tuple(obj))
    if type(obj).__name__ in ('StorageType', '_StorageType'):   # torch's and wick's stand-ins for a legacy storage class
        return ('dtype', str(obj.dtype))
    if isinstance(obj, type):
        return ('class', obj.__qualname__)
    if isinstance(obj, (lib.dtype, lib.device)):
        return (type(obj).__name__, str(obj))
    if isinstance(obj, float) and obj != obj:
        return 'nan'
    if isinstance(obj, (int, float, complex, str, bytes, bytearray, bool)) or obj is None:
        return obj
    return ('object', type(obj).__name__)


def _nan_safe(v):
    if isinstance(v, list):
        return [_nan_safe(x) for x in v]
    return 'nan' if isinstance(v, float) and v != v else v


def outcome(lib, load):
    try:
        return ('ok', summarize(lib, load()))
    except RecursionError:
        return ('err', 'RecursionError', '')
    except Exception as e:   # noqa: BLE001 -- every exception is an outcome; only a crash is not
        return ('err', type(e).__name__, str(e)[:300])


# torch's C++ zip reader (miniz) refuses some damaged archives that Python's zipfile reads; wick's zipfile still
# checks every record's CRC, so what it loads is what was written. Counted apart, not failed.
ZIP_STRICT = 'PytorchStreamReader failed'


def compare(wick_out, ref_out):
    """'same', 'type' (both raised, other types), 'refused' (wick raised, ref loaded) or 'FAIL: ...'."""
    if ref_out is None:
        return 'same'
    if wick_out[0] == 'ok' and ref_out[0] == 'ok':
        if wick_out == ref_out:
            return 'same'
        if "'TypedStorage'" in repr(ref_out):   # a bare storage: torch's TypedStorage, wick's flat tensor
            return 'storage_object'
        return 'FAIL: loaded other values than the reference'
    if wick_out[0] == 'ok':
        if ref_out[2].startswith(ZIP_STRICT):
            return 'zip_lenient'
        return 'FAIL: wick loaded what the reference refused (%s: %s)' % (ref_out[1], ref_out[2][:120])
    if ref_out[0] == 'ok':
        return 'refused'
    return 'same' if wick_out[1] == ref_out[1] else 'type'


# ------------------------------------------------------------------------------------------------ checkpoints
def seed_checkpoints(torch):
    """Real torch.save files: made by torch now when it is importable, else the committed corpus."""
    if torch is None:
        import glob as g
        import os
        here = os.path.join(os.path.dirname(__file__), 'corpus')
        return [open(p, 'rb').read() for p in sorted(g.glob(os.path.join(here, '*.pt')))]
    return [_save(torch, o) for o in corpus_objects(torch)]


def corpus_objects(T):
    w = T.tensor([[1.5, -2.0, 0.25], [3.0, 0.5, -1.25]])
    lin = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.ReLU(), T.nn.Linear(2, 1))
    with T.no_grad():
        for i, p in enumerate(lin.parameters()):
            p.copy_(T.arange(p.numel(), dtype=T.float32).reshape(p.shape) * 0.5 - i)
    bn = T.nn.BatchNorm1d(2)
    return [lin.state_dict(), bn.state_dict(),
            {'w': w, 'view': w.t(), 'row': w[1], 'step': w[:, ::2], 'i64': T.tensor([1, -2, 3]),
             'u8': T.tensor([1, 255], dtype=T.uint8), 'b': T.tensor([True, False]),
             'f16': T.tensor([0.5, -1.5], dtype=T.float16), 'f64': T.tensor([1e-300, 2.5], dtype=T.float64),
             'scalar': T.tensor(3.5), 'empty': T.zeros(0, 3), 'p': T.nn.Parameter(T.tensor([1.0, 2.0])),
             'size': T.Size([2, 3]), 'nested': {'list': [1, 2.5, 'x', None, True], 'tuple': (1, (2, 3))}},
            [T.tensor([7, 8], dtype=T.int32), {'epoch': 3, 'lr': 0.1}]]


def _save(T, obj):
    buf = io.BytesIO()
    T.save(obj, buf)
    return buf.getvalue()


def _members(raw):
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        return [(n, z.read(n)) for n in z.namelist()]


def _rezip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_STORED) as z:
        for n, d in members:
            z.writestr(n, d)
    return buf.getvalue()


def _encode_int(v):
    b = pickle_bytes(v)   # b'\x80\x02' + LONG1 + b'.'
    return b[2:-1]


def mutate_pickle(rng, pkl):
    """Swap one to four opcodes' arguments (ints, strings, globals) for hostile ones, or drop / repeat opcodes."""
    ops = list(pickletools.genops(pkl))
    pieces = []
    for i, (op, arg, pos) in enumerate(ops):
        end = ops[i + 1][2] if i + 1 < len(ops) else len(pkl)
        pieces.append([op, arg, pkl[pos:end]])
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(pieces))
        op, arg, raw = pieces[i]
        kind = rng.random()
        if isinstance(arg, int) and not isinstance(arg, bool) and op.name not in ('PROTO', 'BINPUT', 'LONG_BINPUT',
                                                                                   'BINGET', 'LONG_BINGET') \
                and kind < 0.8:
            v = rng.choice(INTERESTING) if rng.random() < 0.8 else arg + rng.choice([-1, 1])
            pieces[i][2] = _encode_int(v)
        elif isinstance(arg, str) and op.name in ('BINUNICODE', 'SHORT_BINUNICODE') and kind < 0.6:
            s = rng.choice(['storage', '0', '1', 'cpu', 'cuda', 'meta', '', 'x' * 300, '../../etc/passwd',
                            arg + '\x00'])
            pieces[i][2] = P(pickle_bytes(s)[2:-1]).raw
        elif op.name == 'GLOBAL' and kind < 0.7:
            m, n = rng.choice(GLOBALS)
            pieces[i][2] = glob(m, n).raw
        elif kind < 0.85 and op.name != 'STOP':
            del pieces[i]
        else:
            pieces.insert(i, list(pieces[i]))
    return b''.join(p[2] for p in pieces)


def mutate_checkpoint(rng, raw):
    """One hostile variant of a real checkpoint."""
    r = rng.random()
    if r < 0.2:   # raw bytes of the zip
        b = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        if rng.random() < 0.3:
            b = b[:rng.randrange(len(b))]
        return bytes(b)
    members = _members(raw)
    if r < 0.8:   # the pickle
        members = [(n, mutate_pickle(rng, d) if n.endswith('/data.pkl') else d) for n, d in members]
    else:         # the records
        i = rng.randrange(len(members))
        n, d = members[i]
        c = rng.random()
        if n.endswith('/byteorder'):
            members[i] = (n, rng.choice([b'big', b'little', b'', b'middle', b'big\n']))
        elif c < 0.4:
            members[i] = (n, d[:rng.randrange(len(d) + 1)])
        elif c < 0.7:
            members[i] = (n, d + bytes(rng.randrange(1, 64)))
        else:
            del members[i]
    return _rezip(members)


# ------------------------------------------------------------------------------------------------ crafted pickles
def _geometry(rng):
    nd = rng.choice([0, 1, 1, 2, 2, 3, 4])
    pick = lambda: rng.choice(INTERESTING) if rng.random() < 0.3 else rng.randrange(0, 5)  # noqa: E731
    return rng.choice(INTERESTING[:8] + [rng.randrange(8)]), tuple(pick() for _ in range(nd)), \
        tuple(pick() for _ in range(nd + (rng.random() < 0.05)))


def random_object(rng, depth=0):
    r = rng.random()
    if depth > 4 or r < 0.25:
        return rng.choice([0, -1, 2 ** 70, 1.5, float('nan'), 'k', '', None, True, False, b'\x00\xff',
                           rng.choice(INTERESTING)])
    if r < 0.4:
        offset, size, stride = _geometry(rng)
        return tensor_ref(key=rng.choice(['0', '0', '1', 'missing']), storage_type=rng.choice(STORAGE_TYPES),
                          numel=rng.choice([4, 4, 0, 1, 2 ** 40]), offset=offset, size=size, stride=stride,
                          requires_grad=rng.random() < 0.1)
    if r < 0.5:
        return {random_key(rng): random_object(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if r < 0.6:
        return [random_object(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if r < 0.65:
        return tuple(random_object(rng, depth + 1) for _ in range(rng.randint(0, 3)))
    m, n = rng.choice(GLOBALS)
    g = glob(m, n)
    if r < 0.72:
        return g
    if r < 0.82:
        return call(g, *[random_object(rng, depth + 1) for _ in range(rng.randint(0, 3))])
    if r < 0.9:
        target = rng.choice([g, call(glob('collections', 'OrderedDict')), random_object(rng, depth + 1)])
        state = rng.choice([{'__len__': random_object(rng, depth + 1)}, (None, {'__eq__': g}),
                            {'x': random_object(rng, depth + 1)}, random_object(rng, depth + 1)])
        return build(target, state)
    if r < 0.95:
        return setitem(rng.choice([g, {}, [], call(glob('collections', 'OrderedDict'))]), random_key(rng),
                       random_object(rng, depth + 1))
    return P(bytes(rng.randrange(256) for _ in range(rng.randint(1, 6))))


def random_key(rng):
    return rng.choice(['w', 'b', '__len__', 'x', 0, 1])


def crafted_pickle(rng):
    obj = random_object(rng)
    raw = pickle_bytes(obj)
    if rng.random() < 0.1:   # a protocol other than 2, or no PROTO at all
        raw = rng.choice([b'', b'\x80\x04', b'\x80\x05']) + raw[2:]
    storages = {'0': bytes(rng.randrange(256) for _ in range(rng.choice([16, 16, 0, 3, 64]))),
                '1': bytes(8)}
    return ckpt(None, storages, raw_pkl=raw, byteorder=rng.choice(['little', 'little', 'big']))


def sandbox_intact(wick, saved):
    """The process-wide objects a hostile file once replaced are unchanged (checked after every load)."""
    return saved == _sandbox_state(wick)


def _sandbox_state(wick):
    from wick import serialization as S
    return (wick.Size.__dict__.get('__len__'), wick.Size.__len__, wick.device.__eq__, S._rebuild_tensor_v2.__defaults__,
            dict.__dict__.get('__setitem__'), len(wick.Size([2, 3])), wick.device('cpu') == wick.device('cpu'),
            list.append, tuple(sorted(map(str, S.get_safe_globals()))))


# ------------------------------------------------------------------------------------------------ safetensors
ST_DTYPES = ['F32', 'F64', 'F16', 'BF16', 'I64', 'I32', 'I16', 'I8', 'U8', 'BOOL', 'U16', 'F8_E4M3', 'XX', '', 5]


def seed_safetensors(rng):
    vals = struct.pack('<6f', 1.5, -2.0, 0.25, 3.0, 4.5, -6.0)
    header = {'a': {'dtype': 'F32', 'shape': [2, 3], 'data_offsets': [0, 24]},
              'b': {'dtype': 'I64', 'shape': [2], 'data_offsets': [24, 40]},
              'c': {'dtype': 'U8', 'shape': [0], 'data_offsets': [40, 40]},
              '__metadata__': {'format': 'pt'}}
    return header, vals + struct.pack('<2q', 5, -7)


def mutate_safetensors(rng):
    header, body = seed_safetensors(rng)
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(['a', 'b', 'c'])
        entry = header.get(name)
        r = rng.random()
        if entry is None or not isinstance(entry, dict):
            header[name] = rng.choice([None, [], 5, {'dtype': 'F32'}])
        elif r < 0.3:
            entry['shape'] = [rng.choice(INTERESTING) if rng.random() < 0.5 else rng.randrange(4)
                              for _ in range(rng.choice([0, 1, 2, 3]))]
        elif r < 0.6:
            entry['data_offsets'] = [rng.choice(INTERESTING + [rng.randrange(48)]) for _ in range(rng.choice([2, 2,
                                                                                                               1, 3]))]
        elif r < 0.75:
            entry['dtype'] = rng.choice(ST_DTYPES)
        elif r < 0.85:
            entry[rng.choice(['shape', 'data_offsets', 'dtype'])] = rng.choice([None, 'x', 2.5, [1.5], {}, -1])
        else:
            del header[name]
    head = json.dumps(header).encode()
    if rng.random() < 0.1:
        head = head[:rng.randrange(len(head))]
    n = len(head)
    if rng.random() < 0.15:
        n = rng.choice([0, 1, n + 1, n - 1, len(head) + len(body) + 1, 2 ** 40, 2 ** 64 - 1])
    raw = struct.pack('<Q', n) + head + body
    if rng.random() < 0.1:
        raw = raw[:rng.randrange(len(raw))]
    return raw

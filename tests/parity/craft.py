"""Hand-made torch.save files and pickles, byte for byte, without torch or wick (for the safety cases and fuzzers).

A crafted file is loaded by both libraries from the same bytes, so a hostile geometry, a big-endian archive or a
pickle that calls what it should not is checked against real torch's own loader.

    ckpt({'x': tensor_ref(...)})       -> bytes of a zip checkpoint (archive/data.pkl, data/0, version, byteorder)
    tensor_ref(key, 'FloatStorage', numel, offset, size, stride)
    glob(module, name), call(fn, *args), build(obj, state), op(raw) are pickle building blocks.
"""
import io
import pickle
import struct
import zipfile


class P:
    """A raw pickle fragment."""

    def __init__(self, raw):
        self.raw = raw


def _enc(v):
    if isinstance(v, P):
        return v.raw
    if v is None:
        return b'N'
    if v is True:
        return b'\x88'
    if v is False:
        return b'\x89'
    if isinstance(v, int):
        b = pickle.encode_long(v)
        return b'\x8a' + bytes([len(b)]) + b
    if isinstance(v, float):
        return b'G' + struct.pack('>d', v)
    if isinstance(v, str):
        b = v.encode('utf-8')
        return b'X' + struct.pack('<I', len(b)) + b
    if isinstance(v, bytes):
        return b'C' + bytes([len(v)]) + v if len(v) < 256 else b'B' + struct.pack('<I', len(v)) + v
    if isinstance(v, tuple):
        return b'(' + b''.join(_enc(x) for x in v) + b't'
    if isinstance(v, list):
        return b']' + (b'(' + b''.join(_enc(x) for x in v) + b'e' if v else b'')
    if isinstance(v, dict):
        return b'}' + (b'(' + b''.join(_enc(k) + _enc(x) for k, x in v.items()) + b'u' if v else b'')
    raise TypeError(type(v))


def glob(module, name):
    return P(b'c' + module.encode() + b'\n' + name.encode() + b'\n')


def call(fn, *args):
    return P(_enc(fn) + _enc(tuple(args)) + b'R')


def build(obj, state):
    """obj, then pickle's BUILD with state (obj.__setstate__(state) or obj.__dict__.update(state))."""
    return P(_enc(obj) + _enc(state) + b'b')


def setitem(obj, key, value):
    return P(_enc(obj) + _enc(key) + _enc(value) + b's')


def pickle_bytes(obj):
    return b'\x80\x02' + _enc(obj) + b'.'


def storage(key, storage_type='FloatStorage', numel=4, location='cpu'):
    """The persistent id torch writes for a storage: ('storage', torch.<type>, key, location, numel)."""
    return P(_enc(('storage', glob('torch', storage_type), key, location, numel)) + b'Q')


def tensor_ref(key='0', storage_type='FloatStorage', numel=4, offset=0, size=(4,), stride=(1,), requires_grad=False):
    return call(glob('torch._utils', '_rebuild_tensor_v2'), storage(key, storage_type, numel), offset, tuple(size),
                tuple(stride), requires_grad, call(glob('collections', 'OrderedDict')))


def ckpt(obj, storages=None, byteorder='little', prefix='archive', raw_pkl=None):
    """A zip checkpoint as torch.save writes it; storages maps key -> bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_STORED) as z:
        z.writestr(prefix + '/data.pkl', raw_pkl if raw_pkl is not None else pickle_bytes(obj))
        if byteorder is not None:
            z.writestr(prefix + '/byteorder', byteorder)
        for k, v in (storages or {}).items():
            z.writestr(prefix + '/data/' + k, v)
        z.writestr(prefix + '/version', '3\n')
        z.writestr(prefix + '/.data/serialization_id', '0' * 40)
    return buf.getvalue()


def f32(*vals, big=False):
    return struct.pack(('>' if big else '<') + 'f' * len(vals), *vals)

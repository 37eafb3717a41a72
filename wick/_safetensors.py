"""The safetensors format: save_safetensors / load_safetensors.

A file is an 8-byte little-endian header length N, N bytes of JSON header, then the tensors' bytes:
    {"__metadata__": {"k": "v"}, "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]}, ...}

Note [Reading safetensors as the reference does]
The reader follows the `safetensors` package (the Rust crate under it, 0.8) exactly, so a file loads here if
and only if it loads there, and a refusal is the package's one exception type, SafetensorError, with its text
("Error while deserializing header: ..."): the header at most 100,000,000 bytes; UTF-8; JSON parsed with
serde_json's grammar and its error texts and positions ("... at line L column C"); the tensor entries read as
serde reads its `TensorInfo` (a map or a 3-element sequence; dtype a known variant; shape unsigned integers;
data_offsets two unsigned integers), `__metadata__` null or a map of strings; then, in order of data_offsets,
each entry starts where the previous one ended (no overlap, no hole), its byte count is its shape times its
dtype's size (overflow-checked), and the last one ends at the end of the file. Duplicate keys: the last one
wins, as serde's map. Tensors come back in the order of their offsets, as the package's load_file."""
import json
import struct
from collections import OrderedDict

from . import _C
from ._tensor import Tensor

__all__ = ['save_safetensors', 'load_safetensors', 'SafetensorError']

_ST_CODES = {'float32': 'F32', 'float64': 'F64', 'float16': 'F16', 'bfloat16': 'BF16', 'int64': 'I64',
             'int32': 'I32', 'int16': 'I16', 'int8': 'I8', 'uint8': 'U8', 'bool': 'BOOL'}
_ST_DTYPES = {v: getattr(_C, k) for k, v in _ST_CODES.items()}
# the crate's Dtype variants in declaration order (the package 0.8's "expected one of" text) and their bits
_VARIANTS = (('BOOL', 8), ('F4', 4), ('F6_E2M3', 6), ('F6_E3M2', 6), ('U8', 8), ('I8', 8), ('F8_E5M2', 8),
             ('F8_E4M3', 8), ('F8_E8M0', 8), ('F8_E4M3FNUZ', 8), ('F8_E5M2FNUZ', 8), ('I16', 16), ('U16', 16), ('F16', 16), ('BF16', 16), ('I32', 32),
             ('U32', 32), ('F32', 32), ('C64', 64), ('F64', 64), ('I64', 64), ('U64', 64))
_BITS = dict(_VARIANTS)
_MAX_HEADER = 100_000_000
_USIZE_MAX = 2 ** 64 - 1


class SafetensorError(Exception):
    """The safetensors package's error type (safetensors_rust.SafetensorError)."""


def save_safetensors(tensors, filename, metadata=None):
    """Writes a dict of tensors in the safetensors format (8-byte little-endian header length, JSON header,
    then each tensor's row-major bytes)."""
    header, blobs, offset = {}, [], 0
    if metadata is not None:
        header['__metadata__'] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        t = tensors[name]
        if not isinstance(t, Tensor):
            raise TypeError('save_safetensors: %r is not a tensor' % name)
        data = _C._contiguous_bytes(t)
        code = _ST_CODES[str(t.dtype).split('.')[1]]
        header[name] = {'dtype': code, 'shape': list(t.shape), 'data_offsets': [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    head = json.dumps(header, separators=(',', ':')).encode('utf-8')
    head += b' ' * ((8 - len(head) % 8) % 8)
    with open(filename, 'wb') as fh:
        fh.write(struct.pack('<Q', len(head)))
        fh.write(head)
        for b in blobs:
            fh.write(b)


# ---- JSON as serde_json reads it: values keep their kind (u64 / i64 / f64 are serde's three numbers) ----
class _JsonError(Exception):
    def __init__(self, text, pos):
        super().__init__(text)
        self.text, self.pos = text, pos


class _Map(list):
    """A JSON object as (key, value) pairs in file order (serde sees duplicates; a dict would drop them)."""


class _Float(float):
    pass


class _Parser:
    def __init__(self, b):
        self.b, self.i, self.depth = b, 0, 0

    def position(self, i):
        line_start = self.b.rfind(b'\n', 0, i) + 1
        return self.b.count(b'\n', 0, line_start) + 1, i - line_start

    def error(self, text):  # at the last byte read
        return _JsonError(text, self.position(self.i))

    def peek_error(self, text):  # at the next byte
        return _JsonError(text, self.position(min(len(self.b), self.i + 1)))

    def peek_ws(self):
        b, n = self.b, len(self.b)
        while self.i < n and b[self.i] in b' \n\t\r':
            self.i += 1
        return b[self.i] if self.i < n else None

    def ident(self, rest):
        for c in rest:
            if self.i >= len(self.b):
                raise self.error('EOF while parsing a value')
            self.i += 1
            if self.b[self.i - 1] != c:
                raise self.error('expected ident')

    def number(self):
        b, n, start = self.b, len(self.b), self.i
        neg = b[self.i] == 0x2d
        if neg:
            self.i += 1
        if self.i >= n:
            raise self.error('EOF while parsing a value')
        c = b[self.i]
        self.i += 1
        if c == 0x30:
            if self.i < n and 0x30 <= b[self.i] <= 0x39:
                raise self.peek_error('invalid number')
        elif not 0x31 <= c <= 0x39:
            raise self.error('invalid number')
        while self.i < n and 0x30 <= b[self.i] <= 0x39:
            self.i += 1
        is_float = False
        if self.i < n and b[self.i] == 0x2e:
            is_float = True
            self.i += 1
            if self.i >= n:
                raise self.error('EOF while parsing a value')
            if not 0x30 <= b[self.i] <= 0x39:
                self.i += 1
                raise self.error('invalid number')
            while self.i < n and 0x30 <= b[self.i] <= 0x39:
                self.i += 1
        if self.i < n and b[self.i] in b'eE':
            is_float = True
            self.i += 1
            if self.i < n and b[self.i] in b'+-':
                self.i += 1
            if self.i >= n:
                raise self.error('EOF while parsing a value')
            if not 0x30 <= b[self.i] <= 0x39:
                self.i += 1
                raise self.error('invalid number')
            while self.i < n and 0x30 <= b[self.i] <= 0x39:
                self.i += 1
        text = b[start:self.i].decode()
        if not is_float:
            v = int(text)
            if 0 <= v <= _USIZE_MAX and not neg:
                return v
            if -2 ** 63 <= v < 0:
                return v  # "-0" is serde_json's f64 -0.0, below
        v = float(text)
        if v in (float('inf'), float('-inf')):
            raise self.error('number out of range')
        return _Float(v)

    def string(self):  # at the opening quote
        b, n = self.b, len(self.b)
        self.i += 1
        out = []
        start = self.i
        while True:
            if self.i >= n:
                raise self.error('EOF while parsing a string')
            c = b[self.i]
            if c == 0x22:
                out.append(b[start:self.i].decode('utf-8'))
                self.i += 1
                return ''.join(out)
            if c < 0x20:
                self.i += 1
                raise self.error('control character (\\u0000-\\u001F) found while parsing a string')
            if c != 0x5c:
                self.i += 1
                continue
            out.append(b[start:self.i].decode('utf-8'))
            self.i += 1
            if self.i >= n:
                raise self.error('EOF while parsing a string')
            e = b[self.i]
            self.i += 1
            simple = {0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t'}
            if e in simple:
                out.append(simple[e])
            elif e == 0x75:
                out.append(self.unicode_escape())
            else:
                raise self.error('invalid escape')
            start = self.i

    def hex4(self):
        if self.i + 4 > len(self.b):
            self.i = len(self.b)
            raise self.error('EOF while parsing a string')
        v = 0
        for _ in range(4):
            c = chr(self.b[self.i])
            self.i += 1
            if c not in '0123456789abcdefABCDEF':
                raise self.error('invalid escape')
            v = v * 16 + int(c, 16)
        return v

    def unicode_escape(self):
        v = self.hex4()
        if 0xDC00 <= v <= 0xDFFF:
            raise self.error('lone leading surrogate in hex escape')
        if not 0xD800 <= v <= 0xDBFF:
            return chr(v)
        if self.b[self.i:self.i + 2] != b'\\u':
            if self.i + 2 > len(self.b):
                self.i = len(self.b)
                raise self.error('EOF while parsing a string')
            self.i += 2 if self.b[self.i:self.i + 1] == b'\\' else 1
            raise self.error('unexpected end of hex escape')
        self.i += 2
        lo = self.hex4()
        if not 0xDC00 <= lo <= 0xDFFF:
            raise self.error('lone leading surrogate in hex escape')
        return chr(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00))

    def value(self):
        """Any JSON value (serde's Content)."""
        c = self.peek_ws()
        if c is None:
            raise self.error('EOF while parsing a value')
        if c == 0x6e:
            self.i += 1
            self.ident(b'ull')
            return None
        if c == 0x74:
            self.i += 1
            self.ident(b'rue')
            return True
        if c == 0x66:
            self.i += 1
            self.ident(b'alse')
            return False
        if c == 0x2d or 0x30 <= c <= 0x39:
            return self.number()
        if c == 0x22:
            return self.string()
        if c == 0x5b:
            self.enter()
            out = []
            first = True
            while True:  # serde_json's SeqAccess, then end_seq
                c = self.peek_ws()
                if c == 0x5d:
                    self.i += 1
                    break
                if c == 0x2c and not first:
                    self.i += 1
                    c = self.peek_ws()
                elif c is None:
                    raise self.peek_error('EOF while parsing a list')
                elif first:
                    first = False
                else:
                    raise self.peek_error('expected `,` or `]`')
                if c == 0x5d:
                    raise self.peek_error('trailing comma')
                if c is None:
                    raise self.peek_error('EOF while parsing a value')
                out.append(self.value())
            self.depth -= 1
            return out
        if c == 0x7b:
            self.enter()
            out = _Map()
            for k in self.keys():
                self.colon()
                out.append((k, self.value()))
            self.depth -= 1
            return out
        raise self.peek_error('expected value')

    def enter(self):
        if self.depth + 1 >= 128:
            raise self.peek_error('recursion limit exceeded')
        self.depth += 1
        self.i += 1

    def keys(self):
        """serde_json's MapAccess after the `{`: yields each key (the caller reads the colon), then reads the `}`."""
        first = True
        while True:
            c = self.peek_ws()
            if c == 0x7d:
                self.i += 1
                return
            if c == 0x2c and not first:
                self.i += 1
                c = self.peek_ws()
            elif c is None:
                raise self.peek_error('EOF while parsing an object')
            elif first:
                first = False
            else:
                raise self.peek_error('expected `,` or `}`')
            if c == 0x22:
                yield self.string()
            elif c == 0x7d:
                raise self.peek_error('trailing comma')
            elif c is None:
                raise self.peek_error('EOF while parsing a value')
            else:
                raise self.peek_error('key must be a string')

    def colon(self):
        c = self.peek_ws()
        if c == 0x3a:
            self.i += 1
        elif c is None:
            raise self.peek_error('EOF while parsing an object')
        else:
            raise self.peek_error('expected `:`')


def _unexpected(v):
    """serde's Unexpected, as serde_json writes it."""
    if v is None:
        return 'null'
    if isinstance(v, bool):
        return 'boolean `%s`' % ('true' if v else 'false')
    if isinstance(v, _Float):
        return 'floating point `%s`' % _ryu(float(v))
    if isinstance(v, int):
        return 'integer `%d`' % v
    if isinstance(v, str):
        return 'string %s' % json.dumps(v, ensure_ascii=False)
    if isinstance(v, _Map):
        return 'map'
    return 'sequence'


def _ryu(f):
    """A float as Rust's ryu writes it: plain from 1e-5 to below 1e16 (with `.0` when integral), else `1.5e-7`, `1e+16`
    (the package's text, checked live)."""
    r = repr(f)
    if 'e' not in r:
        return r
    m, e = r.split('e')
    e = int(e)
    if e == -5:
        digits = m.lstrip('-').replace('.', '')
        return ('-' if f < 0 else '') + '0.0000' + digits
    return m + ('e+%d' % e if e > 0 else 'e%d' % e)


class _DeError(Exception):
    pass


def _usize(v):
    if isinstance(v, int) and not isinstance(v, (bool, _Float)):
        if v < 0:
            raise _DeError('invalid value: integer `%d`, expected usize' % v)
        return v
    raise _DeError('invalid type: %s, expected usize' % _unexpected(v))


def _dtype(v):
    if isinstance(v, str):
        if v not in _BITS:
            raise _DeError('unknown variant `%s`, expected one of %s' % (v, ', '.join('`%s`' % k for k, _ in _VARIANTS)))
        return v
    if isinstance(v, _Map):  # {"F32": null}: serde's externally tagged form of a unit variant
        if len(v) != 1:
            raise _DeError('invalid value: map, expected map with a single key')
        k, val = v[0]
        if k not in _BITS:
            raise _DeError('unknown variant `%s`, expected one of %s' % (k, ', '.join('`%s`' % k for k, _ in _VARIANTS)))
        if val is not None:
            raise _DeError('invalid type: %s, expected unit' % _unexpected(val))
        return k
    raise _DeError('invalid type: %s, expected string or map' % _unexpected(v))


def _shape(v):
    if not isinstance(v, list) or isinstance(v, _Map):
        raise _DeError('invalid type: %s, expected a sequence' % _unexpected(v))
    return [_usize(s) for s in v]


def _offsets(v):
    if not isinstance(v, list) or isinstance(v, _Map):
        raise _DeError('invalid type: %s, expected a tuple of size 2' % _unexpected(v))
    out = []
    for i in range(2):
        if i >= len(v):
            raise _DeError('invalid length %d, expected a tuple of size 2' % i)
        out.append(_usize(v[i]))
    if len(v) > 2:
        raise _DeError('invalid length %d, expected 2 elements in sequence' % len(v))
    return tuple(out)


_FIELDS = (('dtype', _dtype), ('shape', _shape), ('data_offsets', _offsets))


def _tensor_info(v):
    got = {}
    if isinstance(v, _Map):
        for k, val in v:
            for name, read in _FIELDS:
                if k == name:
                    if name in got:
                        raise _DeError('duplicate field `%s`' % name)
                    got[name] = read(val)
        for name, _ in _FIELDS:
            if name not in got:
                raise _DeError('missing field `%s`' % name)
    elif isinstance(v, list):
        for i, (name, read) in enumerate(_FIELDS):
            if i >= len(v):
                raise _DeError('invalid length %d, expected struct TensorInfo with 3 elements' % i)
            got[name] = read(v[i])
        if len(v) > 3:
            raise _DeError('invalid length %d, expected 3 elements in sequence' % len(v))
    else:
        raise _DeError('invalid type: %s, expected struct TensorInfo' % _unexpected(v))
    return got['dtype'], got['shape'], got['data_offsets']


def _header(b):
    """(metadata, {name: (dtype, shape, (begin, end))}) as the crate's HashMetadata reads the header's JSON."""
    p = _Parser(b)
    c = p.peek_ws()
    if c != 0x7b:
        _type_error_at(p, 'struct HashMetadata')
    p.enter()
    metadata, seen_meta, collected = None, False, []
    try:
        for k in p.keys():
            if k == '__metadata__':  # a field of the struct: read from the stream
                if seen_meta:
                    raise _DeError('duplicate field `__metadata__`')
                seen_meta = True
                p.colon()
                metadata = _metadata(p)
            else:  # the flattened map's entries: kept as values, read as TensorInfo after the `}`
                p.colon()
                collected.append((k, p.value()))
    except _DeError as e:  # placed where serde_json's end_map leaves the reader
        if p.peek_ws() == 0x7d:
            p.i += 1
        raise _JsonError(str(e), p.position(p.i)) from None
    tensors = {}
    try:
        for k, v in collected:
            tensors[k] = _tensor_info(v)
    except _DeError as e:  # after the `}`
        raise _JsonError(str(e), p.position(p.i)) from None
    p.depth -= 1
    if p.peek_ws() is not None:
        raise p.peek_error('trailing characters')
    return metadata, tensors


def _metadata(p):
    """Option<HashMap<String, String>>, read from the stream (its errors are placed where they occur)."""
    c = p.peek_ws()
    if c == 0x6e:
        p.value()
        return None
    if c != 0x7b:
        _type_error_at(p, 'a map')
    p.enter()
    out = {}
    for k in p.keys():
        p.colon()
        if p.peek_ws() != 0x22:
            _type_error_at(p, 'a string')
        out[k] = p.string()
    p.depth -= 1
    return out


def _type_error_at(p, expected):
    """serde_json's peek_invalid_type: reads a scalar, names a sequence or map without reading it."""
    c = p.peek_ws()
    if c is None:
        raise p.peek_error('EOF while parsing a value')
    if c in (0x5b, 0x7b):
        raise _JsonError('invalid type: %s, expected %s' % ('sequence' if c == 0x5b else 'map', expected),
                         p.position(p.i))
    v = p.value()
    raise _JsonError('invalid type: %s, expected %s' % (_unexpected(v), expected), p.position(p.i))


def _fail(text):
    return SafetensorError('Error while deserializing header: ' + text)


def load_safetensors(filename):
    with open(filename, 'rb') as fh:
        raw = fh.read()
    if len(raw) < 8:
        raise _fail('header too small')
    n = struct.unpack('<Q', raw[:8])[0]
    if n > _MAX_HEADER:
        raise _fail('header too large')
    if 8 + n > len(raw):
        raise _fail('invalid header length')
    head = raw[8:8 + n]
    try:
        head.decode('utf-8')
    except UnicodeDecodeError as e:
        if e.reason == 'unexpected end of data':
            raise _fail('invalid UTF-8 in header: incomplete utf-8 byte sequence from index %d' % e.start) from None
        raise _fail('invalid UTF-8 in header: invalid utf-8 sequence of %d bytes from index %d'
                    % (e.end - e.start, e.start)) from None
    try:
        _, tensors = _header(head)
    except _JsonError as e:
        raise _fail('invalid JSON in header: %s at line %d column %d' % (e.text, e.pos[0], e.pos[1])) from None
    # the crate's Metadata::validate, over the entries sorted by their offsets
    order = sorted(tensors.items(), key=lambda kv: kv[1][2])
    start = 0
    for name, (dtype, shape, (s, e)) in order:
        if s != start or e < s:
            raise _fail('invalid offset for tensor `%s`' % name)
        start = e
        numel = 1
        for d in shape:
            numel *= d
            if numel > _USIZE_MAX:
                raise _fail('overflow computing buffer size from shape and/or element type')
        bits = numel * _BITS[dtype]
        if bits > _USIZE_MAX:
            raise _fail('overflow computing buffer size from shape and/or element type')
        if bits % 8:
            raise _fail('The slice is slicing for subbytes dtypes, and the slice does not end up at a byte '
                        'boundary, this is invalid.')
        if e - s != bits // 8:
            raise _fail('invalid shape, data type, or offset for tensor')
    if start + 8 + n != len(raw):
        raise _fail('incomplete metadata, file not fully covered')
    body = memoryview(raw)[8 + n:]
    out = OrderedDict()
    for name, (dtype, shape, (s, e)) in order:
        dt = _ST_DTYPES.get(dtype)
        if dt is None:
            raise NotImplementedError('load_safetensors: the safetensors dtype %s (tensor %r) is not supported '
                                      'yet' % (dtype, name))
        flat = _C._tensor_from_bytes(body[s:e], dt)
        strides, acc = [], 1
        for d in reversed(shape):
            strides.append(acc)
            acc *= max(d, 1)
        out[name] = _C._alias(flat, 0, tuple(shape), tuple(reversed(strides)))
    return out

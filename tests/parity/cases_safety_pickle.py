"""torch.load(weights_only=True) is torch's restricted unpickler (issue 16, reproducer 4) and big-endian archives
load byte-swapped (reproducer 5). Every file is crafted byte for byte in craft.py and loaded by both libraries."""
import io
import struct

from .harness import *
from .craft import P, _enc, build, call, ckpt, f32, glob, pickle_bytes, setitem, storage, tensor_ref

S4 = {'0': f32(1.5, -2.0, 0.25, 3.0)}
OD = call(glob('collections', 'OrderedDict'))


def _load(T, obj, storages=S4, **kw):
    return T.load(io.BytesIO(ckpt(obj, storages)), **kw)


def _raw(T, raw, **kw):
    return T.load(io.BytesIO(ckpt(None, S4, raw_pkl=raw)), **kw)


def _size_len_intact(T, obj):
    """Loads obj (which must be refused), then shows that torch.Size still works: the file changed nothing."""
    try:
        _load(T, obj)
        loaded = 'loaded'
    except Exception as e:
        loaded = type(e).__name__
    return loaded, len(T.Size([2, 3])), T.device('cpu') == T.device('cpu')


# ---- BUILD / SETITEM on classes and functions: refused (the 60-byte file replaced torch.Size.__len__) ----------
error_case("build_on_class_Size", lambda T: _load(T, build(glob('torch', 'Size'), (None, {'__len__': OD}))))
error_case("build_on_class_device", lambda T: _load(T, build(glob('torch', 'device'), (None, {'__eq__': OD}))))
error_case("build_on_function_defaults", lambda T: _load(
    T, build(glob('torch._utils', '_rebuild_tensor_v2'), (None, {'__defaults__': (1, 2)}))))
error_case("build_on_dict_class", lambda T: _load(T, build(glob('collections', 'OrderedDict'), {'x': 1})))
error_case("setitem_on_class", lambda T: _load(T, setitem(glob('torch', 'Size'), '__len__', OD)))
error_case("setitem_on_list", lambda T: _load(T, setitem([], 0, 1)))
error_case("append_to_dict", lambda T: _load(T, P(b'}' + b'K\x01' + b'a')))
case("refused_build_changes_nothing", lambda T: _size_len_intact(
    T, build(glob('torch', 'Size'), (None, {'__len__': OD}))))
case("build_ordereddict_instance", lambda T: (lambda d: (dict(d), d._metadata))(
    _load(T, setitem(build(OD, {'_metadata': {'': {'version': 1}}}), 'w', tensor_ref()))))

# ---- globals: only the allowlist; blocked modules; builtins named as torch names them ------------------------
error_case("global_os_system", lambda T: _load(T, call(glob('os', 'system'), 'true')))
error_case("global_posix_system", lambda T: _load(T, call(glob('posix', 'system'), 'true')))
error_case("global_sys_exit", lambda T: _load(T, glob('sys', 'exit')))
error_case("global_builtins_eval", lambda T: _load(T, call(glob('builtins', 'eval'), '1+1')))
error_case("global_py2_builtin_getattr", lambda T: _load(T, glob('__builtin__', 'getattr')))
error_case("global_subprocess", lambda T: _load(T, call(glob('subprocess', 'check_output'), ('true',))))
error_case("global_torch_private", lambda T: _load(T, glob('torch.serialization', 'load')))
error_case("global_numpy", lambda T: _load(T, glob('numpy', 'ndarray')))
case("global_allowed_ok", lambda T: (lambda d: (sorted(d.pop('set')), d))(_load(T, {'s': call(glob('torch', 'Size'), [2, 3]),
                                                   'd': call(glob('torch', 'device'), 'cpu'),
                                                   'set': call(glob('builtins', 'set'), [3]),
                                                   'c': call(glob('builtins', 'complex'), 1.5, -2.0),
                                                   'od': OD, 'x': tensor_ref(size=(2, 2), stride=(2, 1))})))
case("global_weights_only_false", lambda T: _load(T, call(glob('builtins', 'abs'), -3), weights_only=False))
error_case("reduce_non_callable_allowed", lambda T: _load(T, call(glob('torch', 'float32'), 1)),
           match=r"object is not callable")
error_case("newobj_unallowed", lambda T: _load(T, P(b'X\x03\x00\x00\x00abc' + b')' + b'\x81')),
           match=r"Can only create new object for nn.Parameter or classes allowlisted via `add_safe_globals` but got")
error_case("persid_not_storage", lambda T: _load(T, P(b'X\x04\x00\x00\x00evil' + b'\x85Q')))
error_case("persid_not_tuple", lambda T: _load(T, P(b'X\x04\x00\x00\x00evil' + b'Q')))

# ---- opcodes outside torch's protocol-2 subset ------------------------------------------------------------------
error_case("opcode_inst", lambda T: _raw(T, b'\x80\x02(ios\nsystem\nX\x04\x00\x00\x00true.'))
error_case("opcode_stack_global", lambda T: _raw(T, b'\x80\x02X\x02\x00\x00\x00osX\x06\x00\x00\x00system\x93.'))
error_case("opcode_obj", lambda T: _raw(T, b'\x80\x02(cbuiltins\nobject\no.'))
error_case("opcode_ext1", lambda T: _raw(T, b'\x80\x02\x82\x01.'))
error_case("truncated_pickle", lambda T: _raw(T, b'\x80\x02}q\x00(X\x01\x00\x00\x00x'))
error_case("empty_pickle", lambda T: _raw(T, b''))
error_case("stack_underflow", lambda T: _raw(T, b'\x80\x02t.'))
error_case("memo_missing", lambda T: _raw(T, b'\x80\x02h\x05.'))
case("protocol_4_warns", lambda T: _raw(T, b'\x80\x04K\x07.'), warns=True)


# ---- add_safe_globals / safe_globals: the way out named in the message ------------------------------------------
class Point:
    def __init__(self, x=0):
        self.x = x


Point.__module__ = 'tests.parity.cases_safety_pickle'
POINT = call(glob('tests.parity.cases_safety_pickle', 'Point'), 5)


def _with_safe(T, obj, extra=()):
    with T.serialization.safe_globals([Point] + list(extra)):
        r = _load(T, obj)
    return r


error_case("user_class_refused", lambda T: _load(T, POINT))
case("user_class_safe_globals", lambda T: _with_safe(T, POINT).x)
case("user_class_build_allowed", lambda T: vars(_with_safe(T, build(POINT, {'y': 2.5}))))
case("user_class_slotstate", lambda T: vars(_with_safe(T, build(POINT, (None, {'z': 'q'})))))
case("safe_globals_restored", lambda T: (_with_safe(T, POINT).x, _try_load(T, POINT)))


def _try_load(T, obj):
    try:
        _load(T, obj)
        return 'loaded'
    except Exception as e:
        return type(e).__name__


# ---- torch.load's arguments around weights_only -----------------------------------------------------------------
import pickle as _pickle  # noqa: E402  (the module handed to torch.load, not a library)
error_case("pickle_module_with_weights_only", lambda T: _load(T, {'x': tensor_ref()}, pickle_module=_pickle,
                                                              weights_only=True))
case("pickle_module_alone", lambda T: _load(T, {'x': tensor_ref()}, pickle_module=_pickle))
case("pickle_load_args_warns", lambda T: _load(T, {'x': tensor_ref()}, encoding='latin1'), warns=True)
case("weights_only_false_no_warning", lambda T: _load(T, {'x': tensor_ref()}, weights_only=False), warns=True)


# ---- big-endian archives (archive/byteorder = big): byte-swapped on load -----------------------------------------
def _be(T, fmt, vals, stype, size=None, **kw):
    n = len(vals)
    blob = ckpt({'x': tensor_ref(storage_type=stype, numel=n, size=size or (n,), stride=(1,) if size is None else
                                 kw.pop('stride'), **kw)}, {'0': struct.pack('>' + fmt * n, *vals)}, byteorder='big')
    return T.load(io.BytesIO(blob))['x']


case("big_endian_float32", lambda T: _be(T, 'f', [1.5, -2.0, 0.25, 3e-5], 'FloatStorage'))
case("big_endian_float64", lambda T: _be(T, 'd', [1.5, -2.0, 1e300], 'DoubleStorage'))
case("big_endian_float16", lambda T: _be(T, 'e', [1.5, -2.0, 0.25], 'HalfStorage'))
case("big_endian_int64", lambda T: _be(T, 'q', [5, -7, 2 ** 40 + 3], 'LongStorage'))
case("big_endian_int32", lambda T: _be(T, 'i', [5, -7, 2 ** 30 + 3], 'IntStorage'))
case("big_endian_int16", lambda T: _be(T, 'h', [5, -7, 300], 'ShortStorage'))
case("big_endian_uint8", lambda T: _be(T, 'B', [5, 7, 200], 'ByteStorage'))
case("big_endian_bool", lambda T: _be(T, '?', [True, False, True], 'BoolStorage'))
case("big_endian_view", lambda T: _be(T, 'i', [5, -7, 9, 11, 13, 15], 'IntStorage', size=(2, 2), stride=(1, 3),
                                      offset=1))
case("big_endian_shared_storage", lambda T: T.load(io.BytesIO(ckpt(
    {'a': tensor_ref(storage_type='LongStorage', numel=3, size=(3,)),
     'b': tensor_ref(storage_type='LongStorage', numel=3, size=(2,), offset=1)},
    {'0': struct.pack('>3q', 5, -7, 9)}, byteorder='big'))))
case("little_endian_explicit", lambda T: T.load(io.BytesIO(ckpt(
    {'x': tensor_ref(storage_type='IntStorage', numel=2, size=(2,))}, {'0': struct.pack('<2i', 5, -7)},
    byteorder='little')))['x'])
case("no_byteorder_record", lambda T: T.load(io.BytesIO(ckpt({'x': tensor_ref()}, S4, byteorder=None)))['x'])
error_case("unknown_byteorder", lambda T: T.load(io.BytesIO(ckpt({'x': tensor_ref()}, S4, byteorder='middle'))))
error_case("record_size_mismatch", lambda T: _load(T, {'x': tensor_ref(numel=100)}))
error_case("record_missing", lambda T: _load(T, {'x': tensor_ref()}, storages={}))



# ---- persistent ids and rebuild arguments checked as torch's persistent_load and Tensor.set_ (fuzzer finds, seed 7)
def _pid(t):
    return P(_enc(t) + b'Q')


def _rebuild(st, off=0, size=(4,), stride=(1,)):
    return call(glob('torch._utils', '_rebuild_tensor_v2'), st, off, size, stride, False, OD)


_FS = glob('torch', 'FloatStorage')
_SET_ = r"^set_\(\) received an invalid combination of arguments - got \(torch\.storage\.UntypedStorage, "
error_case("storage_type_is_a_dtype", lambda T: _load(T, tensor_ref(storage_type='float32')))
error_case("persid_short", lambda T: _load(T, _pid(('storage', _FS, '0', 'cpu'))))
error_case("persid_empty_tuple", lambda T: _load(T, _pid(())))
error_case("persid_location_int", lambda T: _load(T, _rebuild(storage('0', location=0))))
error_case("persid_numel_float", lambda T: _load(T, _rebuild(storage('0', numel=4.0))),
           match=r"^get_storage_from_record\(\): incompatible function arguments")
error_case("persid_numel_negative", lambda T: _load(T, _rebuild(storage('0', numel=-4))),
           match=r"^get_storage_from_record\(\): incompatible function arguments")
error_case("persid_numel_str", lambda T: _load(T, _rebuild(storage('0', numel='4'))),
           match=r"^get_storage_from_record\(\): incompatible function arguments")
error_case("persid_numel_huge", lambda T: _load(T, _rebuild(storage('0', numel=2 ** 62))),
           match=r"^get_storage_from_record\(\): incompatible function arguments")
case("persid_key_int", lambda T: _load(T, _rebuild(storage(0))))
error_case("rebuild_size_float", lambda T: _load(T, _rebuild(storage('0'), size=(4.0,))), match=_SET_ + "int, tuple")
error_case("rebuild_stride_float", lambda T: _load(T, _rebuild(storage('0'), stride=(1.0,))),
           match=_SET_ + "int, tuple, tuple")
error_case("rebuild_size_bool", lambda T: _load(T, _rebuild(storage('0'), size=(True,))), match=_SET_ + "int, tuple")
error_case("rebuild_size_none", lambda T: _load(T, _rebuild(storage('0'), size=None)), match=_SET_ + "int, NoneType")
error_case("rebuild_size_int", lambda T: _load(T, _rebuild(storage('0'), size=4)), match=_SET_ + "int, int")
error_case("rebuild_offset_float", lambda T: _load(T, _rebuild(storage('0'), off=0.0)), match=_SET_ + "float, tuple")
error_case("rebuild_offset_none", lambda T: _load(T, _rebuild(storage('0'), off=None)), match=_SET_ + "NoneType")
error_case("rebuild_offset_bool", lambda T: _load(T, _rebuild(storage('0'), off=False)), match=_SET_ + "bool")
error_case("rebuild_size_second_float", lambda T: _load(T, _rebuild(storage('0'), size=(2, 2.0), stride=(2, 1))))
case("rebuild_size_list", lambda T: _load(T, _rebuild(storage('0'), size=[2, 2], stride=[2, 1])))
case("rebuild_stride_none", lambda T: _load(T, _rebuild(storage('0'), size=(2, 2), stride=None)))
error_case("rebuild_stride_below_symint_range", lambda T: _load(T, _rebuild(storage('0'), size=(0,), stride=(-2 ** 63,))))
error_case("rebuild_size_below_symint_range", lambda T: _load(T, _rebuild(storage('0'), size=(-2 ** 62 - 1,))))
case("rebuild_stride_at_symint_bound", lambda T: _load(T, _rebuild(storage('0'), size=(0,), stride=(-2 ** 62,))))
error_case("rebuild_size_stride_lengths", lambda T: _load(T, _rebuild(storage('0'), size=(2, 2), stride=(1,))))
case("tensor_class_no_args", lambda T: _load(T, call(glob('torch', 'Tensor'))))
case("tensor_no_args", lambda T: (T.Tensor().shape, T.Tensor().dtype))

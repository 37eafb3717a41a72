"""torch.load(weights_only=True)'s unpickler, rule for rule as torch's torch/_weights_only_unpickler.py (2.13).

pickle's own Unpickler is never used for a weights-only load: a file can name arbitrary callables and run BUILD
(obj.__setstate__ / setattr) on anything it can reach, which made wick's old allowlisting find_class no sandbox
(issue 16: a 60-byte file replaced torch.Size.__len__ for the whole process). This one interprets the opcodes
itself and allows only:
  GLOBAL   names in the allowlist (allowed_globals(): torch's names mapped onto wick's objects) or added with
           add_safe_globals / safe_globals; the modules sys, os, posix, nt are blocked outright;
  NEWOBJ   of Parameter or an allowlisted class; REDUCE of an allowlisted callable;
  BUILD    on a Tensor, a Parameter, an OrderedDict, or an instance of an allowlisted class (never on a class, a
           function or a module);
  APPEND(S) on lists, SETITEM(S) on dict / OrderedDict / Counter;
  BINPERSID of storages only; the plain data opcodes of protocol 2. Anything else: "Unsupported operand N".
Error texts are torch's; load() in serialization.py wraps them in torch's "Weights only load failed" message."""
import warnings
from _codecs import encode
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING
from collections import Counter, OrderedDict
from pickle import UnpicklingError, decode_long
from struct import unpack
from sys import maxsize

_blocklisted_modules = ['sys', 'os', 'posix', 'nt']

# What add_safe_globals / safe_globals added: callables, or (callable, "module.name") pairs.
_marked_safe_globals_set = set()


def _add_safe_globals(safe_globals):
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set.union(set(safe_globals))


def _get_safe_globals():
    return list(_marked_safe_globals_set)


def _clear_safe_globals():
    global _marked_safe_globals_set
    _marked_safe_globals_set = set()


def _remove_safe_globals(globals_to_remove):
    global _marked_safe_globals_set
    _marked_safe_globals_set = _marked_safe_globals_set - set(globals_to_remove)


class _safe_globals:
    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        _add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def _get_user_allowed_globals():
    rc = {}
    for f in _marked_safe_globals_set:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(f[1])}")
            f, name = f
            rc[name] = f
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


_allowed = None


def _get_allowed_globals():
    """torch's allowlist, by torch's names, mapped onto wick's objects (built once: wick's modules load lazily)."""
    global _allowed
    if _allowed is None:
        from . import serialization as S
        from . import Size
        from ._device import device
        from ._tensor import Tensor
        from .nn.parameter import Parameter
        rc = {
            "collections.OrderedDict": OrderedDict,
            "collections.Counter": Counter,
            "torch.nn.parameter.Parameter": Parameter,
            "torch.Size": Size,
            "torch.Tensor": Tensor,
            "torch.device": device,
            "_codecs.encode": encode,  # for bytes
            "builtins.bytearray": bytearray,
            "builtins.set": set,
            "builtins.complex": complex,
        }
        for name, dt in S._DTYPE_NAMES.items():
            rc["torch." + name] = dt
        for name, dt in S._DTYPE_OF_STORAGE.items():   # torch wraps legacy storage types; wick's stand for dtypes
            rc["torch." + name] = dt
        for f in S._REBUILD_FUNCTIONS:
            rc[f"torch._utils.{f.__name__}"] = f
        rc["torch._tensor._rebuild_from_type_v2"] = S._rebuild_from_type_v2
        _allowed = rc
    return _allowed


def _read_global_instruction(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    if (module, name) in NAME_MAPPING:   # torch.save writes protocol 2: Python 2 names map onto Python 3's
        module, name = NAME_MAPPING[(module, name)]
    elif module in IMPORT_MAPPING:
        module = IMPORT_MAPPING[module]
    return module, name


def _in(obj, values):
    """`obj in dict.values()` by identity or equality, as torch's check, but never raising from a hostile __eq__."""
    for v in values:
        if v is obj:
            return True
        try:
            if type(v) is type(obj) and v == obj:
                return True
        except Exception:
            pass
    return False


# protocol-2 opcodes (pickle's names)
(MARK, STOP, NONE, NEWFALSE, NEWTRUE, BININT, BININT1, BININT2, LONG1, BINFLOAT, BINUNICODE, SHORT_BINSTRING,
 EMPTY_TUPLE, TUPLE, TUPLE1, TUPLE2, TUPLE3, EMPTY_LIST, APPEND, APPENDS, EMPTY_DICT, SETITEM, SETITEMS, EMPTY_SET,
 GLOBAL, REDUCE, BUILD, NEWOBJ, BINPERSID, BINGET, LONG_BINGET, BINPUT, LONG_BINPUT, PROTO) = (
    b'(', b'.', b'N', b'\x89', b'\x88', b'J', b'K', b'M', b'\x8a', b'G', b'X', b'U',
    b')', b't', b'\x85', b'\x86', b'\x87', b']', b'a', b'e', b'}', b's', b'u', b'\x8f',
    b'c', b'R', b'b', b'\x81', b'Q', b'h', b'j', b'q', b'r', b'\x80')


class Unpickler:
    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}
        self.proto = -1

    def load(self):
        from ._tensor import Tensor
        from .nn.parameter import Parameter
        allowed, user = _get_allowed_globals(), _get_user_allowed_globals()
        self.metastack = []
        self.stack = []
        self.append = self.stack.append
        read = self.read
        while True:
            key = read(1)
            if not key:
                raise EOFError
            # risky operators
            if key == GLOBAL:
                module, name = _read_global_instruction(self.readline)
                full_path = f"{module}.{name}"
                if module in _blocklisted_modules:
                    raise UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
                if full_path in allowed:
                    self.append(allowed[full_path])
                elif full_path in user:
                    self.append(user[full_path])
                else:
                    if full_path.startswith("builtins"):
                        full_path = full_path[len("builtins"):]
                        full_path = full_path[1:] if full_path[:1] == "." else "builtins" + full_path
                    raise UnpicklingError(
                        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
                        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
                        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
                        "if you trust this class/function.")
            elif key == NEWOBJ:
                args = self.stack.pop()
                cls = self.stack.pop()
                if cls is Parameter:
                    self.append(Parameter(*args))
                elif _in(cls, user.values()) or _in(cls, allowed.values()):
                    self.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted "
                                          f"via `add_safe_globals` but got {cls}")
            elif key == REDUCE:
                args = self.stack.pop()
                func = self.stack[-1]
                if not _in(func, allowed.values()) and not _in(func, user.values()):
                    error_msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        error_msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(error_msg)
                self.stack[-1] = func(*args)
            elif key == BUILD:
                state = self.stack.pop()
                inst = self.stack[-1]
                if type(inst) is Tensor:   # torch's legacy path: inst.set_(*state)
                    raise NotImplementedError("wick: loading a Tensor through pickle's BUILD (torch's legacy "
                                              "Tensor.set_ path) is not supported yet")
                elif type(inst) is Parameter:
                    inst.__setstate__(state)
                elif type(inst) is OrderedDict:
                    inst.__dict__.update(state)
                elif _in(type(inst), user.values()) or _in(type(inst), allowed.values()):
                    if hasattr(inst, "__setstate__"):
                        inst.__setstate__(state)
                    else:   # pickle's load_build
                        slotstate = None
                        if isinstance(state, tuple) and len(state) == 2:
                            state, slotstate = state
                        if state:
                            inst.__dict__.update(state)
                        if slotstate:
                            for k, v in slotstate.items():
                                setattr(inst, k, v)
                else:
                    raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                                          f"via `add_safe_globals`, but got {type(inst)}")
            # stack manipulation
            elif key == APPEND:
                item = self.stack.pop()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(list_obj)}")
                list_obj.append(item)
            elif key == APPENDS:
                items = self.pop_mark()
                list_obj = self.stack[-1]
                if type(list_obj) is not list:
                    raise UnpicklingError(f"Can only extend lists, but got {type(list_obj)}")
                list_obj.extend(items)
            elif key == SETITEM:
                (v, k) = (self.stack.pop(), self.stack.pop())
                self._check_set_item_target("SETITEM")
                self.stack[-1][k] = v
            elif key == SETITEMS:
                items = self.pop_mark()
                self._check_set_item_target("SETITEMS")
                for i in range(0, len(items), 2):
                    self.stack[-1][items[i]] = items[i + 1]
            elif key == MARK:
                self.metastack.append(self.stack)
                self.stack = []
                self.append = self.stack.append
            elif key == TUPLE:
                items = self.pop_mark()   # before self.append: pop_mark rebinds it
                self.append(tuple(items))
            elif key == TUPLE1:
                self.stack[-1] = (self.stack[-1],)
            elif key == TUPLE2:
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif key == TUPLE3:
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            # basic types
            elif key == NONE:
                self.append(None)
            elif key == NEWFALSE:
                self.append(False)
            elif key == NEWTRUE:
                self.append(True)
            elif key == EMPTY_TUPLE:
                self.append(())
            elif key == EMPTY_LIST:
                self.append([])
            elif key == EMPTY_DICT:
                self.append({})
            elif key == EMPTY_SET:
                self.append(set())
            elif key == BININT:
                self.append(unpack("<i", read(4))[0])
            elif key == BININT1:
                self.append(self.read(1)[0])
            elif key == BININT2:
                self.append(unpack("<H", read(2))[0])
            elif key == BINFLOAT:
                self.append(unpack(">d", self.read(8))[0])
            elif key == BINUNICODE:
                strlen = unpack("<I", read(4))[0]
                if strlen > maxsize:
                    raise UnpicklingError("String is too long")
                self.append(str(read(strlen), "utf-8", "surrogatepass"))
            elif key == SHORT_BINSTRING:
                strlen = read(1)[0]
                strdata = read(strlen)
                if self.encoding != "bytes":
                    strdata = strdata.decode(self.encoding, "strict")
                self.append(strdata)
            elif key == BINPERSID:
                pid = self.stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and len(pid) > 0 and _maybe_decode_ascii(pid[0]) != "storage":
                    raise UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
                self.append(self.persistent_load(pid))
            elif key in (BINGET, LONG_BINGET):
                idx = (read(1) if key == BINGET else unpack("<I", read(4)))[0]
                self.append(self.memo[idx])
            elif key in (BINPUT, LONG_BINPUT):
                i = (read(1) if key == BINPUT else unpack("<I", read(4)))[0]
                if i < 0:
                    raise ValueError("negative argument")
                self.memo[i] = self.stack[-1]
            elif key == LONG1:
                n = read(1)[0]
                self.append(decode_long(read(n)))
            # first and last
            elif key == PROTO:
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {self.proto} in the checkpoint, which was "
                        "not the default pickle protocol used by `torch.load` (2). The weights_only "
                        "Unpickler might not support all instructions implemented by this protocol, "
                        "please file an issue for adding support if you encounter this.", stacklevel=2)
            elif key == STOP:
                return self.stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {key[0]}")

    def pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        self.append = self.stack.append
        return items

    def _check_set_item_target(self, opcode):
        if type(self.stack[-1]) not in [dict, OrderedDict, Counter]:
            raise UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, "
                                  f"collections.Counter, but got {type(self.stack[-1])}")

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")


def _maybe_decode_ascii(bytes_str):
    if isinstance(bytes_str, bytes):
        return bytes_str.decode("ascii")
    return bytes_str

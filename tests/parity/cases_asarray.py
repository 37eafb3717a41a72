"""torch.asarray (issue 24): obj a tensor, a NumPy array or scalar, a buffer-protocol object, a Python scalar or
sequence; dtype=, device=, copy=None/True/False and requires_grad=None/True/False as torch 2.13 (sharing is
checked with data_ptr() equality and by writing through one side); torch's errors.  numpy is optional: its
cases register only where it imports."""
from .harness import *  # noqa: F401,F403

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is optional
    np = None

X = [1.5, -2.0, 3.25]
KW = {
    "none": {}, "copy_true": dict(copy=True), "copy_false": dict(copy=False), "copy_none": dict(copy=None),
    "f64": dict(dtype=D.float64), "f32": dict(dtype=D.float32), "f64_copy": dict(dtype=D.float64, copy=True),
    "i32": dict(dtype=D.int32), "cpu": dict(device="cpu"), "cpu_copy_false": dict(device="cpu", copy=False),
    "rg_false": dict(requires_grad=False), "rg_true": dict(requires_grad=True),
    "copy_rg_true": dict(copy=True, requires_grad=True), "copy_rg_false": dict(copy=True, requires_grad=False),
    "f64_rg_false": dict(dtype=D.float64, requires_grad=False),
}


def kw(T, k):
    return {n: (v.resolve(T) if isinstance(v, Dtype) else v) for n, v in KW[k].items()}


def report(T, src, r):
    """What asarray gave: the tensor, whether it is obj itself / shares obj's memory, and its autograd state."""
    return (r, r is src, r.data_ptr() == src.data_ptr(), r.requires_grad, r.is_leaf,
            None if r.grad_fn is None else type(r.grad_fn).__name__, src.requires_grad)


def from_tensor(T, k, make):
    src = make(T)
    return report(T, src, T.asarray(src, **kw(T, k)))


LEAF_KW = ["none", "copy_true", "copy_false", "copy_none", "f64", "f32", "f64_copy", "cpu", "cpu_copy_false",
           "rg_false", "rg_true", "copy_rg_true", "copy_rg_false", "f64_rg_false"]
cases("asarray_tensor", lambda T, k: from_tensor(T, k, lambda T: T.tensor(X)), k=LEAF_KW + ["i32"])
cases("asarray_leaf_rg", lambda T, k: from_tensor(T, k, lambda T: T.tensor(X, requires_grad=True)), k=LEAF_KW)
cases("asarray_nonleaf", lambda T, k: from_tensor(T, k, lambda T: T.tensor(X, requires_grad=True) * 2), k=LEAF_KW)
cases("asarray_int_tensor", lambda T, k: from_tensor(T, k, lambda T: T.tensor([4, -1, 7])),
      k=["none", "copy_true", "f64", "rg_false", "copy_false"])
cases("asarray_view", lambda T, k: (lambda r: (r, r.stride(), r.is_contiguous()))(
    T.asarray(T.arange(6.0).reshape(2, 3).t(), **kw(T, k))), k=["none", "copy_true", "f64", "i32"])
case("asarray_int_to_float_rg", lambda T: (lambda r: (r, r.requires_grad, r.is_leaf))(
    T.asarray(T.tensor([4, 1]), dtype=T.float32, requires_grad=True)))
case("asarray_alias_writes_through", lambda T: (lambda s: (T.asarray(s).add_(1), s))(T.tensor(X)))
case("asarray_copy_does_not_write_through", lambda T: (lambda s: (T.asarray(s, copy=True).add_(1), s))(T.tensor(X)))
case("asarray_detached_alias_version", lambda T: (lambda b: (lambda r: (r.add_(1), b._version, r._version))(
    T.asarray(b, requires_grad=False)))(T.tensor(X, requires_grad=True) * 2))
case("asarray_leaf_rg_false_mutates_obj", lambda T: (lambda a: (T.asarray(a, requires_grad=False) is a,
                                                                 a.requires_grad))(T.tensor(X, requires_grad=True)))
case("asarray_leaf_rg_true_mutates_obj", lambda T: (lambda a: (T.asarray(a, requires_grad=True) is a,
                                                                a.requires_grad))(T.tensor(X)))


def under_no_grad(T, fn):
    with T.no_grad():
        return fn()


case("asarray_no_grad_copy", lambda T: (lambda a: under_no_grad(T, lambda: (lambda r: (r.requires_grad, r.is_leaf))(
    T.asarray(a, copy=True))))(T.tensor(X, requires_grad=True)))
case("asarray_no_grad_list", lambda T: under_no_grad(T, lambda: T.asarray(X, requires_grad=True)))
grad_case("asarray_grad_alias", lambda T, x: T.asarray(x) * T.tensor([2.0, -1.0, 0.5]), X)
grad_case("asarray_grad_nonleaf", lambda T, x: T.asarray(x * 3, requires_grad=True), X)
grad_case("asarray_grad_copy", lambda T, x: T.asarray(x, copy=True), X)
grad_case("asarray_grad_f64", lambda T, x: T.asarray(x, dtype=T.float64), X)
grad_case("asarray_grad_nc", lambda T, x: T.asarray(x, dtype=T.float64), inp([[1.0, 2.0], [3.0, -4.5]], view=vT))
grad_case("asarray_grad_detached", lambda T, x: T.asarray(x * 3, requires_grad=False) * x, X)
error_case("asarray_alias_wrong_dtype", lambda T: T.asarray(T.tensor(X), dtype=T.float64, copy=False))
error_case("asarray_alias_wrong_dtype_int", lambda T: T.asarray(T.tensor([1, 2]), dtype=T.int16, copy=False))
error_case("asarray_alias_wrong_device", lambda T: T.asarray(T.tensor(X), device="cpu:0", copy=False))
error_case("asarray_int_rg_true", lambda T: T.asarray(T.tensor([1, 2]), requires_grad=True))

# ---- Python scalars and sequences: always copied, dtype inferred (or dtype=), copy=False refused
SEQ = {"ints": [1, 2], "floats": [1.0, 2], "int": 3, "float": 3.5, "bool": True, "nested": [[1, 2], [3, 4]],
       "tuple": (1, 2), "empty": [], "tensors": "tensors"}


def seq(T, k):
    v = SEQ[k]
    return [T.tensor(1.0), T.tensor(2.5)] if v == "tensors" else v


cases("asarray_seq", lambda T, k, o: T.asarray(seq(T, k), **kw(T, o)), k=list(SEQ),
      o=["none", "copy_true", "f64", "cpu"])
cases("asarray_seq_i32", lambda T, k: T.asarray(seq(T, k), dtype=T.int32), k=[k for k in SEQ if k != "tensors"])
error_case("asarray_seq_tensors_i32", lambda T: T.asarray(seq(T, "tensors"), dtype=T.int32))
cases("asarray_seq_rg", lambda T, k: (lambda r: (r, r.requires_grad, r.is_leaf))(T.asarray(seq(T, k), requires_grad=True)),
      k=["floats", "float", "empty", "tensors"])
cases("asarray_seq_copy_false", lambda T, k: T.asarray(seq(T, k), copy=False), k=list(SEQ), kind="error")
cases("asarray_seq_int_rg", lambda T, k: T.asarray(seq(T, k), requires_grad=True), k=["ints", "int", "bool"],
      kind="error")
case("asarray_default_dtype_f64", lambda T: (T.set_default_dtype(T.float64), T.asarray([1.5]),
                                             T.set_default_dtype(T.float32))[1])
error_case("asarray_overflow", lambda T: T.asarray(300, dtype=T.uint8))
error_case("asarray_ragged", lambda T: T.asarray([[1], [1, 2]]))
error_case("asarray_str", lambda T: T.asarray("abc"))
error_case("asarray_none", lambda T: T.asarray(None))
error_case("asarray_dict", lambda T: T.asarray({1: 2}))
error_case("asarray_mixed", lambda T: T.asarray([1, "a"]))
error_case("asarray_tensors_not_scalar", lambda T: T.asarray([T.tensor([1, 2]), T.tensor([3, 4])], dtype=T.float64))

# ---- buffer-protocol objects: frombuffer's bytes (dtype= or the default float dtype), shared
B8 = bytes([0, 0, 128, 63, 0, 0, 0, 192])
cases("asarray_buffer", lambda T, o: T.asarray(bytearray(B8), **kw(T, o)),
      o=["none", "copy_true", "copy_false", "f64", "i32", "rg_true", "rg_false"])
case("asarray_buffer_shares", lambda T: (lambda b: (T.asarray(b, dtype=T.uint8)[1:3].fill_(9), list(b)))(bytearray(B8)))
case("asarray_buffer_copy", lambda T: (lambda b: (T.asarray(b, dtype=T.uint8, copy=True).fill_(9), list(b)))(
    bytearray(B8)))
case("asarray_buffer_memoryview", lambda T: T.asarray(memoryview(bytearray(B8))[4:], dtype=T.int16))
case("asarray_buffer_default_f64", lambda T: (T.set_default_dtype(T.float64), T.asarray(bytearray(B8)),
                                              T.set_default_dtype(T.float32))[1])
error_case("asarray_buffer_not_multiple", lambda T: T.asarray(bytearray(B8[:6])))
error_case("asarray_buffer_empty", lambda T: T.asarray(bytearray()))

# ---- argument errors
error_case("asarray_no_obj", lambda T: T.asarray())
error_case("asarray_two_positional", lambda T: T.asarray([1], T.float32))
error_case("asarray_obj_twice", lambda T: T.asarray([1], obj=[1]))
error_case("asarray_bad_kw", lambda T: T.asarray([1], foo=1))
error_case("asarray_dtype_str", lambda T: T.asarray([1], dtype="float"))
error_case("asarray_copy_int", lambda T: T.asarray([1], copy=1))
error_case("asarray_rg_int", lambda T: T.asarray(T.tensor([1.0]), requires_grad=1))
error_case("asarray_device_float", lambda T: T.asarray([1], device=1.5))
error_case("asarray_device_bad", lambda T: T.asarray([1], device="foo"))
case("asarray_obj_keyword", lambda T: T.asarray(obj=[1, 2]))
case("asarray_all_none", lambda T: T.asarray([1], dtype=None, device=None, copy=None, requires_grad=None))

if np is not None:
    def arr():
        return np.array([[1.0, -2.5, 3.0], [4.0, 0.5, -6.0]])

    def from_np(T, a, k):
        r = T.asarray(a, **kw(T, k))
        return (r, r.data_ptr() == a.__array_interface__["data"][0], r.requires_grad)

    cases("asarray_numpy", lambda T, k: from_np(T, arr(), k),
          k=["none", "copy_true", "copy_false", "f64", "f32", "i32", "rg_true", "rg_false"])
    cases("asarray_numpy_int", lambda T, k: from_np(T, np.array([3, -1], dtype=np.int32), k),
          k=["none", "copy_true", "f64", "i32"])
    case("asarray_numpy_strided", lambda T: (lambda r: (r, r.stride()))(T.asarray(arr()[:, ::2])))
    case("asarray_numpy_shares", lambda T: (lambda a: (T.asarray(a).mul_(2), a.tolist())[1])(arr()))
    case("asarray_numpy_0d", lambda T: T.asarray(np.array(2.5)))
    cases("asarray_numpy_scalar", lambda T, k: (lambda r: (r, r.requires_grad))(T.asarray(np.float64(0.5), **kw(T, k))),
          k=["none", "copy_true", "i32", "f32", "rg_true"])
    case("asarray_numpy_scalar_int32", lambda T: T.asarray(np.int32(3)))
    error_case("asarray_numpy_scalar_copy_false", lambda T: T.asarray(np.float64(0.5), copy=False))
    error_case("asarray_numpy_alias_wrong_dtype", lambda T: T.asarray(np.array([1, 2]), dtype=T.float64, copy=False))
    error_case("asarray_numpy_int_rg", lambda T: T.asarray(np.array([1, 2]), requires_grad=True))

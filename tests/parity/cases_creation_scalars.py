"""Creation, conversion and Python-scalar semantics found by the differential fuzzer (/tmp/fz-create): torch.Size
arithmetic and construction, torch.range, arange / linspace / logspace argument checks, Python ints beyond
int64, in-place ops whose result type can't be cast back, iinfo / finfo errors."""
import numpy as np

from .harness import *  # noqa: F401,F403


def _typed(v):
    return (repr(v), type(v).__name__)


# ---------------------------------------------------------------------------------- torch.Size
SIZE_EXPRS = {
    "mul": lambda S: S * 2, "rmul": lambda S: 2 * S, "mul_neg": lambda S: S * -1, "mul_bool": lambda S: S * True,
    "mul_dunder": lambda S: S.__mul__(3), "rmul_dunder": lambda S: S.__rmul__(2), "add_tuple": lambda S: S + (3,),
    "radd_tuple": lambda S: (0,) + S, "add_size": lambda S: S + S, "slice": lambda S: S[::-1],
    "numel_wraps": lambda S: (S * 40).numel(), "count": lambda S: S.count(2), "index": lambda S: S.index(2),
    "type_module": lambda S: type(S).__module__, "type_name": lambda S: type(S).__name__,
    "reduce_args": lambda S: S.__reduce__()[1],
}
cases("size_expr", lambda T, e: _typed(SIZE_EXPRS[e](T.Size([2, 3, 4]))), e=list(SIZE_EXPRS))
SIZE_ERRORS = {
    "add_list": lambda S: S + [1], "add_int": lambda S: S + 1, "radd_list": lambda S: [1] + S,
    "mul_float": lambda S: S * 2.0, "mul_size": lambda S: S * S, "index_missing": lambda S: S.index(7),
}
cases("size_error", lambda T, e: SIZE_ERRORS[e](T.Size([2, 3, 4])), e=list(SIZE_ERRORS), kind="error")
SIZE_ITEMS = {"bool": [True, 2], "tensor0d": "t0", "tensor1": "t1", "negative": [-5], "generator": "gen"}
case("size_from_bool", lambda T: [type(v).__name__ for v in T.Size([True, 2])] + [T.Size([True, 2])])
case("size_from_tensor", lambda T: (T.Size([T.tensor(3), T.tensor([2])]),
                                    [type(v).__name__ for v in T.Size([T.tensor(3)])]))
case("size_negative", lambda T: T.Size([-5, 0]))
case("size_generator", lambda T: T.Size(x for x in [1, 2]))
case("size_shape_mul", lambda T: _typed(T.zeros(2, 3).shape * 2))
case("size_mul_tensor", lambda T: _typed(T.Size([1]) * T.tensor(2)))
error_case("size_from_float_tensor", lambda T: T.Size([T.tensor(2.5)]))
error_case("size_from_tensor_2", lambda T: T.Size([T.tensor([1, 2])]))
error_case("size_from_float", lambda T: T.Size([1.0]))
error_case("size_int64_overflow_repr", lambda T: repr(T.Size([2 ** 63])))
case("size_int64_overflow_list", lambda T: list(T.Size([2 ** 63, -2 ** 63])))
error_case("size_int64_overflow_numel", lambda T: T.Size([2 ** 70]).numel())
case("size_numpy_int", lambda T: (repr(T.Size([np.int64(2)])), T.Size([np.int64(2), 3]).numel(), type(T.Size([np.int64(2)])[0]).__name__))
error_case("size_huge_repr", lambda T: str(T.Size([2 ** 70])))
error_case("size_none", lambda T: T.Size(None))

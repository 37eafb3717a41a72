"""torch.special (issue 21): the functions wick computes (wick/special.py: aliases of core ops and the entr / ndtr /
xlog1py composites), over float32 / float64 / integer inputs with torch's special points (0, negatives, +-inf,
nan, large magnitudes), out=, gradients, and torch's argument errors. The families wick has no kernel for yet
raise NotImplementedError (tests/test_special.py checks that against torch.special's list)."""
import math

from .harness import *  # noqa: F401,F403

PTS = [-50.0, -9.5, -3.0, -1.0, -0.5, -1e-3, 0.0, 1e-4, 0.25, 0.5, 0.99, 1.0, 2.5, 7.0, 40.0, math.inf, -math.inf,
       math.nan]
POS = [1e-3, 0.1, 0.5, 1.0, 2.0, 7.5]
UNIT = [1e-4, 0.05, 0.3, 0.5, 0.75, 0.999]
INTS = [-3, -1, 0, 1, 2, 5]
FD = [D.float32, D.float64]

UNARY = ["entr", "ndtr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "psi", "digamma", "i0",
         "log1p", "sinc", "round"]
cases("unary", lambda T, f, dtype: getattr(T.special, f)(T.tensor(PTS, dtype=dtype)), f=UNARY, dtype=FD)
cases("unary_int", lambda T, f: getattr(T.special, f)(T.tensor(INTS)), f=UNARY,
      kind=lambda f: "error" if f == "round" else "value")
cases("unary_out", lambda T, f: (lambda o: (getattr(T.special, f)(T.tensor(POS), out=o), o)[1])(T.empty(0)),
      f=["entr", "ndtr", "erf", "expit", "gammaln", "log1p"])
cases("unary_2d", lambda T, f: getattr(T.special, f)(T.tensor([[0.5, -2.0, 3.0], [0.0, 1.5, -0.25]]).t()),
      f=["entr", "ndtr", "expit", "sinc"])
# .sum(): entr / ndtr / xlog1py are composites in wick (their nodes are WhereBackward0 / MulBackward0 where
# torch's are SpecialEntrBackward0 / MulBackward1 / SpecialXlog1PyBackward0), so the outputs' nodes are not compared
cases("grad", lambda T, x, f: getattr(T.special, f)(x).sum(), POS, f=["entr", "ndtr", "expit", "gammaln", "log1p", "erf",
                                                               "erfc", "expm1", "sinc", "i0", "digamma"],
      kind="grad")
cases("logit", lambda T, eps, dtype: T.special.logit(T.tensor(UNIT + [0.0, 1.0], dtype=dtype), eps),
      eps=[None, 1e-6, 0.1], dtype=FD)
grad_case("logit_grad", lambda T, x: T.special.logit(x), UNIT)
cases("xlog1py", lambda T, dtype: T.special.xlog1py(T.tensor([0.0, 0.0, 1.0, 2.0, -1.5, math.nan, 0.0, 3.0],
                                                             dtype=dtype),
                                                    T.tensor([math.nan, -1.0, -1.0, 0.5, 3.0, 0.0, 2.0, -2.0],
                                                             dtype=dtype)), dtype=FD)
case("xlog1py_broadcast", lambda T: T.special.xlog1py(T.tensor([[0.0], [2.0]]), T.tensor([0.5, -0.5, 4.0])))
case("xlog1py_int", lambda T: T.special.xlog1py(T.tensor([0, 1, 2]), T.tensor([3, 0, 1])))
case("xlog1py_out", lambda T: (lambda o: (T.special.xlog1py(T.tensor([1.0, 2.0]), T.tensor([0.5, 1.5]), out=o), o)[1])(
    T.empty(0)))
grad_case("xlog1py_grad", lambda T, x, y: T.special.xlog1py(x, y).sum(), [0.5, 1.5, 2.0], [0.3, 1.0, 4.0])
cases("xlogy", lambda T, dtype: T.special.xlogy(T.tensor([0.0, 0.0, 1.0, 2.0], dtype=dtype),
                                                T.tensor([math.nan, 0.0, 3.0, 0.5], dtype=dtype)), dtype=FD)
cases("polygamma", lambda T, n: T.special.polygamma(n, T.tensor(POS)), n=[0, 1, 2, 3])
cases("multigammaln", lambda T, p: T.special.multigammaln(T.tensor([2.5, 3.0, 7.25]), p), p=[1, 2, 3])
cases("logsumexp", lambda T, dim, keepdim: T.special.logsumexp(T.tensor([[1.0, -2.0, 3.0], [0.5, 40.0, -1.0]]), dim,
                                                               keepdim), dim=[0, 1, (0, 1)], keepdim=[False, True])
cases("softmax", lambda T, dim, dtype: T.special.softmax(T.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]), dim,
                                                         dtype=dtype), dim=[0, 1, -1], dtype=[None, D.float64])
cases("log_softmax", lambda T, dim: T.special.log_softmax(T.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]), dim),
      dim=[0, 1])
cases("round_int", lambda T, dtype, d: T.special.round(T.tensor([1, 0], dtype=dtype), decimals=d),
      dtype=[D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool], d=[0, 2], kind="error")
case("round_decimals", lambda T: T.special.round(T.tensor([1.2345, -2.5, 0.5, 1.5]), decimals=2))
case("expit_is_sigmoid", lambda T: T.special.expit(T.tensor([-100.0, 0.0, 100.0])))
case("names", lambda T: sorted(n for n in dir(T.special) if not n.startswith("_") and n not in ("Tensor", "torch",
                                                                                                 "common_args",
                                                                                                 "multi_dim_common",
                                                                                                 "math")))
error_case("softmax_no_dim", lambda T: T.special.softmax(T.ones(3)))
error_case("logsumexp_no_dim", lambda T: T.special.logsumexp(T.ones(3)))
error_case("polygamma_negative", lambda T: T.special.polygamma(-1, T.ones(3)))
error_case("multigammaln_p0", lambda T: T.special.multigammaln(T.tensor([2.5]), 0))
case("multigammaln_small", lambda T: T.special.multigammaln(T.tensor([0.5]), 2))
error_case("softmax_nothing", lambda T: T.special.softmax())
cases("not_tensor", lambda T, f: getattr(T.special, f)(1.5), f=["entr", "ndtr"], kind="error")
case("xlog1py_scalar_self", lambda T: T.special.xlog1py(2.0, T.tensor([1.0, 0.5])))
case("xlog1py_scalar_other", lambda T: T.special.xlog1py(T.tensor([1.0, 0.0]), 3))
cases("xlog1py_bad", lambda T, a, b: T.special.xlog1py(a, b), a=[2.0], b=[3.0, "x"], kind="error")

"""torch.histogram / Tensor.histogram (issue 24): bins as a count (edges from range= or the input's min/max) or as
a tensor of edges; weight=, density=, out=; values on edges, outside the range, NaN, equal min and max, empty and
2-d inputs; float32 and float64; torch's errors and its refusal of other dtypes."""
from .harness import *  # noqa: F401,F403

X = [1.0, 2.0, 1.0, 2.5, 4.0, 3.0, -0.75, 3.999, 2.25]
W = [1.0, 2.0, 3.0, 0.5, 5.0, 6.0, 1.5, 2.5, 4.0]
EDGES = [-1.0, 0.5, 2.0, 2.5, 4.0]


def h(T, bins, dtype=None, data=X, **kw):
    if "weight" in kw:
        kw["weight"] = T.tensor(kw["weight"], dtype=dtype)
    b = T.tensor(bins, dtype=dtype) if isinstance(bins, list) else bins
    return T.histogram(T.tensor(data, dtype=dtype), b, **kw)


cases("histogram_bins", lambda T, bins, dtype: h(T, bins, dtype), bins=[1, 2, 3, 4, 7, 100], dtype=FLOAT)
cases("histogram_range", lambda T, r, dtype: h(T, 5, dtype, range=r), r=[(0.0, 3.0), (1.0, 2.0), (-5.0, 10.0),
                                                                         (2.0, 2.0), [1, 4]], dtype=FLOAT)
cases("histogram_edges", lambda T, dtype: h(T, EDGES, dtype), dtype=FLOAT)
cases("histogram_edges_narrow", lambda T, e: h(T, e), e=[[1.0, 2.0], [2.0, 3.0, 3.5], [5.0, 6.0]])
error_case("histogram_one_edge", lambda T: h(T, [0.0]))
cases("histogram_weight", lambda T, bins, density: h(T, bins, weight=W, density=density), bins=[3, EDGES],
      density=BOOLS)
cases("histogram_density", lambda T, bins, dtype: h(T, bins, dtype, density=True), bins=[4, EDGES], dtype=FLOAT)
case("histogram_density_range_empty", lambda T: h(T, 3, range=(5.0, 6.0), density=True))
case("histogram_default_bins", lambda T: h(T, 100))
case("histogram_default_bins_omitted", lambda T: T.histogram(T.tensor(X)))
case("histogram_method", lambda T: T.tensor(X).histogram(3))
case("histogram_method_edges", lambda T: T.tensor(X).histogram(T.tensor(EDGES), weight=T.tensor(W)))
case("histogram_keywords", lambda T: T.histogram(T.tensor(X), bins=4, range=(0.0, 4.0), weight=T.tensor(W),
                                                 density=True))
case("histogram_fields", lambda T: (lambda r: (r.hist, r.bin_edges, type(r).__name__))(h(T, 3)))
case("histogram_equal_values", lambda T: h(T, 4, data=[2.0, 2.0]))
case("histogram_empty", lambda T: h(T, 4, data=[]))
case("histogram_empty_range", lambda T: h(T, 2, data=[], range=(1.0, 3.0)))
case("histogram_2d", lambda T: T.histogram(T.tensor([[1.0, 2.0, 3.0], [1.5, 2.5, 4.0]]), 3))
case("histogram_2d_weight", lambda T: T.histogram(T.tensor([[1.0, 2.0, 3.0], [1.5, 2.5, 4.0]]), 3,
                                                   weight=T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])))
case("histogram_nc", lambda T: T.histogram(nc_t(T, [[1.0, 2.0, 3.0], [1.5, 2.5, 4.0]]), 3))
case("histogram_nan_with_range", lambda T: h(T, 3, data=[1.0, float("nan"), 2.0], range=(0.0, 3.0)))
case("histogram_nan_with_edges", lambda T: h(T, [0.0, 1.0, 3.0], data=[1.0, float("nan"), 2.0]))
case("histogram_inf_with_edges", lambda T: h(T, [0.0, 1.0, 3.0], data=[1.0, float("inf"), -float("inf"), 3.0]))
case("histogram_edge_values", lambda T: h(T, [0.0, 1.0, 2.0, 3.0], data=[0.0, 1.0, 2.0, 3.0, 3.0]))
case("histogram_edges_nc", lambda T: T.histogram(T.tensor(X), T.tensor([-1.0, 9.0, 0.5, 9.0, 2.5, 9.0, 4.0])[::2]))
case("histogram_edges_copied", lambda T: (lambda e: (T.histogram(T.tensor(X), e).bin_edges.fill_(0), e)[1])(
    T.tensor(EDGES)))
case("histogram_out", lambda T: (lambda hh, ee: (T.histogram(T.tensor(X), 3, out=(hh, ee)), hh, ee))(
    T.empty(0), T.empty(0)))
case("histogram_out_edges", lambda T: (lambda hh, ee: (T.histogram(T.tensor(X), T.tensor(EDGES), out=(hh, ee)), hh, ee))(
    T.empty(7), T.empty(1)))
cases("histogram_bad_bins", lambda T, b: h(T, b), b=[0, -1, [], [[0.0, 1.0]]], kind="error")
cases("histogram_bad_range", lambda T, r: h(T, 3, range=r), r=[(3.0, 1.0), (0.0, float("inf")), (float("inf"), 1.0),
                                                                (float("nan"), 1.0), (1.0,), (1.0, 2.0, 3.0)],
      kind="error")
error_case("histogram_nan_no_range", lambda T: h(T, 3, data=[1.0, float("nan")]))
error_case("histogram_inf_no_range", lambda T: h(T, 3, data=[1.0, float("inf")]))
cases("histogram_dtype", lambda T, dtype: h(T, 3, dtype), dtype=[D.int64, D.int32, D.uint8, D.float16, D.bfloat16],
      kind="error")
error_case("histogram_bool", lambda T: T.histogram(T.tensor([True, False]), 2))
error_case("histogram_edges_dtype", lambda T: T.histogram(T.tensor(X), T.tensor(EDGES, dtype=T.float64)))
error_case("histogram_weight_dtype", lambda T: T.histogram(T.tensor(X), 3, weight=T.tensor(W, dtype=T.float64)))
error_case("histogram_weight_shape", lambda T: T.histogram(T.tensor(X), 3, weight=T.tensor([1.0, 2.0])))
error_case("histogram_bins_float", lambda T: T.histogram(T.tensor(X), 3.5))
error_case("histogram_edges_with_range", lambda T: T.histogram(T.tensor(X), T.tensor(EDGES), range=(1.0, 2.0)))

# ---- histogramdd: points along the innermost dimension
PTS = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5], [1.25, 0.75], [3.0, -1.0]]
PW = [1.0, 2.0, 4.0, 8.0, 3.0, 0.5, 6.0]


def hdd(T, bins, dtype=None, data=PTS, **kw):
    if "weight" in kw:
        kw["weight"] = T.tensor(kw["weight"], dtype=dtype)
    if isinstance(bins, list) and bins and isinstance(bins[0], list):
        bins = [T.tensor(b, dtype=dtype) for b in bins]
    return T.histogramdd(T.tensor(data, dtype=dtype), bins, **kw)


cases("histogramdd_bins", lambda T, bins, dtype: hdd(T, bins, dtype), bins=[1, 2, 3, [2, 3], (4, 1)], dtype=FLOAT)
cases("histogramdd_edges", lambda T, dtype: hdd(T, [[0.0, 1.0, 2.0], [-1.0, 0.5, 2.0]], dtype), dtype=FLOAT)
cases("histogramdd_range", lambda T, r: hdd(T, [2, 3], range=r), r=[[0.0, 1.0, 0.0, 1.0], (0.0, 2.0, -1.0, 1.0),
                                                                     [1.0, 1.0, 0.0, 2.0]])
cases("histogramdd_weight", lambda T, bins, density: hdd(T, bins, weight=PW, density=density),
      bins=[[3, 2], [[0.0, 1.0, 2.0], [-1.0, 0.5, 2.0]]], density=BOOLS)
case("histogramdd_density", lambda T: hdd(T, [3, 3], density=True))
case("histogramdd_3d_points", lambda T: T.histogramdd(T.tensor([[0.0, 1.0, 2.0], [1.0, 0.5, 0.0], [2.0, 2.0, 1.0],
                                                                  [0.25, 1.75, 0.5]]), [2, 2, 3]))
case("histogramdd_batched_input", lambda T: T.histogramdd(T.tensor(PTS[:6]).reshape(2, 3, 2), 2,
                                                          weight=T.tensor(PW[:6]).reshape(2, 3)))
case("histogramdd_one_dim", lambda T: T.histogramdd(T.zeros(2, 3, 1), 2))
case("histogramdd_equal", lambda T: hdd(T, 2, data=[[1.0, 1.0], [1.0, 1.0]]))
case("histogramdd_empty", lambda T: T.histogramdd(T.empty(0, 2), 2))
case("histogramdd_fields", lambda T: (lambda r: (r.hist, r.bin_edges, type(r).__name__))(hdd(T, 2)))
case("histogramdd_nc", lambda T: T.histogramdd(T.tensor(PTS).t().contiguous().t(), [2, 2]))
error_case("histogramdd_bins_len", lambda T: hdd(T, [2, 2, 2]))
error_case("histogramdd_edges_len", lambda T: hdd(T, [[0.0, 1.0]]))
error_case("histogramdd_bins_zero", lambda T: hdd(T, [2, 0]))
error_case("histogramdd_range_len", lambda T: hdd(T, 2, range=[0.0, 1.0]))
error_case("histogramdd_range_inf", lambda T: hdd(T, 2, range=[0.0, float("inf"), 0.0, 1.0]))
error_case("histogramdd_range_order", lambda T: hdd(T, 2, range=[0.0, 1.0, 1.0, 0.0]))
error_case("histogramdd_1d_input", lambda T: T.histogramdd(T.tensor([1.0, 2.0]), 2))
error_case("histogramdd_long", lambda T: T.histogramdd(T.tensor([[1, 2]]), 2))
error_case("histogramdd_weight_shape", lambda T: hdd(T, 2, weight=PW[:4]))
error_case("histogramdd_weight_dtype", lambda T: T.histogramdd(T.tensor(PTS), 2, weight=T.tensor(PW, dtype=T.float64)))
error_case("histogramdd_edges_dtype", lambda T: T.histogramdd(T.tensor(PTS), [T.tensor([0.0, 1.0]),
                                                                              T.tensor([0.0, 1.0], dtype=T.float64)]))
error_case("histogramdd_no_bins", lambda T: T.histogramdd(T.tensor(PTS)))
error_case("histogramdd_out", lambda T: T.histogramdd(T.tensor(PTS), 2, out=T.empty(0)))

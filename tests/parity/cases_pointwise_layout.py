"""Elementwise ops over every layout: transposed (nc_t), step-sliced (nc_step) and expanded (nc_expand) inputs,
their mixtures, in-place ops on views (the base sees the write), output strides, and gradients through views."""
from .harness import *  # noqa: F401,F403

A24 = [[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0]]
B24 = [[1.5, 0.25, -2.0, 0.75], [-0.5, 2.5, 1.0, -1.25]]
P24 = [[0.5, 1.25, 2.0, 3.5], [1.75, 0.5, 0.125, 3.0]]
A234 = [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]],
        [[-2.5, 1.0, 0.375, -0.25], [3.25, -1.75, 1.25, 2.75], [-0.875, 0.625, -3.5, 1.5]]]
I24 = [[4, -7, 2, 9], [0, -3, 5, 1]]
UN = ["exp", "sin", "abs", "neg", "sigmoid", "tanh", "floor", "round", "sign", "erf", "square", "relu", "isnan", "logical_not"]
BIN = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y, "div": lambda x, y: x / y, "pow": lambda x, y: x.abs() ** y,
       "max": lambda x, y: x.maximum(y), "atan2": lambda x, y: x.atan2(y), "lt": lambda x, y: x < y,
       "where": lambda x, y: x.where(x > y, y), "rem": lambda x, y: x % y, "copysign": lambda x, y: x.copysign(y)}
# every view of a [2, 4] data list is [2, 4] too: the transposed one is built from the [4, 2] transpose, the
# step-sliced one from a [2, 8] list whose even columns are the data
def _tr(d):
    return [list(r) for r in zip(*d)]


def _wide(d):
    return [[v for x in r for v in (x, x * 0.5 - 7.0)] for r in d]


VIEWS = {"t": lambda T, d: nc_t(T, _tr(d)), "step": lambda T, d: nc_step(T, _wide(d)), "contig": lambda T, d: T.tensor(d)}

cases("unary_views", lambda T, op, v: getattr(VIEWS[v](T, A24), op)(), op=UN, v=["t", "step"])
cases("unary_views_3d", lambda T, op: getattr(T.tensor(A234).permute(2, 0, 1), op)(), op=["exp", "abs", "neg", "sign"])
cases("unary_expanded", lambda T, op: getattr(nc_expand(T, [[0.5], [-1.5]], (2, 4)), op)(), op=["exp", "abs", "tanh", "round"])
cases("binary_views", lambda T, op, va, vb: BIN[op](VIEWS[va](T, A24), VIEWS[vb](T, B24)), op=list(BIN),
      va=["t", "step", "contig"], vb=["t", "step"], kind=lambda op, va, vb: "value")
cases("binary_view_shapes", lambda T, va: (VIEWS[va](T, A24) + T.tensor(2.5)).shape, va=["t", "step"])
case("binary_expanded_both", lambda T: nc_expand(T, [[0.5], [1.5]], (2, 4)) * nc_expand(T, [[2.0, -1.0, 0.5, 3.0]], (2, 4)))
case("int_views", lambda T: (nc_t(T, I24) // 3, nc_step(T, I24) % 4, nc_t(T, I24) & 5, -nc_step(T, I24), nc_t(T, I24) + nc_t(T, I24)))
cases("output_strides", lambda T, op: getattr(nc_t(T, A24), op)().stride(), op=["exp", "neg", "abs", "isnan"])
case("output_strides_binary", lambda T: [(nc_t(T, A24) + nc_t(T, B24)).stride(), (nc_t(T, A24) + T.tensor(B24).t().contiguous()).stride(),
                                         (T.tensor(A234).permute(2, 0, 1) * 2).stride()])
case("inplace_on_transposed_view", lambda T: (lambda x: (x.t().mul_(2), x))(T.tensor(A24)))
case("inplace_on_step_view", lambda T: (lambda x: (x[..., ::2].add_(10), x))(T.tensor(A24)))
case("inplace_unary_on_step_view", lambda T: (lambda x: (x[:, 1::2].exp_(), x))(T.tensor(A24)))
case("inplace_clamp_on_row", lambda T: (lambda x: (x[1].clamp_(-1, 1), x))(T.tensor(A24)))
case("inplace_where_broadcast_into_view", lambda T: (lambda x: (x[:, :2].copysign_(T.tensor([-1.0, 1.0])), x))(T.tensor(A24)))
case("out_into_transposed", lambda T: (lambda o: (T.exp(T.tensor(A24).t(), out=o.t()), o))(T.zeros(2, 4)))
cases("grad_through_views", lambda T, x, y, op: BIN[op](x, y), inp(_tr(A24), view=vT), inp(_wide(B24), view=vstep), kind="grad",
      op=["add", "mul", "div", "pow", "max", "atan2", "where", "copysign"])
cases("grad_unary_views", lambda T, x, op: getattr(x, op)(), inp(_wide(P24), view=vstep), kind="grad",
      op=["exp", "sqrt", "log", "sigmoid", "tanh", "erf", "lgamma", "abs"])
grad_case("grad_inplace_on_view", lambda T, x: (lambda y: (y[:, ::2].mul_(3), y)[1])(x * 1), A24)
grad_case("grad_inplace_unary_on_view", lambda T, x: (lambda y: (y[0].sigmoid_(), y)[1])(x * 1), A24)
grad_case("grad_expanded_leaf", lambda T, x, y: x * y, inp([[0.5], [1.5]], view=vexpand(2, 4)), B24)

# Writing into the destination (Note [Writing into the destination], src/ops/ops_support.h): in-place and out= of
# add / sub / mul / div / exp / log / tanh / sigmoid / relu write straight into a contiguous destination when every
# input is either elsewhere or the destination itself; other layouts go through a new tensor and a copy.
INTO = {"add": lambda T, x, y, **k: T.add(x, y, alpha=2, **k), "sub": lambda T, x, y, **k: T.sub(x, y, **k),
        "mul": lambda T, x, y, **k: T.mul(x, y, **k), "div": lambda T, x, y, **k: T.div(x, y, **k),
        "div_floor": lambda T, x, y, **k: T.div(x, y, rounding_mode="floor", **k)}
UN_INTO = ["exp", "log", "tanh", "sigmoid"]
cases("into_out_fresh", lambda T, op: (lambda o: (INTO[op](T, T.tensor(A24), T.tensor(P24), out=o), o))(T.zeros(2, 4)),
      op=list(INTO))
cases("into_out_is_self", lambda T, op: (lambda x: (INTO[op](T, x, T.tensor(P24), out=x), x))(T.tensor(A24)),
      op=list(INTO))
cases("into_out_is_other", lambda T, op: (lambda y: (INTO[op](T, T.tensor(A24), y, out=y), y))(T.tensor(P24)),
      op=list(INTO))
cases("into_out_is_both", lambda T, op: (lambda x: (INTO[op](T, x, x, out=x), x))(T.tensor(P24)), op=list(INTO))
cases("into_out_same_ptr", lambda T, op: (lambda o: INTO[op](T, T.tensor(A24), T.tensor(P24), out=o).data_ptr() == o.data_ptr())(T.zeros(2, 4)),
      op=list(INTO))
cases("into_unary_out_is_self", lambda T, op: (lambda x: (getattr(T, op)(x, out=x), x))(T.tensor(P24)), op=UN_INTO)
cases("into_unary_inplace", lambda T, op: (lambda x: (getattr(x, op + "_")(), x))(T.tensor(P24)), op=UN_INTO + ["relu"])
case("into_relu_inplace_mixed", lambda T: (lambda x: (x.relu_(), x))(T.tensor(A24)))
cases("into_inplace_self_operand", lambda T, op: (lambda x: getattr(x, op)(x))(T.tensor(P24)),
      op=["add_", "sub_", "mul_", "div_"])
case("into_inplace_rows_of_one_storage", lambda T: (lambda x: (x[0].add_(x[1]), x[1].mul_(x[0]), x))(T.tensor(A24)))
case("into_inplace_broadcast_other", lambda T: (lambda x: (x.mul_(T.tensor([2.0, -1.0, 0.5, 3.0])), x))(T.tensor(A24)))
case("into_out_wider_dtype", lambda T: (lambda o: (T.add(T.tensor(A24), T.tensor(P24), out=o), o, o.dtype))(T.zeros(2, 4, dtype=T.float64)))
case("into_out_int", lambda T: (lambda o: (T.mul(T.tensor(I24), 3, out=o), o))(T.zeros(2, 4, dtype=T.int64)))
case("into_out_transposed", lambda T: (lambda o: (T.exp(T.tensor(A24), out=o.t()), o))(T.zeros(4, 2)))
case("into_out_resized", lambda T: (lambda o: (T.mul(T.tensor(A24), 2, out=o), o.shape))(T.zeros(0)))
case("into_big_inplace", lambda T: (lambda x: (x.mul_(0.5).add_(x, alpha=-1).exp_(), x.sum())[1])(T.arange(70000, dtype=T.float32) / 7e4))
grad_case("grad_into_inplace", lambda T, x, y: (lambda z: (z.mul_(y), z.add_(y, alpha=3), z.sigmoid_())[2])(x * 1), A24, B24)
# the version counter still sees the writes: a saved tensor written in place fails backward, as in torch
error_case("grad_into_inplace_saved_output",
           lambda T: (lambda z: (z.sigmoid_(), z.add_(1)).__getitem__(1).sum().backward())(T.tensor(A24, requires_grad=True) * 1))


# ---- Note [Write overlap]: in-place and out= writes that overlap themselves or an input (torch's TensorIterator
# checks); each point gives the result or the error's text, whichever torch gives
def _write_outcome(fn):
    try:
        return fn()
    except RuntimeError as e:
        return str(e)


def _m33(T):
    return T.arange(1., 10.).reshape(3, 3) / 10 + 0.05


def _expanded(T):
    return T.tensor([0.3, 0.6, 0.9]).expand(3, 3)


OVERLAP_UNARY = ["abs_", "exp_", "log_", "neg_", "sigmoid_", "tanh_", "relu_", "sqrt_", "floor_", "round_", "sin_",
                 "erf_", "logit_", "nan_to_num_", "reciprocal_", "sign_", "square_", "trunc_", "frac_", "i0_", "logical_not_"]
OVERLAP_BINARY = ["add_", "sub_", "mul_", "div_", "pow_", "atan2_", "fmod_", "remainder_", "copysign_", "hypot_", "xlogy_",
                  "eq_", "lt_", "ge_", "logical_and_", "floor_divide_", "heaviside_", "nextafter_", "ldexp_", "copy_",
                  "clamp_min_", "clamp_max_", "bitwise_and_", "gcd_", "float_power_"]
cases("write_overlap_unary", lambda T, op: _write_outcome(lambda: getattr(_expanded(T), op)()), op=OVERLAP_UNARY)
cases("write_overlap_binary",
      lambda T, op, how: _write_outcome(lambda: {
          "internal": lambda: getattr(_expanded(T), op)(T.full((3, 3), 0.5)),
          "transposed": lambda: (lambda a: getattr(a, op)(a.t()))(_m33(T)),
          "row": lambda: (lambda a: getattr(a, op)(a[0]))(_m33(T)),
          "self": lambda: (lambda a: getattr(a, op)(a))(_m33(T)),
          "disjoint": lambda: (lambda a: (getattr(a[:1], op)(a[2:]), a)[1])(_m33(T)),
      }[how]()), op=OVERLAP_BINARY, how=["internal", "transposed", "row", "self", "disjoint"])
cases("write_overlap_out",
      lambda T, op: _write_outcome(lambda: {
          "exp": lambda: (lambda a: T.exp(a.t(), out=a))(_m33(T)),
          "exp_internal": lambda: T.exp(_m33(T), out=T.zeros(3).expand(3, 3)),
          "exp_resized": lambda: (lambda a: T.exp(a, out=a[0]))(_m33(T)),
          "add_shifted": lambda: (lambda a: (T.add(a[:-1], 1, out=a[1:]), a)[1])(T.arange(6.)),
          "mul_same": lambda: (lambda a: T.mul(a, a, out=a))(_m33(T)),
          "maximum": lambda: (lambda a: T.maximum(a, a.t(), out=a))(_m33(T)),
          "where": lambda: (lambda a: T.where(a > 0.3, a.t(), a, out=a))(_m33(T)),
          "cumsum": lambda: (lambda a: T.cumsum(a.t(), 0, out=a))(_m33(T)),
          # torch does not check these; their values follow its loop order (wick computes as if the inputs were
          # cloned), so only "no error" is compared
          "sum_no_check": lambda: (lambda a: (T.sum(a, 0, out=a[0]), "no error")[1])(_m33(T)),
          "addmm_no_check": lambda: (lambda a: (a.addmm_(a.t(), _m33(T)), "no error")[1])(_m33(T)),
          "stepped_too_hard": lambda: (lambda a: (a[:, 1:].sub_(a[:, :-1]), "no error")[1])(_m33(T)),
          "unsqueezed": lambda: (lambda a: a.add_(a[None]))(_m33(T)),
      }[op]()), op=["exp", "exp_internal", "exp_resized", "add_shifted", "mul_same", "maximum", "where", "cumsum",
                    "sum_no_check", "addmm_no_check", "stepped_too_hard", "unsqueezed"])
cases("write_overlap_special",
      lambda T, op: _write_outcome(lambda: {
          "fill_scalar": lambda: _expanded(T).fill_(1.0),
          "fill_tensor": lambda: _expanded(T).fill_(T.tensor(2.)),
          "fill_own_element": lambda: (lambda a: a.fill_(a[1, 1]))(_m33(T)),
          "zero": lambda: _expanded(T).zero_(),
          "clamp_none": lambda: _expanded(T).clamp_(),
          "clamp_tensor_bound": lambda: (lambda a: a.clamp_(a.t(), None))(_m33(T)),
          "threshold": lambda: T.threshold_(_expanded(T), 0.5, 0.),
          "addcmul": lambda: (lambda a: a.addcmul_(a.t(), _m33(T)))(_m33(T)),
          "lerp": lambda: (lambda a: a.lerp_(a.t(), 0.5))(_m33(T)),
          "leaky_relu": lambda: T.nn.functional.leaky_relu_(_expanded(T)),
          "hardtanh": lambda: T.nn.functional.hardtanh_(_expanded(T)),
      }[op]()), op=["fill_scalar", "fill_tensor", "fill_own_element", "zero", "clamp_none", "clamp_tensor_bound",
                    "threshold", "addcmul", "lerp", "leaky_relu", "hardtanh"])


def _setitem(a, idx, v):
    a[idx] = v
    return a


cases("write_overlap_setitem",
      lambda T, how: _write_outcome(lambda: {
          "full_from_row": lambda: (lambda a: _setitem(a, (slice(None), slice(None)), a[0]))(_m33(T)),
          "from_transposed": lambda: (lambda a: _setitem(a, ..., a.t()))(_m33(T)),
          "shifted_rows": lambda: (lambda a: _setitem(a, slice(1, None), a[:-1]))(_m33(T)),
          "from_own_element": lambda: (lambda a: _setitem(a, ..., a[1, 1]))(_m33(T)),
          "expanded_target": lambda: _setitem(T.zeros(3).expand(3, 3), ..., T.ones(3, 3)),
          "expanded_target_scalar": lambda: _setitem(T.zeros(3).expand(3, 3), ..., 1.0),
          "expanded_target_0d": lambda: _setitem(T.zeros(3).expand(3, 3), ..., T.tensor(1.0)),
          "column_from_row": lambda: (lambda a: _setitem(a, (slice(None), 0), a[0]))(_m33(T)),
          "itself": lambda: (lambda a: _setitem(a, ..., a))(_m33(T)),
          "index_tensor": lambda: (lambda a: _setitem(a, T.tensor([0, 1]), a[1:]))(_m33(T)),
          "multi_output_expanded": lambda: (lambda h: _setitem(h.unbind(0)[1].expand(2, 3)[0], ..., 1.0))(
              T.ones(3, 3, requires_grad=True) * 2),
      }[how]()), how=["full_from_row", "from_transposed", "shifted_rows", "from_own_element", "expanded_target",
                      "expanded_target_scalar", "expanded_target_0d", "column_from_row", "itself", "index_tensor",
                      "multi_output_expanded"])

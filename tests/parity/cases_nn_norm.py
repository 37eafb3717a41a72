"""Normalisation: batch norm (running statistics with torch's biased/unbiased split, momentum=None, eval mode,
track_running_stats=False, num_batches_tracked), layer/group/instance/RMS norm, local response norm, F.normalize;
functional and module forms, gradients of input and affine parameters, state dicts, printouts, errors."""
from .harness import *  # noqa: F401,F403

X2 = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3], [-2.0, 0.1, 0.9], [0.3, 1.1, -0.6]]        # [N=4, C=3]
X3 = [[[0.5, -1.25, 2.0, 0.1], [1.5, 0.75, -0.3, 2.2], [-2.0, 0.1, 0.9, -0.4]],
      [[0.3, 1.1, -0.6, 0.0], [2.5, -0.5, 0.25, 1.0], [0.7, -1.9, 1.3, 0.2]]]         # [N=2, C=3, L=4]
X4 = [[[[((n * 7 + c * 5 + h * 3 + w) % 11 - 5) * 0.37 + 0.01 * (h - w) for w in range(3)] for h in range(2)]
       for c in range(4)] for n in range(2)]                                             # [N=2, C=4, 2, 3]
W3, B3 = [1.5, -0.5, 0.8], [0.1, 0.2, -0.3]
W4, B4 = [1.5, -0.5, 0.8, 1.2], [0.1, 0.2, -0.3, 0.05]


def F(T):
    return T.nn.functional


# ---------------------------------------------------------------------------------------------- batch norm
grad_case("bn_train_2d", lambda T, x, w, b: F(T).batch_norm(x, T.zeros(3), T.ones(3), w, b, training=True), X2, W3, B3)
grad_case("bn_train_3d", lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True), X3, W3, B3)
grad_case("bn_train_4d", lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, True, 0.1, 1e-3), X4, W4, B4)
grad_case("bn_train_noaffine", lambda T, x: F(T).batch_norm(x, None, None, training=True), X3)
grad_case("bn_eval", lambda T, x, w, b: F(T).batch_norm(x, T.tensor([0.1, -0.2, 0.3]), T.tensor([0.5, 2.0, 1.5]), w, b),
          X3, W3, B3)
grad_case("bn_eval_noaffine", lambda T, x: F(T).batch_norm(x, T.tensor([0.1, -0.2, 0.3]), T.tensor([0.5, 2.0, 1.5])), X2)
grad_case("bn_weight_only", lambda T, x, w: F(T).batch_norm(x, None, None, w, None, True), X3, W3)
grad_case("bn_noncontig", lambda T, x: F(T).batch_norm(x.transpose(0, 2).transpose(1, 2).contiguous().transpose(1, 2)
                                                       .transpose(0, 2), None, None, training=True), X3)
grad_case("torch_batch_norm", lambda T, x, w, b: T.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False), X2, W3, B3)
grad_case("native_batch_norm", lambda T, x, w, b: T.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0], X3, W3, B3)


def _running(T, momentum, unbiased_steps):
    rm, rv = T.tensor([0.1, -0.2, 0.3]), T.tensor([0.5, 2.0, 1.5])
    outs = []
    for k in range(unbiased_steps):
        x = T.tensor(X3) * (k + 1) - k * 0.5
        outs.append(F(T).batch_norm(x, rm, rv, training=True, momentum=momentum))
    return rm, rv, outs, rm._version


cases("bn_running_stats", _running, momentum=[0.1, 0.5, 1.0, 0.0], unbiased_steps=[1, 3])
case("native_bn_outputs", lambda T: T.native_batch_norm(T.tensor(X3), None, None, None, None, True, 0.1, 1e-5))
case("native_bn_eval_outputs", lambda T: T.native_batch_norm(T.tensor(X3), None, None, T.zeros(3), T.ones(3), False, 0.1, 1e-5))
cases("bn_dtype", lambda T, dtype: F(T).batch_norm(T.tensor(X3, dtype=dtype), None, None, training=True), dtype=FLOATS,
      atol=2e-3)
case("bn_double_params", lambda T: F(T).batch_norm(T.tensor(X3, dtype=T.float64), T.zeros(3, dtype=T.float64),
                                                   T.ones(3, dtype=T.float64), training=True))
error_case("bn_one_value", lambda T: F(T).batch_norm(T.ones(1, 3), None, None, training=True))
error_case("bn_rm_size", lambda T: F(T).batch_norm(T.tensor(X3), T.zeros(4), T.ones(3)))
error_case("bn_rv_size", lambda T: F(T).batch_norm(T.tensor(X3), T.zeros(3), T.ones(4)))
error_case("bn_w_size", lambda T: F(T).batch_norm(T.tensor(X3), T.zeros(3), T.ones(3), T.ones(4)))
error_case("bn_eval_none", lambda T: F(T).batch_norm(T.tensor(X3), None, None, training=False))
error_case("bn_int", lambda T: F(T).batch_norm(T.ones(2, 3, dtype=T.int64), None, None, training=True))
error_case("bn_eps_train", lambda T: F(T).batch_norm(T.tensor(X3), None, None, training=True, eps=0.0))
error_case("bn_eps_eval", lambda T: F(T).batch_norm(T.tensor(X3), T.zeros(3), T.ones(3), eps=-1.0))
error_case("bn_1d_input", lambda T: F(T).batch_norm(T.ones(3), None, None, training=True))


def _bn_module_steps(T, cls, x, steps, **kw):
    m = getattr(T.nn, cls)(x[1] if False else len(x[0]), **kw)
    outs = []
    for k in range(steps):
        inp = T.tensor(x) * (1 + 0.5 * k)
        inp.requires_grad_(True)
        out = m(inp)
        (out * out).sum().backward()
        outs.append((out, inp.grad))
    return outs, dict(m.state_dict()), (m.weight.grad if m.weight is not None else None)


cases("bn1d_module", lambda T, momentum, affine, track: _bn_module_steps(T, "BatchNorm1d", X3, 3, momentum=momentum,
                                                                          affine=affine, track_running_stats=track),
      momentum=[0.1, None], affine=BOOLS, track=BOOLS, atol=1e-5)
case("bn1d_module_2d", lambda T: _bn_module_steps(T, "BatchNorm1d", X2, 2), atol=1e-5)
case("bn2d_module", lambda T: _bn_module_steps(T, "BatchNorm2d", X4, 2, eps=1e-3), atol=1e-5)
case("bn2d_module_nobias", lambda T: _bn_module_steps(T, "BatchNorm2d", X4, 1, bias=False), atol=1e-5)


def _bn_eval(T, track):
    m = T.nn.BatchNorm1d(3, track_running_stats=track)
    m(T.tensor(X3))
    m.eval()
    return m(T.tensor(X2) * 2.0), dict(m.state_dict()), m.training


cases("bn_module_eval", _bn_eval, track=BOOLS)


def _bn_load_old(T):
    m = T.nn.BatchNorm1d(3)
    sd = dict(m.state_dict())
    del sd['num_batches_tracked']
    from collections import OrderedDict
    sd = OrderedDict(sd)
    sd._metadata = OrderedDict({'': {'version': 1}})
    m.num_batches_tracked.fill_(5)
    r = m.load_state_dict(sd)
    return repr(r), m.num_batches_tracked


case("bn_module_load_v1", _bn_load_old)
case("bn_module_reset", lambda T: (lambda m: (m(T.tensor(X3)), m.reset_running_stats(), dict(m.state_dict())))(T.nn.BatchNorm1d(3)))
error_case("bn1d_module_dims", lambda T: T.nn.BatchNorm1d(3)(T.ones(2, 3, 4, 5)))
error_case("bn2d_module_dims", lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3)))
error_case("bn3d_module_dims", lambda T: T.nn.BatchNorm3d(3)(T.ones(2, 3, 4)))
case("bn3d_module", lambda T: T.nn.BatchNorm3d(2)(T.tensor([X4])))
for _i, _m in enumerate([lambda T: T.nn.BatchNorm1d(3), lambda T: T.nn.BatchNorm2d(4, 1e-3, None, False, False),
                         lambda T: T.nn.BatchNorm2d(8), lambda T: T.nn.BatchNorm3d(2, momentum=0.3, bias=False)]):
    case(f"bn_repr_{_i}", lambda T, _m=_m: repr(_m(T)))
    case(f"bn_state_keys_{_i}", lambda T, _m=_m: (len(_m(T).state_dict()), [(k, v) for k, v in _m(T).state_dict().items()]))

# ---------------------------------------------------------------------------------------------- layer norm
grad_case("ln_last", lambda T, x, w, b: F(T).layer_norm(x, (4,), w, b), X3, [1.5, -0.5, 0.8, 2.0], [0.1, 0.2, -0.3, 0.0])
grad_case("ln_two", lambda T, x, w, b: F(T).layer_norm(x, (3, 4), w, b), X3, [[1.5, -0.5, 0.8, 2.0]] * 3,
          [[0.1, 0.2, -0.3, 0.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 0.0, 1.0, 2.0]])
grad_case("ln_noaffine", lambda T, x: F(T).layer_norm(x, [4], eps=1e-3), X3)
grad_case("ln_weight_only", lambda T, x, w: F(T).layer_norm(x, [3], w), X2, W3)
grad_case("ln_noncontig", lambda T, x: F(T).layer_norm(x.transpose(1, 2), [3]), X3)
grad_case("torch_layer_norm", lambda T, x: T.layer_norm(x, [4]), X3)
case("native_layer_norm", lambda T: T.native_layer_norm(T.tensor(X3), [3, 4], None, None, 1e-5))
case("native_layer_norm_last", lambda T: T.native_layer_norm(T.tensor(X3), [4], None, None, 1e-5))
cases("ln_dtype", lambda T, dtype: F(T).layer_norm(T.tensor(X3, dtype=dtype), [4]), dtype=FLOATS)
case("ln_empty", lambda T: F(T).layer_norm(T.zeros(0, 4), [4]))
error_case("ln_shape", lambda T: F(T).layer_norm(T.tensor(X3), (5,)))
error_case("ln_weight_shape", lambda T: F(T).layer_norm(T.tensor(X3), (4,), T.ones(5)))
error_case("ln_bias_shape", lambda T: F(T).layer_norm(T.tensor(X3), (4,), None, T.ones(5)))
error_case("ln_int", lambda T: F(T).layer_norm(T.ones(2, 3, dtype=T.int64), (3,)))
error_case("ln_native_empty_shape", lambda T: T.native_layer_norm(T.tensor(X3), [], None, None, 1e-5))


def _ln_module(T, *args, **kw):
    m = T.nn.LayerNorm(*args, **kw)
    x = T.tensor(X3, requires_grad=True)
    out = m(x)
    (out * out * 0.5 + out).sum().backward()
    return repr(m), out, x.grad, [(n, p.grad) for n, p in m.named_parameters()]


case("ln_module", lambda T: _ln_module(T, 4))
case("ln_module_two", lambda T: _ln_module(T, [3, 4], eps=1e-3))
case("ln_module_noaffine", lambda T: _ln_module(T, 4, elementwise_affine=False))
case("ln_module_nobias", lambda T: _ln_module(T, (4,), bias=False))

# ---------------------------------------------------------------------------------------------- group norm
grad_case("gn", lambda T, x, w, b: F(T).group_norm(x, 2, w, b), X4, W4, B4)
grad_case("gn_groups1", lambda T, x: F(T).group_norm(x, 1), X4)
grad_case("gn_groups4", lambda T, x, w: F(T).group_norm(x, 4, w, eps=1e-2), X4, W4)
grad_case("gn_3d", lambda T, x, w, b: F(T).group_norm(x, 3, w, b), X3, W3, B3)
grad_case("torch_group_norm", lambda T, x: T.group_norm(x, 2), X4)
case("native_group_norm", lambda T: T.native_group_norm(T.tensor(X4), None, None, 2, 4, 6, 2, 1e-5))
cases("gn_dtype", lambda T, dtype: F(T).group_norm(T.tensor(X4, dtype=dtype), 2), dtype=FLOATS)
error_case("gn_divisible", lambda T: F(T).group_norm(T.tensor(X3), 2))
error_case("gn_weight", lambda T: F(T).group_norm(T.tensor(X3), 3, T.ones(2)))
error_case("gn_int", lambda T: F(T).group_norm(T.ones(2, 4, 3, dtype=T.int64), 2))
error_case("gn_1d", lambda T: F(T).group_norm(T.ones(3), 3))
error_case("gn_one_value", lambda T: F(T).group_norm(T.ones(1, 2), 2))
case("gn_module", lambda T: (lambda m: (repr(m), m(T.tensor(X4))))(T.nn.GroupNorm(2, 4)))
case("gn_module_noaffine", lambda T: (lambda m: (repr(m), m(T.tensor(X4)), list(m.parameters())))(T.nn.GroupNorm(4, 4, affine=False)))
case("gn_module_nobias", lambda T: repr(T.nn.GroupNorm(1, 4, 1e-3, bias=False)))
error_case("gn_module_divisible", lambda T: T.nn.GroupNorm(3, 4))

# ---------------------------------------------------------------------------------------------- instance norm
grad_case("in", lambda T, x: F(T).instance_norm(x), X3)
grad_case("in_affine", lambda T, x, w, b: F(T).instance_norm(x, weight=w, bias=b), X4, W4, B4)


def _in_running(T):
    rm, rv = T.zeros(3), T.ones(3)
    out = F(T).instance_norm(T.tensor(X3), rm, rv, momentum=0.3)
    out2 = F(T).instance_norm(T.tensor(X3), rm, rv, use_input_stats=False)
    return out, out2, rm, rv


case("in_running", _in_running)
error_case("in_one_spatial", lambda T: F(T).instance_norm(T.ones(2, 3, 1)))
error_case("in_eval_no_stats", lambda T: F(T).instance_norm(T.tensor(X3), use_input_stats=False))


def _in_module(T, cls, x, *args, **kw):
    m = getattr(T.nn, cls)(*args, **kw)
    out = m(T.tensor(x))
    return repr(m), out, dict(m.state_dict())


case("in1d_module", lambda T: _in_module(T, "InstanceNorm1d", X3, 3))
case("in1d_module_track", lambda T: _in_module(T, "InstanceNorm1d", X3, 3, track_running_stats=True, affine=True))
case("in2d_module", lambda T: _in_module(T, "InstanceNorm2d", X4, 4, affine=True))
case("in2d_module_unbatched", lambda T: _in_module(T, "InstanceNorm2d", X4[0], 4))
case("in1d_module_mismatch_warns", lambda T: _in_module(T, "InstanceNorm1d", X3, 5), warns=True)
error_case("in1d_module_mismatch_affine", lambda T: T.nn.InstanceNorm1d(5, affine=True)(T.tensor(X3)))
error_case("in2d_module_dims", lambda T: T.nn.InstanceNorm2d(3)(T.tensor(X2)))


def _in_eval(T):
    m = T.nn.InstanceNorm1d(3, track_running_stats=True)
    m(T.tensor(X3))
    m.eval()
    return m(T.tensor(X3)), dict(m.state_dict())


case("in_module_eval", _in_eval)

# ---------------------------------------------------------------------------------------------- rms norm
grad_case("rms", lambda T, x, w: F(T).rms_norm(x, [4], w, 1e-5), X3, [1.5, -0.5, 0.8, 2.0])
grad_case("rms_default_eps", lambda T, x: F(T).rms_norm(x, (3, 4)), X3)
grad_case("torch_rms_norm", lambda T, x: T.rms_norm(x, [3]), X2)
cases("rms_dtype", lambda T, dtype: F(T).rms_norm(T.tensor(X3, dtype=dtype), [4]), dtype=FLOATS)
error_case("rms_shape", lambda T: F(T).rms_norm(T.tensor(X3), [5]))
error_case("rms_weight_shape", lambda T: F(T).rms_norm(T.tensor(X3), [4], T.ones(3)))
case("rms_module", lambda T: (lambda m: (repr(m), m(T.tensor(X3))))(T.nn.RMSNorm(4)))
case("rms_module_options", lambda T: (lambda m: (repr(m), m(T.tensor(X3)), list(m.parameters())))(T.nn.RMSNorm([3, 4], 1e-4, False)))

# ---------------------------------------------------------------------------------------------- LRN, normalize
grad_case("lrn_3d", lambda T, x: F(T).local_response_norm(x, 2), X3)
grad_case("lrn_4d", lambda T, x: F(T).local_response_norm(x, 3, 1e-2, 0.5, 2.0), X4)
case("lrn_module", lambda T: (lambda m: (repr(m), m(T.tensor(X4))))(T.nn.LocalResponseNorm(2)))
error_case("lrn_2d", lambda T: F(T).local_response_norm(T.tensor(X2), 2))
cases("normalize", lambda T, x, p, dim: F(T).normalize(x, p, dim), X3, kind="grad", p=[2.0, 1.0, 3.0, float("inf")],
      dim=[1, -1])
grad_case("normalize_eps", lambda T, x: F(T).normalize(x, eps=10.0), X2)
case("normalize_zero_row", lambda T: F(T).normalize(T.tensor([[0.0, 0.0], [3.0, 4.0]])))
case("normalize_out", lambda T: (lambda o: (F(T).normalize(T.tensor(X2), out=o), o))(T.empty(4, 3)))

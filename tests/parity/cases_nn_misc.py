"""F.interpolate and the Upsample modules, scaled_dot_product_attention (torch's flash kernel and its math path),
distances (cosine_similarity, pairwise_distance and their modules), channel_shuffle, dropout modules in eval mode."""
from .harness import *  # noqa: F401,F403

IMG = [[[[((n * 7 + c * 5 + h * 3 + w) % 11 - 5) * 0.37 + 0.01 * (h - w) for w in range(5)] for h in range(4)]
        for c in range(2)] for n in range(2)]                                          # [2, 2, 4, 5]
SEQ = [[[((n * 5 + c * 3 + t) % 9 - 4) * 0.4 + 0.03 * t for t in range(6)] for c in range(3)] for n in range(2)]
VOL = [[[[[((d * 3 + h * 2 + w) % 5 - 2) * 0.5 for w in range(3)] for h in range(2)] for d in range(3)]]]


def F(T):
    return T.nn.functional


INTERP2D = {
    "nearest_x2": dict(scale_factor=2),
    "nearest_size": dict(size=(7, 3)),
    "nearest_frac": dict(scale_factor=(1.5, 0.7)),
    "nearest_down": dict(scale_factor=0.5),
    "nearest_recompute": dict(scale_factor=1.7, recompute_scale_factor=True),
    "nearest_exact": dict(size=(3, 7), mode="nearest-exact"),
    "nearest_exact_scale": dict(scale_factor=1.6, mode="nearest-exact"),
    "bilinear_x2": dict(scale_factor=2, mode="bilinear"),
    "bilinear_ac": dict(size=(7, 9), mode="bilinear", align_corners=True),
    "bilinear_frac": dict(scale_factor=1.7, mode="bilinear"),
    "bilinear_down": dict(scale_factor=0.5, mode="bilinear"),
    "bilinear_recompute": dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
    "bilinear_size1": dict(size=(1, 1), mode="bilinear", align_corners=True),
    "bicubic": dict(size=(5, 8), mode="bicubic"),
    "bicubic_ac": dict(scale_factor=2, mode="bicubic", align_corners=True),
    "bicubic_down": dict(scale_factor=(0.6, 0.8), mode="bicubic"),
    "area": dict(size=(2, 2), mode="area"),
    "area_scale": dict(scale_factor=0.5, mode="area"),
}
for _n, _kw in INTERP2D.items():
    # bicubic: torch computes the cubic coefficients in float; wick in double (a few ulps apart)
    grad_case(f"interp_{_n}", lambda T, x, _kw=_kw: F(T).interpolate(x, **_kw), IMG,
              rtol=1e-4 if "bicubic" in _n else None, atol=1e-5 if "bicubic" in _n else None)
INTERP1D = {
    "nearest": dict(scale_factor=3), "nearest_size": dict(size=4), "linear": dict(scale_factor=2.5, mode="linear"),
    "linear_ac": dict(size=9, mode="linear", align_corners=True), "nearest_exact": dict(size=4, mode="nearest-exact"),
    "area": dict(size=4, mode="area"),
}
for _n, _kw in INTERP1D.items():
    grad_case(f"interp1d_{_n}", lambda T, x, _kw=_kw: F(T).interpolate(x, **_kw), SEQ)
INTERP3D = {"nearest": dict(scale_factor=2), "trilinear": dict(size=(4, 3, 5), mode="trilinear"),
            "trilinear_ac": dict(scale_factor=(1.5, 2, 1), mode="trilinear", align_corners=True),
            "nearest_exact": dict(size=(2, 3, 4), mode="nearest-exact")}
for _n, _kw in INTERP3D.items():
    grad_case(f"interp3d_{_n}", lambda T, x, _kw=_kw: F(T).interpolate(x, **_kw), VOL)
grad_case("interp_bilinear_grad2", lambda T, x: F(T).interpolate(x * x, scale_factor=2, mode="bilinear"), IMG, order=2)
cases("interp_dtype", lambda T, dtype, mode: F(T).interpolate(T.tensor(IMG, dtype=dtype), scale_factor=2, mode=mode),
      dtype=FLOATS, mode=["nearest", "bilinear"])
case("interp_nearest_uint8", lambda T: F(T).interpolate(T.tensor([[[[1, 2], [3, 4]]]], dtype=T.uint8), scale_factor=2))
case("interp_noncontig", lambda T: F(T).interpolate(T.tensor(IMG).transpose(2, 3), scale_factor=1.5, mode="bilinear"))
case("interp_torch_nn_vec", lambda T: T._C._nn.upsample_bilinear2d(T.tensor(IMG), [5, 6], False, None))
case("interp_torch_nn_vec_scales", lambda T: T._C._nn.upsample_nearest2d(T.tensor(IMG), None, [2.0, 1.5]))
error_case("interp_both", lambda T: F(T).interpolate(T.tensor(IMG), size=3, scale_factor=2))
error_case("interp_neither", lambda T: F(T).interpolate(T.tensor(IMG)))
error_case("interp_align_nearest", lambda T: F(T).interpolate(T.tensor(IMG), scale_factor=2, align_corners=True))
error_case("interp_size_len", lambda T: F(T).interpolate(T.tensor(IMG), size=(2, 3, 4)))
error_case("interp_scale_len", lambda T: F(T).interpolate(T.tensor(IMG), scale_factor=(2.0,)))
error_case("interp_size_float", lambda T: F(T).interpolate(T.tensor(IMG), size=(2.5, 3)))
error_case("interp_recompute_size", lambda T: F(T).interpolate(T.tensor(IMG), size=3, recompute_scale_factor=True))
error_case("interp_bilinear_3d", lambda T: F(T).interpolate(T.tensor(SEQ), scale_factor=2, mode="bilinear"))
error_case("interp_linear_4d", lambda T: F(T).interpolate(T.tensor(IMG), scale_factor=2, mode="linear"))
error_case("interp_trilinear_4d", lambda T: F(T).interpolate(T.tensor(IMG), scale_factor=2, mode="trilinear"))
error_case("interp_bad_mode", lambda T: F(T).interpolate(T.tensor(IMG), scale_factor=2, mode="cubic"))
error_case("interp_2d_input", lambda T: F(T).interpolate(T.ones(3, 4), scale_factor=2))
error_case("interp_zero_out", lambda T: F(T).interpolate(T.tensor(IMG), scale_factor=0.1))
error_case("interp_int", lambda T: F(T).interpolate(T.ones(1, 1, 2, 2, dtype=T.int64), scale_factor=2, mode="bilinear"))
error_case("interp_antialias_3d", lambda T: F(T).interpolate(T.tensor(SEQ), scale_factor=2, mode="linear", antialias=True))
case("interp_upsample_deprecated", lambda T: F(T).upsample(T.tensor(IMG), scale_factor=2), warns=True)
case("interp_upsample_bilinear_deprecated", lambda T: F(T).upsample_bilinear(T.tensor(IMG), size=(3, 3)), warns=True)
case("interp_upsample_nearest_deprecated", lambda T: F(T).upsample_nearest(T.tensor(IMG), scale_factor=3), warns=True)

UPSAMPLE = [
    lambda T: T.nn.Upsample(scale_factor=2), lambda T: T.nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
    lambda T: T.nn.Upsample(scale_factor=(1.5, 2.0), mode="bicubic"), lambda T: T.nn.UpsamplingNearest2d(scale_factor=2),
    lambda T: T.nn.UpsamplingBilinear2d(size=3), lambda T: T.nn.Upsample(size=5, mode="nearest-exact"),
]
for _i, _m in enumerate(UPSAMPLE):
    case(f"upsample_module_{_i}", lambda T, _m=_m: (repr(_m(T)), _m(T)(T.tensor(IMG))))

# ---------------------------------------------------------------------------------------------- attention
Q = [[[[((b * 7 + h * 5 + i * 3 + e) % 9 - 4) * 0.3 for e in range(5)] for i in range(4)] for h in range(3)] for b in range(2)]
K = [[[[((b * 5 + h * 3 + i * 7 + e * 2) % 11 - 5) * 0.25 for e in range(5)] for i in range(6)] for h in range(3)] for b in range(2)]
V = [[[[((b * 3 + h * 7 + i * 5 + e) % 7 - 3) * 0.4 for e in range(5)] for i in range(6)] for h in range(3)] for b in range(2)]
V7 = [[[[((b * 3 + h * 7 + i * 5 + e) % 7 - 3) * 0.4 for e in range(7)] for i in range(6)] for h in range(3)] for b in range(2)]
MASK = [[(i * 3 + j) % 4 != 1 for j in range(6)] for i in range(4)]
FMASK = [[[[((b + i * 2 + j) % 5 - 2) * 0.5 for j in range(6)] for i in range(4)]] for b in range(2)]


def sdpa(T):
    return F(T).scaled_dot_product_attention


grad_case("sdpa_flash", lambda T, q, k, v: sdpa(T)(q, k, v), Q, K, V)
grad_case("sdpa_flash_causal", lambda T, q, k, v: sdpa(T)(q, k, v, is_causal=True), Q, K, V)
grad_case("sdpa_flash_bool_mask", lambda T, q, k, v: sdpa(T)(q, k, v, attn_mask=T.tensor(MASK)), Q, K, V)
grad_case("sdpa_flash_float_mask", lambda T, q, k, v: sdpa(T)(q, k, v, attn_mask=T.tensor(FMASK)), Q, K, V)
grad_case("sdpa_flash_scale", lambda T, q, k, v: sdpa(T)(q, k, v, scale=0.3), Q, K, V)
grad_case("sdpa_flash_neg_scale", lambda T, q, k, v: sdpa(T)(q, k, v, scale=-0.7), Q, K, V)
grad_case("sdpa_math_head_dims", lambda T, q, k, v: sdpa(T)(q, k, v), Q, K, V7)
grad_case("sdpa_math_causal", lambda T, q, k, v: sdpa(T)(q, k, v, is_causal=True), Q, K, V7)
grad_case("sdpa_math_mask", lambda T, q, k, v: sdpa(T)(q, k, v, attn_mask=T.tensor(MASK)), Q, K, V7)
grad_case("sdpa_math_3d", lambda T, q, k, v: sdpa(T)(q[0], k[0], v[0]), Q, K, V)
grad_case("sdpa_math_2d", lambda T, q, k, v: sdpa(T)(q[0, 0], k[0, 0], v[0, 0], scale=0.5), Q, K, V)
grad_case("sdpa_math_gqa", lambda T, q, k, v: sdpa(T)(q, k[:, :1], v[:, :1], enable_gqa=True), Q, K, V)
grad_case("sdpa_math_float_mask_grad", lambda T, q, k, v, m: sdpa(T)(q, k, v, attn_mask=m), Q, K, V7, FMASK)
grad_case("sdpa_flash_double", lambda T, q, k, v: sdpa(T)(q, k, v), inp(Q, dtype=D.float64), inp(K, dtype=D.float64),
          inp(V, dtype=D.float64))
case("sdpa_causal_long_query", lambda T: sdpa(T)(T.tensor(K), T.tensor(Q), T.tensor(Q), is_causal=True))
case("sdpa_fully_masked_row", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K), T.tensor(V), attn_mask=T.tensor(
    [[True] * 6, [False] * 6, [True, False] * 3, [False] * 5 + [True]])))
case("sdpa_fully_masked_float", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K), T.tensor(V7),
                                                 attn_mask=T.full((4, 6), float("-inf"))))
case("sdpa_no_grad", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K), T.tensor(V)))
case("sdpa_half", lambda T: sdpa(T)(T.tensor(Q, dtype=T.float16), T.tensor(K, dtype=T.float16), T.tensor(V7, dtype=T.float16)))
case("sdpa_dropout_zero_eval", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K), T.tensor(V), dropout_p=0.0))
case("torch_flash_cpu", lambda T: T._scaled_dot_product_flash_attention_for_cpu(T.tensor(Q), T.tensor(K), T.tensor(V)))
case("torch_safe_softmax", lambda T: T._safe_softmax(T.tensor([[1.0, 2.0, float("-inf")], [float("-inf")] * 3]), -1))
error_case("sdpa_dtype_mismatch", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K, dtype=T.float64), T.tensor(V)))
case("sdpa_causal_and_mask", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K), T.tensor(V), attn_mask=T.tensor(MASK),
                                                     is_causal=True))
error_case("sdpa_causal_and_mask_math", lambda T: sdpa(T)(T.tensor(Q), T.tensor(K), T.tensor(V7), attn_mask=T.tensor(MASK),
                                                          is_causal=True))
error_case("sdpa_int", lambda T: sdpa(T)(T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.int64)),
           match=r"expected m1 and m2 to have the same dtype")

# ---------------------------------------------------------------------------------------------- distances
A = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]
B = [[0.25, -1.0, 3.0], [1.0, 0.0, -0.5]]
cases("cosine_similarity", lambda T, a, b, dim: F(T).cosine_similarity(a, b, dim), A, B, kind="grad", dim=[1, 0, -1])
grad_case("cosine_similarity_broadcast", lambda T, a, b: F(T).cosine_similarity(a, b), A, [[0.25, -1.0, 3.0]])
grad_case("cosine_similarity_eps", lambda T, a, b: F(T).cosine_similarity(a, b, eps=5.0), A, B)
case("cosine_similarity_zero", lambda T: F(T).cosine_similarity(T.zeros(2, 3), T.tensor(B)))
case("cosine_similarity_torch", lambda T: T.cosine_similarity(T.tensor(A), T.tensor(B), 0))
case("cosine_similarity_module", lambda T: T.nn.CosineSimilarity(dim=0, eps=1e-6)(T.tensor(A), T.tensor(B)))
case("cosine_similarity_int_float", lambda T: F(T).cosine_similarity(T.tensor([[1, 2, 3]]), T.tensor(B)))
error_case("cosine_similarity_int", lambda T: F(T).cosine_similarity(T.tensor([[1, 2]]), T.tensor([[3, 4]])))
NORM_SKIP = "wick's torch.norm(x, p, dim) records LinalgVectorNormBackward0 (torch: NormBackward1); values checked below"
cases("pairwise_distance", lambda T, a, b, p: F(T).pairwise_distance(a, b, p), A, B, kind="grad",
      p=[2.0, 1.0, 3.0, float("inf")], skip=NORM_SKIP)
cases("pairwise_distance_value", lambda T, p: F(T).pairwise_distance(T.tensor(A), T.tensor(B), p),
      p=[2.0, 1.0, 3.0, float("inf")])
grad_case("pairwise_distance_keepdim", lambda T, a, b: F(T).pairwise_distance(a, b, keepdim=True, eps=0.1), A, B,
          skip=NORM_SKIP)
grad_case("pairwise_distance_1d", lambda T, a, b: F(T).pairwise_distance(a, b), A[0], B[0], skip=NORM_SKIP)
case("pairwise_distance_module", lambda T: T.nn.PairwiseDistance(p=1.5)(T.tensor(A), T.tensor(B)))
case("pairwise_distance_torch", lambda T: T.pairwise_distance(T.tensor(A), T.tensor(B), 2.0, 1e-6, False))

# ---------------------------------------------------------------------------------------------- shuffles, dropout
grad_case("channel_shuffle", lambda T, x: F(T).channel_shuffle(x, 2), [[[[1.0, 2.0]], [[3.0, -4.0]], [[5.0, 6.0]], [[-7.0, 8.0]]]])
case("channel_shuffle_module", lambda T: (repr(T.nn.ChannelShuffle(2)), T.nn.ChannelShuffle(3)(T.arange(12.0).reshape(1, 6, 2))))
error_case("channel_shuffle_groups", lambda T: F(T).channel_shuffle(T.ones(1, 5, 2), 2))
error_case("channel_shuffle_2d", lambda T: F(T).channel_shuffle(T.ones(4, 2), 2))
error_case("channel_shuffle_zero", lambda T: F(T).channel_shuffle(T.ones(1, 4, 2), 0))
case("torch_channel_shuffle", lambda T: T.channel_shuffle(T.arange(24.0).reshape(2, 6, 2), 3))
for _name in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
    def _eval(T, _name=_name):
        m = getattr(T.nn, _name)(0.4)
        m.eval()
        x = T.tensor(SEQ if _name == "Dropout1d" else IMG)
        return repr(m), m(x), m.training
    case(f"dropout_module_eval_{_name}", _eval)
    error_case(f"dropout_module_bad_p_{_name}", lambda T, _name=_name: getattr(T.nn, _name)(1.5))
case("dropout_p0_train", lambda T: F(T).dropout(T.tensor(A), 0.0, True))
case("dropout_eval", lambda T: F(T).dropout(T.tensor(A), 0.5, False))
error_case("dropout_bad_p", lambda T: F(T).dropout(T.tensor(A), -0.1))
case("dropout_repr_inplace", lambda T: repr(T.nn.Dropout(0.2, inplace=True)))


# dropout in training mode: the masks are drawn from the generator exactly as torch draws them
def _train_dropout(T, name, data, p):
    m = getattr(T.nn, name)(p)
    x = T.tensor(data, requires_grad=True)
    out = m(x)
    (out * 1.5).sum().backward()
    return out, x.grad


for _name, _data in (("Dropout", IMG), ("Dropout1d", SEQ), ("Dropout2d", IMG), ("Dropout3d", VOL), ("AlphaDropout", IMG),
                     ("FeatureAlphaDropout", IMG)):
    cases(f"dropout_module_train_{_name}", lambda T, p, _name=_name, _data=_data: _train_dropout(T, _name, _data, p),
          p=[0.2, 0.5])


def _dropout_model(T):
    m = T.nn.Sequential(T.nn.Linear(5, 8), T.nn.ReLU(), T.nn.Dropout(0.3), T.nn.Linear(8, 2))
    x = T.tensor(IMG[0][0])
    out = m(x)
    out.sum().backward()
    m.eval()
    return out, [p.grad for p in m.parameters()], m(x)


case("dropout_model_seeded", _dropout_model)
case("dropout_inplace_module", lambda T: (lambda x: (T.nn.Dropout(0.5, inplace=True)(x), x))(T.tensor(IMG)))


# ---- found by a differential sweep of nn.functional with drawn arguments (session 7)
cases("avg_pool_stride_none", lambda T, f: (getattr(T.nn.functional, f)(T.arange(16.).reshape(1, 1, 4, 4), 2, None)
                                            if f == "avg_pool2d" else T.nn.functional.avg_pool1d(T.arange(8.).reshape(1, 1, 8), 3, None)),
      f=["avg_pool2d", "avg_pool1d"])
error_case("avg_pool_padding_none", lambda T: T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 2, padding=None))


def _pad_outcome(T, ndim, pads, mode):
    x = T.arange(float(2 * 3 * 4 * 5)).reshape(1, 2, 3, 4, 5)[(0,) * (5 - ndim)]
    try:
        return T.nn.functional.pad(x, pads, mode=mode)
    except RuntimeError as e:
        return str(e)


cases("pad_negative", _pad_outcome, ndim=[3, 4, 5], mode=["constant", "reflect", "replicate", "circular"],
      pads=[(-2, -2), (-3, -2), (-1, 1), (-3, 0), (1, -2, 1, -1), (0, 0, -2, -1), (0, 0, -3, 0), (3, -1, 1, 1),
            (0, 0, 0, 0, -1, -1), (0, 0, 0, 0, 2, 0), (-4, -1, 0, 0, 0, 0)])
grad_case("pad_negative_grad", lambda T, x: T.nn.functional.pad(x, (-1, 1, 1, -2), mode="replicate"),
          [[[0.5, -1.25, 2.0, 3.5], [1.75, -0.5, 0.125, -3.0], [2.25, 4.0, -1.5, 0.75]]])


def _pool_pad_outcome(T, op, k, p, d):
    x = T.arange(343.).reshape(1, 1, 7, 7, 7)
    try:
        return {"max_pool1d": lambda: T.nn.functional.max_pool1d(x[0, 0], k, 1, p, d),
                "max_pool2d": lambda: T.nn.functional.max_pool2d(x[0], k, 1, p, d),
                "max_pool3d": lambda: T.nn.functional.max_pool3d(x, k, 1, p, d)}[op]()
    except RuntimeError as e:
        return str(e)


cases("max_pool_pad_vs_dilation", _pool_pad_outcome, op=["max_pool1d", "max_pool2d", "max_pool3d"],
      k=[3, 5], p=[1, 2, 3], d=[1, 2])

# F.embedding with max_norm renorms the rows first, as torch's embedding_renorm_: distinct indices in ascending order,
# each row self[i] (a negative index counts from the end; an out-of-range one is select()'s error, raised after the
# rows before it were renormed, so the weight is compared after the error too)
_EMB_W = [[3.0, 4.0, 0.0], [0.3, 0.4, 0.0], [1.0, 2.0, 2.0], [6.0, -8.0, 0.0], [0.5, 0.5, 0.5]]


def _renorm_then(T, idx, dtype):
    w = T.tensor(_EMB_W, dtype=getattr(T, dtype))
    try:
        out = F(T).embedding(T.tensor(idx), w, max_norm=1.5)
    except (IndexError, RuntimeError) as e:
        return type(e).__name__, str(e).split("\nException raised from")[0], w.float()
    return out.float(), w.float()


cases("embedding_max_norm_order", _renorm_then, idx=[[3, 0, 3], [-1, 2], [9, 0], [0, -7, 8], [[1, 2], [3, 9]]],
      dtype=["float32", "float64", "bfloat16"])
error_case("embedding_max_norm_float_indices", lambda T: F(T).embedding(T.tensor([1.0]), T.ones(5, 3), max_norm=1.0))

# F.linear as torch's at::linear: a 1-d weight makes it matmul (an mv or a dot: MvBackward0, DotBackward0), the bias
# then added in place (so it does not widen the output's dtype or shape); 0-d operands name linear
_LIN = {"w1d": lambda T: F(T).linear(T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True), T.tensor([0.5, -1.0, 2.0])),
        "w1d_x1d": lambda T: F(T).linear(T.tensor([1.0, 2.0, 3.0], requires_grad=True), T.tensor([0.5, -1.0, 2.0])),
        "w1d_x3d": lambda T: F(T).linear(T.arange(12.0).reshape(2, 2, 3).requires_grad_(), T.tensor([0.5, -1.0, 2.0])),
        "w1d_bias0d": lambda T: F(T).linear(T.tensor([1.0, 2.0, 3.0], requires_grad=True), T.tensor([0.5, -1.0, 2.0]), T.tensor(1.5)),
        "noncontig_bias_f64": lambda T: F(T).linear(T.arange(24.0).reshape(3, 2, 4).transpose(0, 1), T.ones(5, 4), T.arange(5.0).double()),
        "x3d_t_bias": lambda T: F(T).linear(T.arange(24.0).reshape(3, 2, 4).transpose(0, 1).requires_grad_(), T.ones(5, 4), T.arange(5.0))}
cases("linear_matmul_path", lambda T, how: (r := _LIN[how](T), r.dtype, r.grad_fn.name() if r.grad_fn else None)[1:] + (r,), how=sorted(_LIN))
error_case("linear_0d", lambda T: F(T).linear(T.tensor(1.0), T.ones(2, 2)))
error_case("linear_w1d_bias_2d_input", lambda T: F(T).linear(T.ones(2, 3), T.ones(3), T.ones(2)))
error_case("linear_w1d_bias_widens", lambda T: F(T).linear(T.ones(4, 3).t(), T.ones(4), T.ones(2, 2)))


def _linear_draw(T, seed):
    """F.linear over drawn layouts: input 1-4 dims (contiguous or not), weight 2-D or 1-D, bias absent / 1-D / 0-d /
    broadcasting / wider dtype: which of torch's paths runs shows in the grad_fn name and the errors"""
    import math
    import random
    r = random.Random(seed)
    nd = r.choice([1, 2, 3, 4])
    sh = [r.choice([1, 2, 3]) for _ in range(nd - 1)] + [3]
    x = T.arange(float(math.prod(sh))).reshape(sh)
    if r.random() < 0.3 and nd >= 2:
        x = x.transpose(0, -1).contiguous().transpose(0, -1)
    x.requires_grad_()
    w = T.ones(r.choice([[4, 3], [3], [1, 3]]), requires_grad=True)
    b = r.choice([None, T.ones(4), T.ones(()), T.ones(1), T.ones(2, 4), T.ones(4).double()])
    try:
        y = F(T).linear(x, w, b)
        y.sum().backward()
    except RuntimeError as e:
        return "RuntimeError", str(e).split("\nException raised from")[0]
    return y, y.grad_fn.name(), x.grad, w.grad


cases("linear_drawn", _linear_draw, seed=list(range(150)))

"""nn.MultiheadAttention, F.multi_head_attention_forward, nn.Transformer(Encoder|Decoder)(Layer): seeded parameters
(torch's draws bit for bit), forward values in training and eval mode (the inference fast paths included), masks of
every kind, dropout's random stream, gradients of inputs and parameters, printouts, warnings and errors."""
from .harness import *  # noqa: F401,F403


def _seq(L, N, E, k=0):
    """[L, N, E] distinct, uneven values (N=None: [L, E])."""
    def v(l, n, e):
        return round(((l * 7 + n * 5 + e * 3 + k * 11) % 13 - 6) * 0.23 + 0.05 * e - 0.03 * l + 0.01 * k, 4)
    if N is None:
        return [[v(l, 0, e) for e in range(E)] for l in range(L)]
    return [[[v(l, n, e) for e in range(E)] for n in range(N)] for l in range(L)]


def _bf(x):
    """[L, N, E] list -> [N, L, E] list."""
    return [[x[l][n] for l in range(len(x))] for n in range(len(x[0]))]


Q = _seq(3, 2, 4)           # [L=3, N=2, E=4]
KV = _seq(5, 2, 4, 1)       # [S=5, N=2, E=4]
V2 = _seq(5, 2, 4, 2)
K3 = _seq(5, 2, 3, 3)       # kdim 3
V5 = _seq(5, 2, 5, 4)       # vdim 5
Q1 = _seq(3, None, 4)       # unbatched [L, E]
KV1 = _seq(5, None, 4, 1)

AM_B = [[False, True, False, False, True], [False, False, True, False, False], [True, False, False, False, False]]
AM_F = [[0.0, -1.5, 0.25, 0.0, -0.5], [0.3, 0.0, -2.0, 0.1, 0.0], [-0.7, 0.0, 0.0, 0.4, -1.0]]
KPM_B = [[False, False, True, False, True], [False, True, False, False, False]]
KPM_F = [[0.0, 0.0, -1.25, 0.0, -0.5], [0.0, -2.0, 0.0, 0.75, 0.0]]
SAM_B = [[False, True, True], [False, False, True], [False, False, False]]    # square causal (bool)
SKPM_B = [[False, False, True], [False, True, True]]                           # left-aligned padding for L=3


def nn(T):
    return T.nn


def _mha(T, E=4, H=2, **kw):
    return T.nn.MultiheadAttention(E, H, **kw)


def _wsum(T, out):
    n = out.numel()
    return (out * T.tensor(weights(n), dtype=out.dtype).reshape(out.shape)).sum()


def _pgrads(T, m, outs):
    """Backprop the weighted sum of outs into m's parameters; -> [(name, grad)] (None stays None)."""
    loss = sum(_wsum(T, o) for o in outs if o is not None and o.requires_grad)
    loss.backward()
    return [(n, p.grad) for n, p in m.named_parameters()]


def _run(T, ctor=None, fwd=None, q=Q, k=None, v=None, train=True, masks=None, no_grad=False, bf=False, self_attn=False,
         ret="out"):
    """Build MultiheadAttention(**ctor) (seeded), call it on tensors from lists and return its outputs.
    masks: dict name -> (list, dtype name); k/v None: self attention (the same tensor) when self_attn."""
    m = T.nn.MultiheadAttention(**dict(dict(embed_dim=4, num_heads=2), **(ctor or {})))
    if not train:
        m.eval()
    cv = (lambda x: _bf(x)) if bf else (lambda x: x)
    query = T.tensor(cv(q))
    if self_attn:
        key = value = query
    else:
        key = T.tensor(cv(k if k is not None else KV))
        value = key if v is None else T.tensor(cv(v))
    kw = dict(fwd or {})
    for name, (data, dt) in (masks or {}).items():
        kw[name] = T.tensor(data, dtype=getattr(T, dt))
    if no_grad:
        with T.no_grad():
            o, w = m(query, key, value, **kw)
    else:
        o, w = m(query, key, value, **kw)
    if ret == "grads":
        return o, w, _pgrads(T, m, [o, w])
    return o, w


# ------------------------------------------------------------------------------------------ construction
CTORS = {
    "default": {},
    "nobias": {"bias": False},
    "bias_kv": {"add_bias_kv": True},
    "kvdim": {"kdim": 3, "vdim": 5},
    "kdim_only": {"kdim": 3},
    "h4_e8": {"embed_dim": 8, "num_heads": 4},
    "zero_attn_bias_kv_nobias": {"add_bias_kv": True, "add_zero_attn": True, "bias": False},
    "double": {"dtype": "float64"},
}


def _ctor(T, kw):
    kw = dict(kw)
    if "dtype" in kw:
        kw["dtype"] = getattr(T, kw["dtype"])
    return T.nn.MultiheadAttention(**dict(dict(embed_dim=4, num_heads=2), **kw))


for _n, _kw in CTORS.items():
    case(f"mha_params_seeded[{_n}]", lambda T, kw=_kw: list(_ctor(T, kw).named_parameters()))
    case(f"mha_attrs[{_n}]", lambda T, kw=_kw: (lambda m: (m.embed_dim, m.kdim, m.vdim, m._qkv_same_embed_dim, m.num_heads,
                                                          m.head_dim, m.dropout, m.batch_first, m.add_zero_attn,
                                                          m.in_proj_weight is None, m.bias_k is None,
                                                          list(m.state_dict().keys())))(_ctor(T, kw)))
    print_case(f"mha_repr[{_n}]", lambda T, kw=_kw: _ctor(T, kw))
print_case("mha_out_proj_repr", lambda T: T.nn.MultiheadAttention(6, 3, bias=False).out_proj)
case("mha_out_proj_type", lambda T: (type(T.nn.MultiheadAttention(4, 2).out_proj).__name__,
                                     isinstance(T.nn.MultiheadAttention(4, 2).out_proj, T.nn.Linear)))
case("mha_constants", lambda T: T.nn.MultiheadAttention.__constants__)
error_case("mha_embed_zero", lambda T: T.nn.MultiheadAttention(0, 2))
error_case("mha_heads_neg", lambda T: T.nn.MultiheadAttention(4, -1))
error_case("mha_not_divisible", lambda T: T.nn.MultiheadAttention(5, 2))

# ------------------------------------------------------------------------------------------ forward (training mode)
FWD = {
    "self_weights": dict(self_attn=True),
    "self_noweights": dict(self_attn=True, fwd={"need_weights": False}),
    "self_per_head": dict(self_attn=True, fwd={"average_attn_weights": False}),
    "cross": dict(),
    "cross_noweights": dict(fwd={"need_weights": False}),
    "kv_distinct": dict(v=V2),
    "kv_distinct_noweights": dict(v=V2, fwd={"need_weights": False}),
    "kvdim": dict(ctor={"kdim": 3, "vdim": 5}, k=K3, v=V5),
    "kvdim_noweights": dict(ctor={"kdim": 3, "vdim": 5}, k=K3, v=V5, fwd={"need_weights": False}),
    "kvdim_per_head": dict(ctor={"kdim": 3, "vdim": 5}, k=K3, v=V5, fwd={"average_attn_weights": False}),
    "nobias": dict(ctor={"bias": False}),
    "nobias_noweights": dict(ctor={"bias": False}, fwd={"need_weights": False}),
    "bias_kv": dict(ctor={"add_bias_kv": True}),
    "bias_kv_noweights": dict(ctor={"add_bias_kv": True}, fwd={"need_weights": False}),
    "zero_attn": dict(ctor={"add_zero_attn": True}),
    "zero_attn_noweights": dict(ctor={"add_zero_attn": True}, fwd={"need_weights": False}),
    "bias_kv_zero_attn_masks": dict(ctor={"add_bias_kv": True, "add_zero_attn": True},
                                    masks={"attn_mask": (AM_B, "bool"), "key_padding_mask": (KPM_B, "bool")}),
    "bias_kv_zero_attn_masks_noweights": dict(ctor={"add_bias_kv": True, "add_zero_attn": True},
                                              masks={"attn_mask": (AM_F, "float32"), "key_padding_mask": (KPM_F, "float32")},
                                              fwd={"need_weights": False}),
    "h1": dict(ctor={"num_heads": 1}),
    "h4_e8": dict(ctor={"embed_dim": 8, "num_heads": 4}, q=_seq(3, 2, 8), k=_seq(5, 2, 8, 1)),
    "batch_first_self": dict(ctor={"batch_first": True}, self_attn=True, bf=True),
    "batch_first_cross": dict(ctor={"batch_first": True}, bf=True),
    "batch_first_kv_distinct": dict(ctor={"batch_first": True}, bf=True, v=V2, fwd={"need_weights": False}),
    "am2_bool": dict(masks={"attn_mask": (AM_B, "bool")}),
    "am2_bool_noweights": dict(masks={"attn_mask": (AM_B, "bool")}, fwd={"need_weights": False}),
    "am2_float": dict(masks={"attn_mask": (AM_F, "float32")}),
    "am2_float_noweights": dict(masks={"attn_mask": (AM_F, "float32")}, fwd={"need_weights": False}),
    "am3_bool": dict(masks={"attn_mask": ([AM_B, AM_B[::-1], AM_B[1:] + AM_B[:1], AM_B], "bool")}),
    "am3_float_noweights": dict(masks={"attn_mask": ([AM_F, AM_F[::-1], AM_F[1:] + AM_F[:1], AM_F], "float32")},
                                fwd={"need_weights": False}),
    "kpm_bool": dict(masks={"key_padding_mask": (KPM_B, "bool")}),
    "kpm_bool_noweights": dict(masks={"key_padding_mask": (KPM_B, "bool")}, fwd={"need_weights": False}),
    "kpm_float": dict(masks={"key_padding_mask": (KPM_F, "float32")}),
    "kpm_float_per_head": dict(masks={"key_padding_mask": (KPM_F, "float32")}, fwd={"average_attn_weights": False}),
    "both_bool": dict(masks={"attn_mask": (AM_B, "bool"), "key_padding_mask": (KPM_B, "bool")}),
    "both_float_noweights": dict(masks={"attn_mask": (AM_F, "float32"), "key_padding_mask": (KPM_F, "float32")},
                                 fwd={"need_weights": False}),
    "causal_self": dict(self_attn=True, masks={"attn_mask": (SAM_B, "bool")}, fwd={"is_causal": True}),
    "causal_self_noweights": dict(self_attn=True, masks={"attn_mask": (SAM_B, "bool")},
                                  fwd={"is_causal": True, "need_weights": False}),
    "causal_self_kpm_noweights": dict(self_attn=True, masks={"attn_mask": (SAM_B, "bool"),
                                                             "key_padding_mask": (SKPM_B, "bool")},
                                      fwd={"is_causal": True, "need_weights": False}),
    # the hint is trusted: with need_weights=False and no padding mask SDPA applies its own causal mask
    "causal_hint_wrong_mask_noweights": dict(self_attn=True, masks={"attn_mask": ([[False] * 3] * 3, "bool")},
                                             fwd={"is_causal": True, "need_weights": False}),
    "fully_masked_row": dict(masks={"attn_mask": ([[True] * 5, AM_B[1], AM_B[2]], "bool")}),
    "fully_masked_row_noweights": dict(masks={"attn_mask": ([[True] * 5, AM_B[1], AM_B[2]], "bool")},
                                       fwd={"need_weights": False}),
    "unbatched": dict(q=Q1, k=KV1),
    "unbatched_noweights": dict(q=Q1, k=KV1, fwd={"need_weights": False}),
    "unbatched_per_head": dict(q=Q1, k=KV1, fwd={"average_attn_weights": False}),
    "unbatched_kpm_am3": dict(q=Q1, k=KV1, masks={"key_padding_mask": (KPM_B[0], "bool"),
                                                  "attn_mask": ([AM_B, AM_B[::-1]], "bool")}),
    "unbatched_kpm_am3_noweights": dict(q=Q1, k=KV1, masks={"key_padding_mask": (KPM_F[0], "float32"),
                                                            "attn_mask": ([AM_F, AM_F[::-1]], "float32")},
                                        fwd={"need_weights": False}),
    "unbatched_batch_first": dict(ctor={"batch_first": True}, q=Q1, k=KV1),
    "unbatched_bias_kv_zero_attn": dict(ctor={"add_bias_kv": True, "add_zero_attn": True}, q=Q1, k=KV1,
                                        masks={"key_padding_mask": (KPM_B[1], "bool")}),
}
for _n, _kw in FWD.items():
    case(f"mha_fwd[{_n}]", lambda T, kw=_kw: _run(T, **kw))
    case(f"mha_fwd_grads[{_n}]", lambda T, kw=_kw: _run(T, ret="grads", **kw))

# mismatched mask dtypes: torch's deprecation warning (and the values)
case("mha_mismatched_masks_warn", lambda T: _run(T, masks={"attn_mask": (AM_F, "float32"), "key_padding_mask": (KPM_B, "bool")}),
     warns=True)
case("mha_mismatched_masks_warn2", lambda T: _run(T, masks={"attn_mask": (AM_B, "bool"), "key_padding_mask": (KPM_F, "float32")},
                                                  fwd={"need_weights": False}), warns=True)
case("mha_same_masks_nowarn", lambda T: _run(T, masks={"attn_mask": (AM_B, "bool"), "key_padding_mask": (KPM_B, "bool")}),
     warns=True)

# errors in forward
error_case("mha_causal_without_mask", lambda T: _run(T, self_attn=True, fwd={"is_causal": True}))
error_case("mha_query_4d", lambda T: _mha(T)(T.ones(1, 2, 3, 4), T.ones(1, 2, 3, 4), T.ones(1, 2, 3, 4)))
error_case("mha_query_1d", lambda T: _mha(T)(T.ones(4), T.ones(4), T.ones(4)))
error_case("mha_batched_key_2d", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 4), T.ones(5, 4)))
error_case("mha_unbatched_key_3d", lambda T: _mha(T)(T.ones(3, 4), T.ones(5, 1, 4), T.ones(5, 1, 4)))
error_case("mha_kpm_1d_batched", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4),
                                                   key_padding_mask=T.zeros(5, dtype=T.bool)))
error_case("mha_kpm_2d_unbatched", lambda T: _mha(T)(T.ones(3, 4), T.ones(5, 4), T.ones(5, 4),
                                                     key_padding_mask=T.zeros(1, 5, dtype=T.bool)))
error_case("mha_am_1d", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4), attn_mask=T.zeros(5)))
error_case("mha_am_4d_unbatched", lambda T: _mha(T)(T.ones(3, 4), T.ones(5, 4), T.ones(5, 4), attn_mask=T.zeros(1, 2, 3, 5)))
error_case("mha_am3_unbatched_shape", lambda T: _mha(T)(T.ones(3, 4), T.ones(5, 4), T.ones(5, 4), attn_mask=T.zeros(3, 3, 5)))
error_case("mha_am2_shape", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4), attn_mask=T.zeros(3, 4)))
error_case("mha_am3_shape", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4), attn_mask=T.zeros(2, 3, 5)))
error_case("mha_kpm_shape0", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4),
                                               key_padding_mask=T.zeros(3, 5, dtype=T.bool)))
error_case("mha_kpm_shape1", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4),
                                               key_padding_mask=T.zeros(2, 4, dtype=T.bool)))
error_case("mha_int_mask", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4), attn_mask=T.zeros(3, 5, dtype=T.int64)))
error_case("mha_int_kpm", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 4),
                                            key_padding_mask=T.zeros(2, 5, dtype=T.int32)))
error_case("mha_embed_mismatch", lambda T: _mha(T)(T.ones(3, 2, 6), T.ones(5, 2, 6), T.ones(5, 2, 6)))
error_case("mha_kv_shape_mismatch", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(4, 2, 4)))
error_case("mha_kdim_mismatch", lambda T: _mha(T, kdim=3, vdim=5)(T.ones(3, 2, 4), T.ones(5, 2, 4), T.ones(5, 2, 5)))
error_case("mha_kv_seq_mismatch_sep", lambda T: _mha(T, kdim=3, vdim=5)(T.ones(3, 2, 4), T.ones(5, 2, 3), T.ones(4, 2, 5)))
error_case("mha_dtype_mismatch", lambda T: _mha(T)(T.ones(3, 2, 4, dtype=T.float64), T.ones(5, 2, 4, dtype=T.float64),
                                                   T.ones(5, 2, 4, dtype=T.float64)))

# ------------------------------------------------------------------------------------------ eval mode: the fast path
EVAL = {
    "plain": dict(),
    "noweights": dict(fwd={"need_weights": False}),
    "per_head": dict(fwd={"average_attn_weights": False}),
    "kpm_bool": dict(masks={"key_padding_mask": (SKPM_B, "bool")}),
    "kpm_float_noweights": dict(masks={"key_padding_mask": ([[0.0, -0.5, 0.25], [0.0, 0.0, -3.0]], "float32")},
                                fwd={"need_weights": False}),
    "am2_bool": dict(masks={"attn_mask": (SAM_B, "bool")}),
    "am3_float": dict(masks={"attn_mask": ([[[0.1 * (i - j) + 0.05 * h for j in range(3)] for i in range(3)]
                                            for h in range(4)], "float32")}),
    "am_kpm": dict(masks={"attn_mask": (SAM_B, "bool"), "key_padding_mask": (SKPM_B, "bool")}),
    # the fast path does not look at is_causal: without a mask, attention is unmasked
    "causal_no_mask": dict(fwd={"is_causal": True}),
    "causal_no_mask_noweights": dict(fwd={"is_causal": True, "need_weights": False}),
    # rows masked everywhere: nan on the fast path even without weights (the slow path's SDPA gives 0)
    "fully_masked_noweights": dict(masks={"key_padding_mask": ([[False, False, True], [True, True, True]], "bool")},
                                   fwd={"need_weights": False}),
    "fully_masked_weights": dict(masks={"attn_mask": ([[True] * 3, [False] * 3, [False, True, False]], "bool")}),
}
for _n, _kw in EVAL.items():
    # fast path: eval, batch_first, self-attention, even heads, no grad
    case(f"mha_eval_fast[{_n}]", lambda T, kw=_kw: _run(T, ctor={"batch_first": True}, self_attn=True, bf=True, train=False,
                                                        no_grad=True, **kw))
    # the same module with grad enabled takes the slow path
    (error_case if "causal" in _n else case)(
        f"mha_eval_slow[{_n}]", lambda T, kw=_kw: _run(T, ctor={"batch_first": True}, self_attn=True, bf=True, train=False, **kw))
case("mha_eval_fast_disabled", lambda T: (T.backends.mha.set_fastpath_enabled(False),
                                          _run(T, ctor={"batch_first": True}, self_attn=True, bf=True, train=False, no_grad=True,
                                               masks={"key_padding_mask": ([[False, False, True], [True, True, True]], "bool")},
                                               fwd={"need_weights": False}),
                                          T.backends.mha.get_fastpath_enabled(), T.backends.mha.set_fastpath_enabled(True))[1:3])
error_case("mha_eval_odd_heads_causal", lambda T: _run(T, ctor={"batch_first": True, "embed_dim": 3, "num_heads": 3},
                                                       q=_seq(3, 2, 3), self_attn=True, bf=True, train=False, no_grad=True,
                                                       fwd={"is_causal": True}))
case("mha_eval_odd_heads", lambda T: _run(T, ctor={"batch_first": True, "embed_dim": 3, "num_heads": 3}, q=_seq(3, 2, 3),
                                          self_attn=True, bf=True, train=False, no_grad=True))
case("mha_eval_seq_first", lambda T: _run(T, self_attn=True, train=False, no_grad=True, fwd={"is_causal": False}))
case("mha_eval_double", lambda T: (lambda m, x: (m(x, x, x), m(x, x, x, need_weights=False)))(
    T.nn.MultiheadAttention(4, 2, batch_first=True).double().eval().requires_grad_(False), T.tensor(_bf(Q), dtype=T.float64)))
case("mha_eval_requires_grad_false_params", lambda T: (lambda m, x: m(x, x, x, key_padding_mask=T.tensor(SKPM_B)))(
    T.nn.MultiheadAttention(4, 2, batch_first=True).eval().requires_grad_(False), T.tensor(_bf(Q))))
error_case("mha_eval_fast_am_shape", lambda T: (lambda m, x: m(x, x, x, attn_mask=T.zeros(3, 5)))(
    T.nn.MultiheadAttention(4, 2, batch_first=True).eval().requires_grad_(False), T.tensor(_bf(Q))))

# ------------------------------------------------------------------------------------------ dropout (training)
for _n, _kw in {"weights": {}, "noweights": {"need_weights": False}, "per_head": {"average_attn_weights": False}}.items():
    case(f"mha_dropout[{_n}]", lambda T, kw=_kw: _run(T, ctor={"dropout": 0.4}, self_attn=True, fwd=kw))
    case(f"mha_dropout_grads[{_n}]", lambda T, kw=_kw: _run(T, ctor={"dropout": 0.4}, fwd=kw, ret="grads",
                                                            masks={"key_padding_mask": (KPM_B, "bool")}))
    case(f"mha_dropout_eval[{_n}]", lambda T, kw=_kw: _run(T, ctor={"dropout": 0.4}, self_attn=True, fwd=kw, train=False))
case("mha_empty_batch", lambda T: (lambda m, q, k: (m(q, k, k), m(q, k, k, need_weights=False)))(
    T.nn.MultiheadAttention(4, 2), T.zeros(3, 0, 4), T.zeros(5, 0, 4)))
case("mha_empty_batch_fast", lambda T: (lambda m, q, q2: (m(q, q, q), m(q2, q2, q2, need_weights=False)))(
    T.nn.MultiheadAttention(4, 2, batch_first=True).eval().requires_grad_(False), T.zeros(0, 3, 4), T.zeros(2, 0, 4)))
case("mha_dropout_rng_after", lambda T: (_run(T, ctor={"dropout": 0.3}), T.rand(3)))

# ------------------------------------------------------------------------------------------ gradients of inputs
def _g(T, q, k, v, ctor=None, **fwd):
    m = T.nn.MultiheadAttention(**dict(dict(embed_dim=4, num_heads=2), **(ctor or {})))
    return m(q, k, v, **fwd)


grad_case("mha_grad_cross", lambda T, q, k, v: _g(T, q, k, v), Q, KV, V2)
grad_case("mha_grad_cross_noweights", lambda T, q, k, v: _g(T, q, k, v, need_weights=False)[0], Q, KV, V2)
grad_case("mha_grad_self", lambda T, x: _g(T, x, x, x), Q)
grad_case("mha_grad_self_noweights", lambda T, x: _g(T, x, x, x, need_weights=False)[0], Q)
grad_case("mha_grad_kv_same", lambda T, q, kv: _g(T, q, kv, kv, average_attn_weights=False), Q, KV)
grad_case("mha_grad_kvdim", lambda T, q, k, v: _g(T, q, k, v, ctor={"kdim": 3, "vdim": 5}), Q, K3, V5)
grad_case("mha_grad_bias_kv_zero_attn", lambda T, q, k, v: _g(T, q, k, v, ctor={"add_bias_kv": True, "add_zero_attn": True},
                                                              key_padding_mask=T.tensor(KPM_B)), Q, KV, V2)
grad_case("mha_grad_float_masks", lambda T, q, k, am, kpm: _g(T, q, k, k, attn_mask=am, key_padding_mask=kpm),
          Q, KV, AM_F, KPM_F)
grad_case("mha_grad_float_masks_noweights", lambda T, q, k, am, kpm: _g(T, q, k, k, attn_mask=am, key_padding_mask=kpm,
                                                                        need_weights=False)[0], Q, KV, AM_F, KPM_F)
grad_case("mha_grad_batch_first", lambda T, q, k: _g(T, q, k, k, ctor={"batch_first": True}, attn_mask=T.tensor(AM_B)),
          _bf(Q), _bf(KV))
grad_case("mha_grad_unbatched", lambda T, q, k: _g(T, q, k, k), Q1, KV1)
grad_case("mha_grad_noncontig", lambda T, q, k: _g(T, q, k, k), inp(_seq(2, 3, 4), view=lambda t: t.transpose(0, 1)),
          inp(_seq(2, 5, 4, 1), view=lambda t: t.transpose(0, 1)))
grad_case("mha_grad2_weights", lambda T, q, k: _g(T, q, k, k), Q, KV, order=2)
grad_case("mha_grad2_kvdim", lambda T, q, k, v: _g(T, q, k, v, ctor={"kdim": 3, "vdim": 5}), Q, K3, V5, order=2)
grad_case("mha_grad_double", lambda T, q, k: (lambda m: m(q, k, k))(T.nn.MultiheadAttention(4, 2).double()),
          inp(Q, dtype=D.float64), inp(KV, dtype=D.float64))

# ------------------------------------------------------------------------------------------ F.multi_head_attention_forward
W12 = [[round(((i * 5 + j * 3) % 11 - 5) * 0.13 + 0.02 * i, 4) for j in range(4)] for i in range(12)]
B12 = [round((i % 5 - 2) * 0.07, 4) for i in range(12)]
WO = [[round(((i * 3 + j * 7) % 9 - 4) * 0.11, 4) for j in range(4)] for i in range(4)]
BO = [0.05, -0.1, 0.0, 0.2]


def _f(T, q, k, v, **kw):
    F = T.nn.functional
    args = dict(in_proj_weight=T.tensor(W12), in_proj_bias=T.tensor(B12), bias_k=None, bias_v=None, add_zero_attn=False,
                dropout_p=0.0, out_proj_weight=T.tensor(WO), out_proj_bias=T.tensor(BO))
    args.update(kw)
    return F.multi_head_attention_forward(q, k, v, 4, 2, **args)


case("F_mha_basic", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(V2)))
case("F_mha_self", lambda T: (lambda x: _f(T, x, x, x, need_weights=False))(T.tensor(Q)))
case("F_mha_positional", lambda T: T.nn.functional.multi_head_attention_forward(
    T.tensor(Q), T.tensor(KV), T.tensor(KV), 4, 2, T.tensor(W12), T.tensor(B12), None, None, True, 0.0, T.tensor(WO),
    T.tensor(BO), False, T.tensor(KPM_B), True, T.tensor(AM_B)))
case("F_mha_no_bias", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), in_proj_bias=None, out_proj_bias=None))
case("F_mha_bias_kv", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), bias_k=T.tensor([[[0.1, -0.2, 0.3, 0.05]]]),
                                   bias_v=T.tensor([[[-0.4, 0.2, 0.0, 0.6]]]), attn_mask=T.tensor(AM_F)))
case("F_mha_separate", lambda T: _f(T, T.tensor(Q), T.tensor(K3), T.tensor(V5), in_proj_weight=None, use_separate_proj_weight=True,
                                    q_proj_weight=T.tensor(W12[:4]), k_proj_weight=T.tensor([r[:3] for r in W12[4:8]]),
                                    v_proj_weight=T.tensor([r + [0.3] for r in W12[8:]])))
case("F_mha_static_kv", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), static_k=T.tensor(_seq(4, 6, 2, 5)),
                                     static_v=T.tensor(_seq(4, 6, 2, 6)), key_padding_mask=T.tensor([[False] * 5 + [True], [False] * 6])))
case("F_mha_dropout_training", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), dropout_p=0.5))
case("F_mha_dropout_training_noweights", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), dropout_p=0.5,
                                                      need_weights=False))
case("F_mha_dropout_eval", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), dropout_p=0.5, training=False))
case("F_mha_causal_noweights", lambda T: (lambda x: _f(T, x, x, x, attn_mask=T.tensor(SAM_B), is_causal=True, need_weights=False))(
    T.tensor(Q)))
case("F_mha_unbatched", lambda T: _f(T, T.tensor(Q1), T.tensor(KV1), T.tensor(KV1), key_padding_mask=T.tensor(KPM_F[1])))
grad_case("F_mha_grad_weights", lambda T, w, b, wo, bo: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(V2), in_proj_weight=w, in_proj_bias=b,
                                                           out_proj_weight=wo, out_proj_bias=bo), W12, B12, WO, BO)
grad_case("F_mha_grad_weights_noweights", lambda T, w, b, wo, bo: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(V2), in_proj_weight=w,
                                                                     in_proj_bias=b, out_proj_weight=wo, out_proj_bias=bo,
                                                                     need_weights=False)[0], W12, B12, WO, BO)
grad_case("F_mha_grad2_weights", lambda T, w, wo: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(V2), in_proj_weight=w, out_proj_weight=wo),
          W12, WO, order=2)
error_case("F_mha_bias_k_only", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), bias_k=T.zeros(1, 1, 4)))
error_case("F_mha_bias_v_only", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), bias_v=T.zeros(1, 1, 4)))
error_case("F_mha_bias_static", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), bias_k=T.zeros(1, 1, 4),
                                             bias_v=T.zeros(1, 1, 4), static_k=T.zeros(4, 5, 2)))
error_case("F_mha_static_k_shape", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), static_k=T.zeros(3, 5, 2)))
error_case("F_mha_static_v_headdim", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), static_v=T.zeros(4, 5, 3)))
error_case("F_mha_no_in_proj", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), in_proj_weight=None))
error_case("F_mha_separate_missing", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), use_separate_proj_weight=True,
                                                  q_proj_weight=T.zeros(4, 4), k_proj_weight=None))
error_case("F_mha_separate_shape", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), use_separate_proj_weight=True,
                                                q_proj_weight=T.zeros(4, 4), k_proj_weight=T.zeros(4, 3), v_proj_weight=T.zeros(4, 4)))
error_case("F_mha_separate_bias_shape", lambda T: _f(T, T.tensor(Q), T.tensor(KV), T.tensor(KV), use_separate_proj_weight=True,
                                                     q_proj_weight=T.zeros(4, 4), k_proj_weight=T.zeros(4, 4),
                                                     v_proj_weight=T.zeros(4, 4), in_proj_bias=T.zeros(15)))
error_case("F_mha_causal_weights_nomask_fixme", lambda T: (lambda x: _f(T, x, x, x, attn_mask=None, is_causal=True))(T.tensor(Q)))
error_case("F_mha_embed_check", lambda T: T.nn.functional.multi_head_attention_forward(
    T.tensor(Q), T.tensor(KV), T.tensor(KV), 8, 2, T.tensor(W12), T.tensor(B12), None, None, False, 0.0, T.tensor(WO), T.tensor(BO)))
error_case("F_mha_not_divisible", lambda T: T.nn.functional.multi_head_attention_forward(
    T.tensor(Q), T.tensor(KV), T.tensor(KV), 4, 3, T.tensor(W12), T.tensor(B12), None, None, False, 0.0, T.tensor(WO), T.tensor(BO)))


# ================================================================================================ Transformer
S8 = _seq(5, 2, 4, 7)       # src [S=5, N=2, d=4]
T8 = _seq(3, 2, 4, 8)       # tgt [T=3, N=2, d=4]
S_KPM = [[False, False, False, True, True], [False, False, False, False, True]]     # left-aligned
S_KPM_HOLE = [[False, True, False, False, True], [False, False, False, False, True]]
S_KPM_ALL = [[False, False, False, True, True], [True, True, True, True, True]]
S_AM_F = [[round(((i * 3 + j) % 5 - 2) * 0.2, 2) for j in range(5)] for i in range(5)]
S_AM_B = [[j > i + 1 for j in range(5)] for i in range(5)]
CAUSAL5 = [[j > i for j in range(5)] for i in range(5)]
CAUSAL3 = [[j > i for j in range(3)] for i in range(3)]
T_KPM = [[False, False, True], [False, False, False]]


def _enc_layer(T, **kw):
    act = kw.pop("act", None)
    if act == "module_gelu":
        kw["activation"] = T.nn.GELU()
    elif act == "module_relu":
        kw["activation"] = T.nn.ReLU()
    elif act == "tanh_fn":
        kw["activation"] = T.tanh
    elif act is not None:
        kw["activation"] = act
    if "dtype" in kw:
        kw["dtype"] = getattr(T, kw["dtype"])
    return T.nn.TransformerEncoderLayer(**dict(dict(d_model=4, nhead=2, dim_feedforward=6), **kw))


def _dec_layer(T, **kw):
    if kw.pop("act", None) == "gelu":
        kw["activation"] = "gelu"
    if "dtype" in kw:
        kw["dtype"] = getattr(T, kw["dtype"])
    return T.nn.TransformerDecoderLayer(**dict(dict(d_model=4, nhead=2, dim_feedforward=6), **kw))


def _tf(T, **kw):
    if "dtype" in kw:
        kw["dtype"] = getattr(T, kw["dtype"])
    return T.nn.Transformer(**dict(dict(d_model=4, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                        dim_feedforward=6), **kw))


def _masks(T, masks):
    return {name: T.tensor(data, dtype=getattr(T, dt)) for name, (data, dt) in (masks or {}).items()}


def _call(T, m, args, kw, train, no_grad):
    if not train:
        m.eval()
    if no_grad:
        with T.no_grad():
            return m(*args, **kw)
    return m(*args, **kw)


# ------------------------------------------------------------------------------------------ construction
ENC_CTORS = {
    "default": {}, "gelu": {"act": "gelu"}, "gelu_module": {"act": "module_gelu"}, "relu_module": {"act": "module_relu"},
    "tanh_fn": {"act": "tanh_fn"}, "norm_first": {"norm_first": True}, "batch_first": {"batch_first": True},
    "nobias": {"bias": False}, "eps": {"layer_norm_eps": 1e-3}, "dropout0": {"dropout": 0.0},
    "double": {"dtype": "float64"}, "h1": {"nhead": 1},
}
for _n, _kw in ENC_CTORS.items():
    case(f"enc_layer_params_seeded[{_n}]", lambda T, kw=_kw: list(_enc_layer(T, **kw).named_parameters()))
    print_case(f"enc_layer_repr[{_n}]", lambda T, kw=_kw: _enc_layer(T, **kw))
    case(f"enc_layer_attrs[{_n}]", lambda T, kw=_kw: (lambda m: (m.activation_relu_or_gelu, m.norm_first,
                                                                m.self_attn.batch_first, m.dropout.p,
                                                                list(m.state_dict().keys())))(_enc_layer(T, **kw)))
    case(f"encoder_init_warn[{_n}]", lambda T, kw=_kw: (lambda e: (e.use_nested_tensor, e.enable_nested_tensor, e.num_layers,
                                                                  len(e.layers), e.layers[0] is e.layers[1]))(
        T.nn.TransformerEncoder(_enc_layer(T, **kw), 2)), warns=True)
DEC_CTORS = {"default": {}, "gelu": {"act": "gelu"}, "norm_first": {"norm_first": True}, "batch_first": {"batch_first": True},
             "nobias": {"bias": False}, "double": {"dtype": "float64"}}
for _n, _kw in DEC_CTORS.items():
    case(f"dec_layer_params_seeded[{_n}]", lambda T, kw=_kw: list(_dec_layer(T, **kw).named_parameters()))
    print_case(f"dec_layer_repr[{_n}]", lambda T, kw=_kw: _dec_layer(T, **kw))
TF_CTORS = {"default": {}, "batch_first": {"batch_first": True}, "norm_first_gelu": {"norm_first": True, "activation": "gelu"},
            "nobias": {"bias": False}, "one_layer_each": {"num_encoder_layers": 1, "num_decoder_layers": 1},
            "double": {"dtype": "float64"}}
for _n, _kw in TF_CTORS.items():
    case(f"transformer_params_seeded[{_n}]", lambda T, kw=_kw: list(_tf(T, **kw).named_parameters()), warns=True)
    print_case(f"transformer_repr[{_n}]", lambda T, kw=_kw: _tf(T, **kw))
case("transformer_attrs", lambda T: (lambda m: (m.d_model, m.nhead, m.batch_first, m.encoder.num_layers, m.decoder.num_layers,
                                                m.encoder.use_nested_tensor, type(m.encoder.norm).__name__,
                                                m.encoder.layers[0].activation_relu_or_gelu))(_tf(T, batch_first=True)))
case("transformer_default_sizes", lambda T: [(n, tuple(p.shape)) for n, p in T.nn.Transformer(d_model=8, nhead=2).named_parameters()][:20])
case("encoder_layers_deepcopied", lambda T: (lambda l: (lambda e: (e.layers[0] is l, e.layers[0].linear1.weight is l.linear1.weight,
                                                                   T.equal(e.layers[1].linear1.weight, l.linear1.weight)))(
    T.nn.TransformerEncoder(l, 2, enable_nested_tensor=False)))(_enc_layer(T)))
case("encoder_custom_layer_warn", lambda T: T.nn.TransformerEncoder(T.nn.Linear(4, 4), 1).use_nested_tensor, warns=True)
case("encoder_nested_disabled_nowarn", lambda T: T.nn.TransformerEncoder(_enc_layer(T), 1, enable_nested_tensor=False).use_nested_tensor,
     warns=True)
case("encoder_norm_param_names", lambda T: list(T.nn.TransformerEncoder(_enc_layer(T, batch_first=True), 2, T.nn.LayerNorm(4)).state_dict()))
print_case("encoder_repr", lambda T: T.nn.TransformerEncoder(_enc_layer(T, batch_first=True), 2, T.nn.LayerNorm(4)))
print_case("decoder_repr", lambda T: T.nn.TransformerDecoder(_dec_layer(T), 2))
error_case("enc_layer_bad_activation", lambda T: _enc_layer(T, act="tanh"))
error_case("dec_layer_bad_activation", lambda T: T.nn.TransformerDecoderLayer(4, 2, activation="swish"))
error_case("enc_layer_not_divisible", lambda T: T.nn.TransformerEncoderLayer(5, 2))
case("square_subsequent_mask", lambda T: [T.nn.Transformer.generate_square_subsequent_mask(n) for n in (0, 1, 4)])
case("square_subsequent_mask_dtype", lambda T: T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.float64))
case("square_subsequent_mask_bf16", lambda T: T.nn.Transformer.generate_square_subsequent_mask(3, device="cpu", dtype=T.bfloat16))
case("square_subsequent_mask_instance", lambda T: _tf(T, num_encoder_layers=1, num_decoder_layers=1).generate_square_subsequent_mask(3))
case("square_subsequent_mask_static", lambda T: isinstance(T.nn.Transformer.__dict__["generate_square_subsequent_mask"], staticmethod))


# ------------------------------------------------------------------------------------------ encoder layer forward
def _enc_run(T, ctor=None, masks=None, train=True, no_grad=False, src=S8, bf=False, fwd=None, ret="out", hook=False):
    m = _enc_layer(T, **dict(ctor or {}))
    if hook:
        m.register_forward_hook(lambda mod, i, o: None)
    x = T.tensor(_bf(src) if bf else src, dtype=getattr(T, (ctor or {}).get("dtype", "float32")))
    out = _call(T, m, (x,), dict(_masks(T, masks), **(fwd or {})), train, no_grad)
    if ret == "grads":
        return out, _pgrads(T, m, [out])
    return out


ENC_FWD = {
    "plain": {}, "dropout0": {"ctor": {"dropout": 0.0}},
    "gelu": {"ctor": {"act": "gelu", "dropout": 0.0}}, "tanh_fn": {"ctor": {"act": "tanh_fn", "dropout": 0.0}},
    "norm_first": {"ctor": {"norm_first": True, "dropout": 0.0}}, "nobias": {"ctor": {"bias": False, "dropout": 0.0}},
    "batch_first": {"ctor": {"batch_first": True, "dropout": 0.0}, "bf": True},
    "mask_bool": {"ctor": {"dropout": 0.0}, "masks": {"src_mask": (S_AM_B, "bool")}},
    "mask_float": {"ctor": {"dropout": 0.0}, "masks": {"src_mask": (S_AM_F, "float32")}},
    "kpm_bool": {"ctor": {"dropout": 0.0}, "masks": {"src_key_padding_mask": (S_KPM_HOLE, "bool")}},
    "kpm_float": {"ctor": {"dropout": 0.0}, "masks": {"src_key_padding_mask": ([[0.0, -1.0, 0.0, 0.5, 0.0], [0.0] * 5], "float32")}},
    "both": {"ctor": {"dropout": 0.0}, "masks": {"src_mask": (S_AM_B, "bool"), "src_key_padding_mask": (S_KPM, "bool")}},
    "causal": {"ctor": {"dropout": 0.0}, "masks": {"src_mask": (CAUSAL5, "bool")}, "fwd": {"is_causal": True}},
    "unbatched": {"ctor": {"dropout": 0.0}, "src": _seq(5, None, 4, 7)},
    "unbatched_kpm": {"ctor": {"dropout": 0.0}, "src": _seq(5, None, 4, 7), "masks": {"src_key_padding_mask": (S_KPM[0], "bool")}},
    "double": {"ctor": {"dtype": "float64", "dropout": 0.0}},
    "dropout_train": {"ctor": {"dropout": 0.3}},
    "dropout_train_batch_first_kpm": {"ctor": {"dropout": 0.3, "batch_first": True}, "bf": True,
                                      "masks": {"src_key_padding_mask": (S_KPM, "bool")}},
    "dropout_train_norm_first": {"ctor": {"dropout": 0.2, "norm_first": True}},
    "eval_dropout": {"ctor": {"dropout": 0.5}, "train": False},
}
for _n, _kw in ENC_FWD.items():
    case(f"enc_layer_fwd[{_n}]", lambda T, kw=_kw: _enc_run(T, **kw))
    case(f"enc_layer_fwd_grads[{_n}]", lambda T, kw=_kw: _enc_run(T, ret="grads", **kw), atol=1e-5)
case("enc_layer_mismatched_masks", lambda T: _enc_run(T, masks={"src_mask": (S_AM_F, "float32"),
                                                                "src_key_padding_mask": (S_KPM, "bool")}), warns=True)
error_case("enc_layer_causal_no_mask", lambda T: _enc_run(T, fwd={"is_causal": True}))
error_case("enc_layer_int_mask", lambda T: _enc_run(T, masks={"src_mask": ([[0] * 5] * 5, "int64")}))

# eval + no_grad on a batch-first layer: torch's fused layer (is_causal not looked at, nan where a row sees nothing)
ENC_FAST = {
    "plain": {}, "gelu": {"ctor": {"act": "gelu"}}, "gelu_module": {"ctor": {"act": "module_gelu"}},
    "norm_first": {"ctor": {"norm_first": True}}, "kpm": {"masks": {"src_key_padding_mask": (S_KPM_HOLE, "bool")}},
    "kpm_float": {"masks": {"src_key_padding_mask": ([[0.0, -1.0, 0.0, 0.5, 0.0], [0.0] * 5], "float32")}},
    "mask": {"masks": {"src_mask": (S_AM_F, "float32")}},
    "mask_kpm": {"masks": {"src_mask": (S_AM_B, "bool"), "src_key_padding_mask": (S_KPM, "bool")}},
    "causal_no_mask": {"fwd": {"is_causal": True}},
    "fully_masked": {"masks": {"src_key_padding_mask": (S_KPM_ALL, "bool")}},
    "odd_heads_slow": {"ctor": {"nhead": 1}, "masks": {"src_key_padding_mask": (S_KPM_ALL, "bool")}},
    "tanh_slow": {"ctor": {"act": "tanh_fn"}, "masks": {"src_key_padding_mask": (S_KPM_ALL, "bool")}},
    "hook_slow": {"hook": True, "masks": {"src_key_padding_mask": (S_KPM_ALL, "bool")}},
    "double": {"ctor": {"dtype": "float64"}, "masks": {"src_key_padding_mask": (S_KPM, "bool")}},
    "unbatched_slow": {"src": _seq(5, None, 4, 7)},
}
for _n, _kw in ENC_FAST.items():
    case(f"enc_layer_eval_fast[{_n}]", lambda T, kw=_kw: _enc_run(T, **dict(kw, ctor=dict(kw.get("ctor", {}), batch_first=True),
                                                                           bf="src" not in kw, train=False, no_grad=True)))
case("enc_layer_eval_fast_disabled", lambda T: (T.backends.mha.set_fastpath_enabled(False),
                                                _enc_run(T, ctor={"batch_first": True}, bf=True, train=False, no_grad=True,
                                                         masks={"src_key_padding_mask": (S_KPM_ALL, "bool")}),
                                                T.backends.mha.set_fastpath_enabled(True))[1])
case("enc_layer_eval_grad_slow", lambda T: _enc_run(T, ctor={"batch_first": True}, bf=True, train=False,
                                                    masks={"src_key_padding_mask": (S_KPM_ALL, "bool")}))


# ------------------------------------------------------------------------------------------ encoder
def _encoder(T, ctor=None, nested=True, norm=True, mask_check=True):
    layer = _enc_layer(T, **dict(ctor or {}))
    dt = getattr(T, (ctor or {}).get("dtype", "float32"))
    return T.nn.TransformerEncoder(layer, 2, T.nn.LayerNorm(4, dtype=dt) if norm else None, enable_nested_tensor=nested,
                                   mask_check=mask_check)


def _encoder_run(T, ctor=None, nested=True, norm=True, masks=None, train=True, no_grad=False, bf=False, fwd=None,
                 src=S8, mask_check=True, ret="out"):
    m = _encoder(T, ctor, nested, norm, mask_check)
    x = T.tensor(_bf(src) if bf else src, dtype=getattr(T, (ctor or {}).get("dtype", "float32")))
    out = _call(T, m, (x,), dict(_masks(T, masks), **(fwd or {})), train, no_grad)
    if ret == "grads":
        return out, _pgrads(T, m, [out])
    return out


ENCODER = {
    "plain": {}, "no_norm": {"norm": False}, "dropout0_kpm": {"ctor": {"dropout": 0.0}, "masks": {"src_key_padding_mask": (S_KPM, "bool")}},
    "mask_float": {"ctor": {"dropout": 0.0}, "masks": {"mask": (S_AM_F, "float32")}},
    "causal_detected": {"ctor": {"dropout": 0.0}, "masks": {"mask": (CAUSAL5, "bool")}},
    "causal_float_detected": {"ctor": {"dropout": 0.0}, "masks": {"mask": ([[float("-inf") if j > i else 0.0 for j in range(5)]
                                                                             for i in range(5)], "float32")}},
    "causal_hint_false": {"ctor": {"dropout": 0.0}, "masks": {"mask": (CAUSAL5, "bool")}, "fwd": {"is_causal": False}},
    "causal_hint_true": {"ctor": {"dropout": 0.0}, "masks": {"mask": (S_AM_B, "bool")}, "fwd": {"is_causal": True}},
    "batch_first_kpm": {"ctor": {"dropout": 0.0, "batch_first": True}, "bf": True, "masks": {"src_key_padding_mask": (S_KPM, "bool")}},
    "unbatched": {"ctor": {"dropout": 0.0}, "src": _seq(5, None, 4, 7), "masks": {"mask": (CAUSAL5, "bool")}},
    "dropout_train": {"ctor": {"dropout": 0.25}, "masks": {"src_key_padding_mask": (S_KPM, "bool")}},
    "double": {"ctor": {"dtype": "float64", "dropout": 0.0}},
}
for _n, _kw in ENCODER.items():
    case(f"encoder_fwd[{_n}]", lambda T, kw=_kw: _encoder_run(T, **kw))
    case(f"encoder_fwd_grads[{_n}]", lambda T, kw=_kw: _encoder_run(T, ret="grads", **kw), atol=1e-5)
case("encoder_mismatched_masks", lambda T: _encoder_run(T, masks={"mask": (S_AM_B, "bool"), "src_key_padding_mask": (KPM_F[:1] * 2, "float32")}),
     warns=True)
error_case("encoder_causal_no_mask", lambda T: _encoder_run(T, fwd={"is_causal": True}))

# eval + no_grad: the nested-tensor path (zeros at padded positions before the final norm) and when it is not taken
NESTED = {
    "kpm": {}, "kpm_no_norm": {"norm": False}, "kpm_all_padded": {"masks": {"src_key_padding_mask": (S_KPM_ALL, "bool")}},
    "kpm_float": {"masks": {"src_key_padding_mask": ([[0.0, 0.0, -0.5, float("-inf"), float("-inf")], [0.0] * 5], "float32")}},
    "kpm_not_left_aligned": {"masks": {"src_key_padding_mask": (S_KPM_HOLE, "bool")}},
    "kpm_not_left_aligned_no_check": {"masks": {"src_key_padding_mask": (S_KPM_HOLE, "bool")}, "mask_check": False},
    "kpm_and_mask": {"masks": {"src_key_padding_mask": (S_KPM, "bool"), "mask": (S_AM_B, "bool")}},
    "nested_disabled": {"nested": False},
    "norm_first": {"ctor": {"norm_first": True}},
    "gelu": {"ctor": {"act": "gelu"}},
    "no_kpm": {"masks": {}},
    "double": {"ctor": {"dtype": "float64"}},
}
for _n, _kw in NESTED.items():
    _kw = dict(_kw)
    _kw.setdefault("masks", {"src_key_padding_mask": (S_KPM, "bool")})
    case(f"encoder_eval_nested[{_n}]", lambda T, kw=_kw: _encoder_run(T, **dict(kw, ctor=dict(kw.get("ctor", {}), batch_first=True),
                                                                              bf=True, train=False, no_grad=True)))
case("encoder_eval_nested_warn", lambda T: _encoder_run(T, ctor={"batch_first": True}, bf=True, train=False, no_grad=True,
                                                        masks={"src_key_padding_mask": (S_KPM, "bool")}), warns=True)
case("encoder_eval_grad_enabled", lambda T: _encoder_run(T, ctor={"batch_first": True}, bf=True, train=False,
                                                         masks={"src_key_padding_mask": (S_KPM, "bool")}))
case("encoder_eval_params_frozen", lambda T: (lambda m, x: m(x, src_key_padding_mask=T.tensor(S_KPM_ALL)))(
    _encoder(T, {"batch_first": True}).eval().requires_grad_(False), T.tensor(_bf(S8))))
case("encoder_eval_train_first_layer", lambda T: (lambda m, x: (m.layers[0].train(), m(x, src_key_padding_mask=T.tensor(S_KPM)))[1])(
    _encoder(T, {"batch_first": True, "dropout": 0.0}).eval().requires_grad_(False), T.tensor(_bf(S8))))


# ------------------------------------------------------------------------------------------ decoder
def _dec_run(T, ctor=None, masks=None, train=True, no_grad=False, bf=False, fwd=None, tgt=T8, mem=S8, layers=0, ret="out"):
    m = _dec_layer(T, **dict(ctor or {}))
    if layers:
        m = T.nn.TransformerDecoder(m, layers, T.nn.LayerNorm(4))
    dt = getattr(T, (ctor or {}).get("dtype", "float32"))
    x = T.tensor(_bf(tgt) if bf else tgt, dtype=dt)
    y = T.tensor(_bf(mem) if bf else mem, dtype=dt)
    out = _call(T, m, (x, y), dict(_masks(T, masks), **(fwd or {})), train, no_grad)
    if ret == "grads":
        return out, _pgrads(T, m, [out])
    return out


DEC = {
    "plain": {}, "dropout0": {"ctor": {"dropout": 0.0}}, "gelu": {"ctor": {"act": "gelu", "dropout": 0.0}},
    "norm_first": {"ctor": {"norm_first": True, "dropout": 0.0}}, "nobias": {"ctor": {"bias": False, "dropout": 0.0}},
    "batch_first": {"ctor": {"batch_first": True, "dropout": 0.0}, "bf": True},
    "tgt_mask": {"ctor": {"dropout": 0.0}, "masks": {"tgt_mask": (CAUSAL3, "bool")}},
    "tgt_causal": {"ctor": {"dropout": 0.0}, "masks": {"tgt_mask": (CAUSAL3, "bool")}, "fwd": {"tgt_is_causal": True}},
    "memory_mask": {"ctor": {"dropout": 0.0}, "masks": {"memory_mask": (AM_F, "float32")}},
    "all_masks": {"ctor": {"dropout": 0.0}, "masks": {"tgt_mask": (CAUSAL3, "bool"), "memory_mask": (AM_B, "bool"),
                                                      "tgt_key_padding_mask": (T_KPM, "bool"),
                                                      "memory_key_padding_mask": (S_KPM, "bool")}},
    "unbatched": {"ctor": {"dropout": 0.0}, "tgt": _seq(3, None, 4, 8), "mem": _seq(5, None, 4, 7)},
    "double": {"ctor": {"dtype": "float64", "dropout": 0.0}},
    "dropout_train": {"ctor": {"dropout": 0.3}, "masks": {"tgt_mask": (CAUSAL3, "bool")}},
    "eval": {"ctor": {"batch_first": True}, "bf": True, "train": False, "no_grad": True,
             "masks": {"tgt_key_padding_mask": ([[False, True, True], [True, True, True]], "bool")}},
    "stack": {"layers": 2, "ctor": {"dropout": 0.0}, "masks": {"tgt_mask": (CAUSAL3, "bool")}},
    "stack_float_causal": {"layers": 2, "ctor": {"dropout": 0.0},
                           "masks": {"tgt_mask": ([[float("-inf") if j > i else 0.0 for j in range(3)] for i in range(3)], "float32")}},
    "stack_not_causal": {"layers": 2, "ctor": {"dropout": 0.0}, "masks": {"tgt_mask": ([[False, True, False]] * 3, "bool")}},
    "stack_dropout_memory_kpm": {"layers": 2, "ctor": {"dropout": 0.2}, "masks": {"memory_key_padding_mask": (S_KPM, "bool")}},
}
for _n, _kw in DEC.items():
    case(f"dec_fwd[{_n}]", lambda T, kw=_kw: _dec_run(T, **kw))
    case(f"dec_fwd_grads[{_n}]", lambda T, kw=_kw: _dec_run(T, ret="grads", **kw) if not kw.get("no_grad") else _dec_run(T, **kw), atol=1e-5)
error_case("dec_causal_no_mask", lambda T: _dec_run(T, fwd={"tgt_is_causal": True}))
error_case("dec_memory_causal_no_mask", lambda T: _dec_run(T, fwd={"memory_is_causal": True}))
case("dec_mismatched_masks", lambda T: _dec_run(T, masks={"tgt_mask": (CAUSAL3, "bool"), "tgt_key_padding_mask": ([[0.0, 0.0, -1.0]] * 2, "float32")}),
     warns=True)


# ------------------------------------------------------------------------------------------ Transformer
def _tf_run(T, ctor=None, masks=None, train=True, no_grad=False, bf=False, fwd=None, src=S8, tgt=T8, ret="out"):
    m = _tf(T, **dict(ctor or {}))
    dt = getattr(T, (ctor or {}).get("dtype", "float32"))
    x = T.tensor(_bf(src) if bf else src, dtype=dt)
    y = T.tensor(_bf(tgt) if bf else tgt, dtype=dt)
    out = _call(T, m, (x, y), dict(_masks(T, masks), **(fwd or {})), train, no_grad)
    if ret == "grads":
        return out, _pgrads(T, m, [out])
    return out


TF = {
    "plain": {}, "dropout0": {"ctor": {"dropout": 0.0}},
    "masks": {"ctor": {"dropout": 0.0}, "masks": {"src_mask": (S_AM_F, "float32"), "tgt_mask": (CAUSAL3, "bool"),
                                                  "memory_mask": (AM_B, "bool"), "src_key_padding_mask": (S_KPM, "bool"),
                                                  "tgt_key_padding_mask": (T_KPM, "bool"),
                                                  "memory_key_padding_mask": (S_KPM, "bool")}},
    "causal_flags": {"ctor": {"dropout": 0.0}, "masks": {"src_mask": (CAUSAL5, "bool"), "tgt_mask": (CAUSAL3, "bool")},
                     "fwd": {"src_is_causal": True, "tgt_is_causal": True}},
    "batch_first_norm_first_gelu": {"ctor": {"batch_first": True, "norm_first": True, "activation": "gelu", "dropout": 0.0}, "bf": True},
    "nobias": {"ctor": {"bias": False, "dropout": 0.0}},
    "unbatched": {"ctor": {"dropout": 0.0}, "src": _seq(5, None, 4, 7), "tgt": _seq(3, None, 4, 8)},
    "double": {"ctor": {"dtype": "float64"}},
    "eval_nested": {"ctor": {"batch_first": True}, "bf": True, "train": False, "no_grad": True,
                    "masks": {"src_key_padding_mask": (S_KPM, "bool"), "memory_key_padding_mask": (S_KPM, "bool")}},
}
for _n, _kw in TF.items():
    case(f"transformer_fwd[{_n}]", lambda T, kw=_kw: _tf_run(T, **kw))
    if not _kw.get("no_grad"):
        case(f"transformer_fwd_grads[{_n}]", lambda T, kw=_kw: _tf_run(T, ret="grads", **kw), atol=1e-5)
case("transformer_fwd_custom", lambda T: (lambda enc, dec: T.nn.Transformer(4, 2, custom_encoder=enc, custom_decoder=dec, dropout=0.0)(
    T.tensor(S8), T.tensor(T8)))(T.nn.TransformerEncoder(_enc_layer(T, dropout=0.0), 1), T.nn.TransformerDecoder(_dec_layer(T, dropout=0.0), 1)))
error_case("transformer_batch_mismatch", lambda T: _tf(T)(T.ones(5, 2, 4), T.ones(3, 3, 4)))
error_case("transformer_batch_mismatch_bf", lambda T: _tf(T, batch_first=True)(T.ones(2, 5, 4), T.ones(3, 3, 4)))
error_case("transformer_feature_mismatch", lambda T: _tf(T)(T.ones(5, 2, 4), T.ones(3, 2, 6)))
error_case("transformer_src_feature_mismatch", lambda T: _tf(T)(T.ones(5, 2, 6), T.ones(3, 2, 4)))

grad_case("transformer_grad_inputs", lambda T, s, t: _tf(T, dropout=0.0)(s, t, tgt_mask=T.tensor(CAUSAL3)), S8, T8)
grad_case("transformer_grad_inputs_bf", lambda T, s, t: _tf(T, dropout=0.0, batch_first=True, norm_first=True)(
    s, t, src_key_padding_mask=T.tensor(_bf(S8) and S_KPM)), _bf(S8), _bf(T8))
grad_case("enc_layer_grad_input", lambda T, s, am: _enc_layer(T, dropout=0.0)(s, src_mask=am), S8, S_AM_F)
grad_case("dec_layer_grad_inputs", lambda T, t, s: _dec_layer(T, dropout=0.0)(t, s, memory_key_padding_mask=T.tensor(S_KPM)), T8, S8)
grad_case("enc_layer_grad_dropout", lambda T, s: _enc_layer(T, dropout=0.4)(s), S8)


# ------------------------------------------------------------------------------------------ training loop
def _train(T, steps=3, dtype=None, **kw):
    m = _tf(T, **kw)
    if dtype:
        m = m.double()
    opt = T.optim.Adam(m.parameters(), lr=0.01)
    dt = T.float64 if dtype else T.float32
    src, tgt = T.tensor(S8, dtype=dt), T.tensor(T8, dtype=dt)
    target = T.tensor(_seq(3, 2, 4, 9), dtype=dt)
    mask = T.nn.Transformer.generate_square_subsequent_mask(3, dtype=dt)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        out = m(src, tgt, tgt_mask=mask, tgt_is_causal=True)
        loss = T.nn.functional.mse_loss(out, target)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    # the key part of in_proj_bias gets a gradient that is rounding noise (a constant per query row cancels in the
    # softmax), which Adam scales up to lr-sized steps of either sign: it is left out of the comparison
    E = m.d_model
    return losses, [(n, p[:E] if n.endswith("in_proj_bias") else p) for n, p in m.named_parameters()]


case("transformer_train_adam", lambda T: _train(T), rtol=1e-4, atol=1e-5)
case("transformer_train_adam_nodropout_bf", lambda T: _train(T, dropout=0.0, batch_first=False, norm_first=True), rtol=1e-4, atol=1e-5)
case("transformer_train_adam_double", lambda T: _train(T, dtype="double"))


# ------------------------------------------------------------------------------------------ more
for _dt in ("bfloat16", "float16"):
    case(f"mha_half[{_dt}]", lambda T, dt=_dt: (lambda m, x: (m(x, x, x), m(x, x, x, need_weights=False)[0]))(
        T.nn.MultiheadAttention(4, 2, dtype=getattr(T, dt)), T.tensor(Q, dtype=getattr(T, dt))), atol=2e-2, rtol=2e-2)
    case(f"mha_half_module_to[{_dt}]", lambda T, dt=_dt: (lambda m, x: m(x, x, x, key_padding_mask=T.tensor(KPM_B)))(
        T.nn.MultiheadAttention(4, 2).to(getattr(T, dt)), T.tensor(KV, dtype=getattr(T, dt))), atol=2e-2, rtol=2e-2)
error_case("mha_double_backward_sdpa", lambda T: (lambda m, x: (lambda g: g.sum().backward())(
    T.autograd.grad(m(x, x, x, need_weights=False)[0].sum(), x, create_graph=True)[0]))(
    T.nn.MultiheadAttention(4, 2), T.tensor(Q, requires_grad=True)))
error_case("mha_kpm_double_query_float", lambda T: _mha(T)(T.tensor(Q), T.tensor(KV), T.tensor(KV),
                                                           key_padding_mask=T.tensor(KPM_F, dtype=T.float64)))
case("mha_deepcopy", lambda T: (lambda m: (lambda c: (c is not m, c.out_proj.weight is m.out_proj.weight, type(c.out_proj).__name__,
                                                      c(T.tensor(Q), T.tensor(KV), T.tensor(KV))))(__import__("copy").deepcopy(m)))(
    T.nn.MultiheadAttention(4, 2, add_bias_kv=True)))
case("mha_load_state_dict", lambda T: (lambda a, b: (b.load_state_dict(a.state_dict()), b(T.tensor(Q), T.tensor(K3), T.tensor(V5)))[1])(
    T.nn.MultiheadAttention(4, 2, kdim=3, vdim=5), T.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)))
case("mha_setstate_old", lambda T: (lambda m: (m.__dict__.pop("_qkv_same_embed_dim"), m.__setstate__(dict(m.__dict__)),
                                               m._qkv_same_embed_dim)[2])(T.nn.MultiheadAttention(4, 2)))
def _inf(T, fn):
    with T.inference_mode():
        return fn()


case("encoder_inference_mode", lambda T: (lambda e, x: _inf(T, lambda: e(x, src_key_padding_mask=T.tensor(S_KPM_ALL))))(
    _encoder(T, {"batch_first": True}).eval(), T.tensor(_bf(S8))))


for _n, _kpm in {"mask_1d": [False] * 5, "mask_cols": [[False] * 4] * 2, "mask_rows": [[False] * 5] * 3}.items():
    for _mc in (True, False):
        error_case(f"encoder_nested_mask_shape[{_n},check={_mc}]", lambda T, kpm=_kpm, mc=_mc: _encoder_run(
            T, ctor={"batch_first": True}, bf=True, train=False, no_grad=True, mask_check=mc,
            masks={"src_key_padding_mask": (kpm, "bool")}))
    error_case(f"encoder_train_mask_shape[{_n}]", lambda T, kpm=_kpm: _encoder_run(
        T, ctor={"batch_first": True}, bf=True, masks={"src_key_padding_mask": (kpm, "bool")}))
case("encoder_eval_unbatched_kpm", lambda T: _encoder_run(T, ctor={"batch_first": True}, train=False, no_grad=True,
                                                          src=_seq(5, None, 4, 7), masks={"src_key_padding_mask": (S_KPM[0], "bool")}))
case("transformer_eval_nograd_seq_first", lambda T: _tf_run(T, train=False, no_grad=True,
                                                            masks={"src_key_padding_mask": (S_KPM, "bool"), "tgt_mask": (CAUSAL3, "bool")}))
M3 = [[[(i * 2 + j + h) % 4 == 0 for j in range(5)] for i in range(5)] for h in range(4)]     # [B*H=4, 5, 5] bool
case("enc_layer_eval_fast_mask3d", lambda T: _enc_run(T, ctor={"batch_first": True}, bf=True, train=False, no_grad=True,
                                                      masks={"src_mask": (M3, "bool"), "src_key_padding_mask": (S_KPM, "bool")}))
case("enc_layer_train_mask3d", lambda T: _enc_run(T, ctor={"batch_first": True, "dropout": 0.0}, bf=True,
                                                  masks={"src_mask": (M3, "bool"), "src_key_padding_mask": (S_KPM, "bool")}))
case("mha_eval_fast_mask3d", lambda T: _run(T, ctor={"batch_first": True}, self_attn=True, bf=True, train=False, no_grad=True,
                                            q=S8, masks={"attn_mask": (M3, "bool")}))
case("mha_eval_fast_mask3d_kpm_noweights", lambda T: _run(T, ctor={"batch_first": True}, self_attn=True, bf=True, train=False,
                                                          no_grad=True, q=S8, masks={"attn_mask": (M3, "bool"),
                                                                                     "key_padding_mask": (S_KPM_ALL, "bool")},
                                                          fwd={"need_weights": False}))
# a float mask that requires grad sends SDPA to its math path, which has second derivatives (the fused kernel has not)
grad_case("enc_layer_grad2_mask_requires_grad", lambda T, s, am: _enc_layer(T, dropout=0.0, act="gelu")(s, src_mask=am), S8, S_AM_F,
          order=2, atol=1e-5)
grad_case("dec_layer_grad2_mask_requires_grad", lambda T, t, s, am, mm: _dec_layer(T, dropout=0.0, norm_first=True)(
    t, s, tgt_mask=am, memory_mask=mm), T8, S8, [[0.0, -0.5, -1.0], [0.25, 0.0, -0.75], [0.1, 0.2, 0.0]], AM_F, order=2, atol=1e-5)

# layer_norm's second derivatives (composed of recorded ops): every input, with and without the affine parameters
X345 = [[[round(((i * 7 + j * 3 + k * 5) % 11 - 5) * 0.31 + 0.02 * k, 3) for k in range(5)] for j in range(4)] for i in range(3)]
W45 = [[round(1.0 + ((j * 5 + k) % 7 - 3) * 0.15, 3) for k in range(5)] for j in range(4)]
B45 = [[round(((j * 3 + k) % 5 - 2) * 0.1, 3) for k in range(5)] for j in range(4)]
grad_case("layer_norm_grad2_affine", lambda T, x, w, b: T.nn.functional.layer_norm(x, (5,), w, b), X345, W45[0], B45[0], order=2)
grad_case("layer_norm_grad2_2d_shape", lambda T, x, w, b: T.nn.functional.layer_norm(x, (4, 5), w, b, eps=1e-3), X345, W45, B45,
          order=2)
grad_case("layer_norm_grad2_plain", lambda T, x: T.nn.functional.layer_norm(x, (5,)), X345, order=2)
grad_case("layer_norm_grad2_weight_only", lambda T, x, w: T.nn.functional.layer_norm(x, (5,), w), X345, W45[1], order=2)
grad_case("layer_norm_grad2_x_only", lambda T, x: T.nn.functional.layer_norm(x, (5,), T.tensor(W45[2]), T.tensor(B45[2])), X345,
          order=2)
grad_case("layer_norm_grad2_params_only", lambda T, w, b: T.nn.functional.layer_norm(T.tensor(X345), (5,), w, b), W45[3], B45[3],
          order=2)
grad_case("layer_norm_grad2_module_double", lambda T, x: T.nn.LayerNorm(5, dtype=T.float64)(x), inp(X345, dtype=D.float64), order=2)
error_case("enc_layer_double_backward_fused_sdpa", lambda T: (lambda m, x: (lambda g: g.sum().backward())(
    T.autograd.grad((m(x) * T.tensor(weights(40)).reshape(5, 2, 4)).sum(), x, create_graph=True)[0]))(
    _enc_layer(T, dropout=0.0), T.tensor(S8, requires_grad=True)))
error_case("mha_key_batch_mismatch", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 3, 4), T.ones(5, 3, 4)))
error_case("mha_key_batch_mismatch_weights_false", lambda T: _mha(T)(T.ones(3, 2, 4), T.ones(5, 3, 4), T.ones(5, 3, 4), need_weights=False))
error_case("mha_am_double_query_float", lambda T: _mha(T)(T.tensor(Q), T.tensor(KV), T.tensor(KV), attn_mask=T.tensor(AM_F, dtype=T.float64)))
error_case("mha_am_double_query_float_noweights", lambda T: _mha(T)(T.tensor(Q), T.tensor(KV), T.tensor(KV), attn_mask=T.tensor(AM_F, dtype=T.float64),
                                                             need_weights=False))
error_case("mha_am_half_query_float_noweights", lambda T: _mha(T)(T.tensor(Q), T.tensor(KV), T.tensor(KV), attn_mask=T.tensor(AM_F, dtype=T.float16),
                                                           need_weights=False))
case("mha_bool_masks_double_query", lambda T: _mha(T, dtype=T.float64)(T.tensor(Q, dtype=T.float64), T.tensor(KV, dtype=T.float64),
                                                                       T.tensor(KV, dtype=T.float64), attn_mask=T.tensor(AM_B),
                                                                       key_padding_mask=T.tensor(KPM_B)))
error_case("sdpa_mask_dtype", lambda T: T.nn.functional.scaled_dot_product_attention(T.ones(1, 2, 3, 4), T.ones(1, 2, 5, 4), T.ones(1, 2, 5, 4),
                                                                                     attn_mask=T.zeros(3, 5, dtype=T.int64)))
case("sdpa_mask_float_query_double", lambda T: T.nn.functional.scaled_dot_product_attention(
    T.tensor([Q], dtype=T.float64).transpose(1, 2), T.tensor([KV], dtype=T.float64).transpose(1, 2),
    T.tensor([V2], dtype=T.float64).transpose(1, 2), attn_mask=T.tensor(AM_F)))
# the fused layer computes exact gelu whatever the GELU module's approximate= says (torch's use_gelu flag)
case("enc_layer_eval_fast_gelu_tanh_module", lambda T: _enc_run(T, ctor={"batch_first": True, "act": T.nn.GELU(approximate="tanh")},
                                                                bf=True, train=False, no_grad=True))
case("enc_layer_eval_slow_gelu_tanh_module", lambda T: _enc_run(T, ctor={"batch_first": True, "act": T.nn.GELU(approximate="tanh")},
                                                                bf=True, train=False))
case("activation_default_is_relu", lambda T: [__import__("inspect").signature(c).parameters["activation"].default is T.nn.functional.relu
                                              for c in (T.nn.Transformer, T.nn.TransformerEncoderLayer, T.nn.TransformerDecoderLayer)])
case("activation_relu_passed", lambda T: (_enc_layer(T, activation=T.nn.functional.relu).activation_relu_or_gelu,
                                          _enc_layer(T, activation=T.nn.functional.gelu).activation_relu_or_gelu,
                                          _enc_layer(T, activation=T.relu).activation_relu_or_gelu,
                                          _dec_layer(T).activation is T.nn.functional.relu))

"""Losses, functional and module: every reduction, weights, ignore_index, label_smoothing, class-probability targets,
N-d inputs, gradients of input and target, dtypes, torch's errors and warnings, and the modules' printouts."""
from .harness import *  # noqa: F401,F403

LOGITS = [[1.2, -0.5, 0.3, 2.0], [-1.0, 0.8, 0.1, -0.3], [0.25, 1.5, -2.0, 0.6]]       # [N=3, C=4]
TGT = [3, 0, 1]
PROBS = [[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1], [0.25, 0.25, 0.4, 0.1]]
CW = [0.5, 2.0, 1.0, 0.25]
# [N=2, C=3, d1=2, d2=3]
L4 = [[[[((n * 5 + c * 3 + i * 2 + j) % 7 - 3) * 0.45 + 0.05 * j for j in range(3)] for i in range(2)] for c in range(3)]
      for n in range(2)]
T3 = [[[0, 2, 1], [1, 1, 0]], [[2, 0, 0], [1, 2, 2]]]
PRED = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]
TARG = [[0.25, -1.0, 3.0], [1.0, 0.0, -0.5]]
PROB_IN = [[0.2, 0.9, 0.55], [0.01, 0.5, 0.999]]
PROB_T = [[0.0, 1.0, 0.3], [1.0, 0.25, 1.0]]


def F(T):
    return T.nn.functional


# ---------------------------------------------------------------------------------------------- regression losses
REG = {
    "mse": lambda T, x, y, r: F(T).mse_loss(x, y, reduction=r),
    "l1": lambda T, x, y, r: F(T).l1_loss(x, y, reduction=r),
    "smooth_l1": lambda T, x, y, r: F(T).smooth_l1_loss(x, y, reduction=r),
    "smooth_l1_beta": lambda T, x, y, r: F(T).smooth_l1_loss(x, y, reduction=r, beta=0.5),
    "smooth_l1_beta0": lambda T, x, y, r: F(T).smooth_l1_loss(x, y, reduction=r, beta=0.0),
    "huber": lambda T, x, y, r: F(T).huber_loss(x, y, reduction=r),
    "huber_delta": lambda T, x, y, r: F(T).huber_loss(x, y, reduction=r, delta=0.75),
}
cases("loss_soft_margin", lambda T, x, reduction: F(T).soft_margin_loss(x, T.tensor([[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0]]),
                                                                        reduction=reduction),
      PRED, kind="grad", reduction=REDUCTIONS)
for _n, _f in REG.items():
    cases(f"loss_{_n}", lambda T, x, y, reduction, _f=_f: _f(T, x, y, reduction), PRED, TARG, kind="grad",
          reduction=REDUCTIONS)
    cases(f"loss_{_n}_dtype", lambda T, dtype, _f=_f: _f(T, T.tensor(PRED, dtype=dtype), T.tensor(TARG, dtype=dtype), "mean"),
          dtype=FLOAT)
grad_case("loss_mse_grad2", lambda T, x, y: F(T).mse_loss(x, y), PRED, TARG, order=2)
grad_case("loss_mse_sum_grad2", lambda T, x, y: F(T).mse_loss(x, y, reduction="sum"), PRED, TARG, order=2)
grad_case("loss_mse_target_only", lambda T, x, y: F(T).mse_loss(x, y), const(PRED), TARG)
case("loss_mse_broadcast_warns", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor(TARG[0])), warns=True)
case("loss_l1_broadcast_warns", lambda T: F(T).l1_loss(T.tensor(PRED), T.tensor([[1.0], [2.0]])), warns=True)
case("loss_huber_broadcast_warns", lambda T: F(T).huber_loss(T.tensor(PRED), T.tensor(2.0)), warns=True)
grad_case("loss_mse_weight", lambda T, x, y: F(T).mse_loss(x, y, weight=T.tensor([[1.0, 2.0, 0.5], [0.25, 3.0, 1.0]])),
          PRED, TARG)
grad_case("loss_l1_weight_sum", lambda T, x, y: F(T).l1_loss(x, y, reduction="sum", weight=T.tensor(
    [[1.0, 2.0, 0.5], [0.25, 3.0, 1.0]])), PRED, TARG)
grad_case("loss_huber_weight", lambda T, x, y: F(T).huber_loss(x, y, weight=T.tensor([[1.0, 2.0, 0.5], [0.25, 3.0, 1.0]])),
          PRED, TARG)
case("loss_mse_mixed_dtype", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor(TARG, dtype=T.float64)))
case("loss_mse_int_target", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor([[1, 0, 2], [0, 1, 1]])))
case("loss_mse_empty", lambda T: F(T).mse_loss(T.zeros(0), T.zeros(0)))
case("loss_mse_0d", lambda T: F(T).mse_loss(T.tensor(1.5), T.tensor(-0.5)))
case("loss_mse_nan", lambda T: F(T).mse_loss(T.tensor([1.0, float("nan")]), T.tensor([0.0, 1.0])))
case("loss_mse_legacy", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor(TARG), size_average=False), warns=True)
case("loss_l1_legacy_reduce", lambda T: F(T).l1_loss(T.tensor(PRED), T.tensor(TARG), reduce=False), warns=True)
error_case("loss_mse_int", lambda T: F(T).mse_loss(T.tensor([1, 2]), T.tensor([1, 3])))
error_case("loss_l1_int", lambda T: F(T).l1_loss(T.tensor([1, 2]), T.tensor([1, 3])))
error_case("loss_smooth_l1_int", lambda T: F(T).smooth_l1_loss(T.tensor([1, 2]), T.tensor([1, 3])))
error_case("loss_huber_int", lambda T: F(T).huber_loss(T.tensor([1, 2]), T.tensor([1, 3])))
error_case("loss_bad_reduction", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor(TARG), reduction="avg"))
error_case("loss_mse_weight_size", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor(TARG), weight=T.ones(3)))
error_case("loss_mse_bad_shapes", lambda T: F(T).mse_loss(T.ones(2, 3), T.ones(4)), warns=True)
error_case("loss_smooth_l1_neg_beta", lambda T: F(T).smooth_l1_loss(T.tensor(PRED), T.tensor(TARG), beta=-1.0))
error_case("loss_huber_neg_delta", lambda T: F(T).huber_loss(T.tensor(PRED), T.tensor(TARG), delta=-1.0))
case("loss_elementwise_mean", lambda T: F(T).mse_loss(T.tensor(PRED), T.tensor(TARG), reduction="elementwise_mean"),
     warns=True)

# ---------------------------------------------------------------------------------------------- class losses
cases("ce", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(TGT), reduction=reduction), LOGITS, kind="grad",
      reduction=REDUCTIONS)
cases("ce_weight", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(TGT), T.tensor(CW), reduction=reduction),
      LOGITS, kind="grad", reduction=REDUCTIONS)
cases("ce_ignore", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor([3, -100, 1]), reduction=reduction), LOGITS,
      kind="grad", reduction=REDUCTIONS)
cases("ce_ignore_custom_weight", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(TGT), T.tensor(CW), ignore_index=0,
                                                                             reduction=reduction),
      LOGITS, kind="grad", reduction=REDUCTIONS)
cases("ce_label_smoothing", lambda T, x, reduction, ls: F(T).cross_entropy(x, T.tensor(TGT), reduction=reduction,
                                                                          label_smoothing=ls),
      LOGITS, kind="grad", reduction=REDUCTIONS, ls=[0.1, 1.0])
cases("ce_label_smoothing_weight_ignore", lambda T, x, reduction: F(T).cross_entropy(
    x, T.tensor([3, 1, 2]), T.tensor(CW), ignore_index=1, reduction=reduction, label_smoothing=0.2),
      LOGITS, kind="grad", reduction=REDUCTIONS)
cases("ce_probs", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(PROBS), reduction=reduction), LOGITS,
      kind="grad", reduction=REDUCTIONS)
cases("ce_probs_weight_smoothing", lambda T, x, reduction: F(T).cross_entropy(
    x, T.tensor(PROBS), T.tensor(CW), reduction=reduction, label_smoothing=0.3), LOGITS, kind="grad", reduction=REDUCTIONS)
grad_case("ce_probs_grad_target", lambda T, x, p: F(T).cross_entropy(x, p), LOGITS, PROBS)
cases("ce_nd", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(T3), reduction=reduction), L4, kind="grad",
      reduction=REDUCTIONS)
cases("ce_3d", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor([[0, 2], [1, 1]]), T.tensor([1.0, 0.5, 2.0]),
                                                          reduction=reduction),
      [[[0.3, -0.2], [1.0, 0.4], [-0.6, 0.9]], [[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]]], kind="grad", reduction=REDUCTIONS)
cases("ce_5d", lambda T, x, reduction: F(T).cross_entropy(x.unsqueeze(-1), T.tensor(T3).unsqueeze(-1), reduction=reduction),
      L4, kind="grad", reduction=REDUCTIONS)
cases("ce_nd_smoothing", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(T3), reduction=reduction,
                                                                   label_smoothing=0.15), L4, kind="grad", reduction=REDUCTIONS)
cases("ce_1d", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor(2), reduction=reduction), [0.5, -1.0, 2.0, 0.1],
      kind="grad", reduction=REDUCTIONS)
cases("ce_1d_probs", lambda T, x, reduction: F(T).cross_entropy(x, T.tensor([0.1, 0.2, 0.3, 0.4]), reduction=reduction),
      [0.5, -1.0, 2.0, 0.1], kind="grad", reduction=REDUCTIONS)
grad_case("ce_grad2", lambda T, x: F(T).cross_entropy(x, T.tensor(TGT)), LOGITS, order=2)
cases("ce_dtype", lambda T, dtype: F(T).cross_entropy(T.tensor(LOGITS, dtype=dtype), T.tensor(TGT)), dtype=FLOATS,
      rtol=2e-2)
case("ce_all_ignored", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor([-100, -100, -100])))
case("ce_all_ignored_smoothing", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor([-100, -100, -100]),
                                                              label_smoothing=0.1))
case("ce_empty", lambda T: F(T).cross_entropy(T.zeros(0, 4), T.zeros(0, dtype=T.int64)))
case("ce_empty_probs", lambda T: F(T).cross_entropy(T.zeros(0, 4), T.zeros(0, 4)))
case("ce_legacy", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(TGT), size_average=False), warns=True)
case("ce_byte_target", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(TGT, dtype=T.uint8)))
error_case("ce_batch_mismatch", lambda T: F(T).cross_entropy(T.ones(4, 3), T.tensor([0, 1, 2])))
error_case("ce_target_oob", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor([3, 4, 0])))
error_case("ce_target_negative", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor([3, -1, 0])))
error_case("ce_int_input", lambda T: F(T).cross_entropy(T.tensor([[1, 2], [3, 4]]), T.tensor([0, 1])))
error_case("ce_int32_target", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(TGT, dtype=T.int32)))
error_case("ce_float_target_wrong_shape", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor([0.0, 1.0, 2.0])))
error_case("ce_probs_int", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.ones(3, 4, dtype=T.int64)))
error_case("ce_probs_ignore", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(PROBS), ignore_index=1))
error_case("ce_smoothing_too_big", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(TGT), label_smoothing=1.5))
error_case("ce_weight_size", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(TGT), T.ones(3)))
error_case("ce_probs_weight_size", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(PROBS), T.ones(3)))
error_case("ce_nd_target_size", lambda T: F(T).cross_entropy(T.ones(2, 3, 4), T.zeros(2, 5, dtype=T.int64)))
error_case("ce_0d_input", lambda T: F(T).cross_entropy(T.tensor(1.0), T.tensor(0)))
error_case("ce_bad_reduction", lambda T: F(T).cross_entropy(T.tensor(LOGITS), T.tensor(TGT), reduction="bad"))

LOGP = [[-1.2, -0.5, -2.3, -0.9], [-0.1, -3.0, -1.5, -0.7], [-2.2, -0.05, -1.0, -4.0]]
cases("nll", lambda T, x, reduction: F(T).nll_loss(x, T.tensor(TGT), reduction=reduction), LOGP, kind="grad",
      reduction=REDUCTIONS)
cases("nll_weight_ignore", lambda T, x, reduction: F(T).nll_loss(x, T.tensor([3, 0, 0]), T.tensor(CW), ignore_index=0,
                                                                 reduction=reduction), LOGP, kind="grad", reduction=REDUCTIONS)
cases("nll_2d", lambda T, x, reduction: F(T).nll_loss(x, T.tensor(T3), T.tensor([1.0, 0.5, 2.0]), reduction=reduction),
      L4, kind="grad", reduction=REDUCTIONS)
cases("nll_2d_ignore", lambda T, x, reduction: F(T).nll_loss(x, T.tensor(T3), ignore_index=2, reduction=reduction),
      L4, kind="grad", reduction=REDUCTIONS)
cases("nll_1d", lambda T, x, reduction: F(T).nll_loss(x, T.tensor(1), reduction=reduction), [-0.5, -1.5, -0.2],
      kind="grad", reduction=REDUCTIONS)
grad_case("nll_grad2", lambda T, x: F(T).nll_loss(x * x, T.tensor(TGT)), LOGP, order=2)
case("nll_all_ignored", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor([-100, -100, -100])))
case("nll_byte_target", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor(TGT, dtype=T.uint8)))
case("nll_double", lambda T: F(T).nll_loss(T.tensor(LOGP, dtype=T.float64), T.tensor(TGT)))
case("nll_torch_nn", lambda T: T._C._nn.nll_loss(T.tensor(LOGP), T.tensor(TGT), None, 2, -100))
case("nll_torch_nn_nd", lambda T: T._C._nn.nll_loss_nd(T.tensor(L4), T.tensor(T3), None, 0, -100))
case("nll_torch_nn2d", lambda T: T._C._nn.nll_loss2d(T.tensor(L4), T.tensor(T3), None, 1, 2))
error_case("nll_batch", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor([0, 1, 1, 2])))
error_case("nll_3d_target", lambda T: F(T).nll_loss(T.ones(2, 3, 4), T.zeros(2, 5, dtype=T.int64)))
error_case("nll_0d", lambda T: F(T).nll_loss(T.tensor(1.0), T.tensor(0)))
error_case("nll_weight", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor(TGT), weight=T.ones(3)))
error_case("nll_weight_dtype", lambda T: F(T).nll_loss(T.tensor(LOGP, dtype=T.float64), T.tensor(TGT), weight=T.ones(4)))
error_case("nll_int_input", lambda T: F(T).nll_loss(T.tensor([[1, 2], [3, 4]]), T.tensor([0, 1])))
error_case("nll_int_target", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor(TGT, dtype=T.int32)))
error_case("nll_float_target", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor([0.0, 1.0, 2.0])))
error_case("nll_oob", lambda T: F(T).nll_loss(T.tensor(LOGP), T.tensor([0, 4, 1])))
error_case("nll_2d_oob", lambda T: F(T).nll_loss(T.tensor(L4), T.tensor(T3) * 2))
error_case("nll2d_spatial", lambda T: T._C._nn.nll_loss2d(T.ones(2, 3, 4, 4), T.zeros(2, 4, 5, dtype=T.int64)))

# ---------------------------------------------------------------------------------------------- binary losses
cases("bce", lambda T, x, reduction: F(T).binary_cross_entropy(x, T.tensor(PROB_T), reduction=reduction), PROB_IN,
      kind="grad", reduction=REDUCTIONS)
cases("bce_weight", lambda T, x, reduction: F(T).binary_cross_entropy(x, T.tensor(PROB_T), T.tensor([2.0, 0.5, 1.0]),
                                                                      reduction=reduction),
      PROB_IN, kind="grad", reduction=REDUCTIONS)
grad_case("bce_grad_target", lambda T, x, y: F(T).binary_cross_entropy(x, y), PROB_IN, PROB_T)
case("bce_clamp_log", lambda T: F(T).binary_cross_entropy(T.tensor([0.0, 1.0, 0.5]), T.tensor([1.0, 0.0, 0.5]),
                                                          reduction="none"))
case("bce_double", lambda T: F(T).binary_cross_entropy(T.tensor(PROB_IN, dtype=T.float64), T.tensor(PROB_T, dtype=T.float64)))
error_case("bce_range", lambda T: F(T).binary_cross_entropy(T.tensor([1.5, 0.5]), T.tensor([1.0, 0.0])))
error_case("bce_nan", lambda T: F(T).binary_cross_entropy(T.tensor([float("nan"), 0.5]), T.tensor([1.0, 0.0])))
error_case("bce_size", lambda T: F(T).binary_cross_entropy(T.tensor(PROB_IN), T.tensor(PROB_T[0])))
error_case("bce_dtype", lambda T: F(T).binary_cross_entropy(T.tensor(PROB_IN), T.tensor(PROB_T, dtype=T.float64)))
cases("bce_logits", lambda T, x, reduction: F(T).binary_cross_entropy_with_logits(x, T.tensor(PROB_T), reduction=reduction),
      PRED, kind="grad", reduction=REDUCTIONS)
cases("bce_logits_pos_weight", lambda T, x, reduction: F(T).binary_cross_entropy_with_logits(
    x, T.tensor(PROB_T), pos_weight=T.tensor([1.0, 3.0, 0.5]), reduction=reduction), PRED, kind="grad", reduction=REDUCTIONS)
cases("bce_logits_weight_pos_weight", lambda T, x, reduction: F(T).binary_cross_entropy_with_logits(
    x, T.tensor(PROB_T), T.tensor([[2.0], [0.5]]), pos_weight=T.tensor([1.0, 3.0, 0.5]), reduction=reduction), PRED,
      kind="grad", reduction=REDUCTIONS)
grad_case("bce_logits_grad_target", lambda T, x, y: F(T).binary_cross_entropy_with_logits(x, y), PRED, PROB_T)
grad_case("bce_logits_grad_target_pw", lambda T, x, y: F(T).binary_cross_entropy_with_logits(
    x, y, pos_weight=T.tensor([2.0, 1.0, 0.5])), PRED, PROB_T)
case("bce_logits_extreme", lambda T: F(T).binary_cross_entropy_with_logits(T.tensor([100.0, -100.0, 0.0]),
                                                                          T.tensor([0.0, 1.0, 1.0]), reduction="none"))
case("bce_logits_torch", lambda T: T.binary_cross_entropy_with_logits(T.tensor(PRED), T.tensor(PROB_T), None, None, 2))
error_case("bce_logits_size", lambda T: F(T).binary_cross_entropy_with_logits(T.tensor(PRED), T.tensor(PROB_T[0])))

# ---------------------------------------------------------------------------------------------- other losses
cases("kl_div", lambda T, x, reduction: F(T).kl_div(x, T.tensor(PROBS), reduction=reduction), LOGP, kind="grad",
      reduction=["none", "sum", "batchmean"])
grad_case("kl_div_mean_warns", lambda T, x: F(T).kl_div(x, T.tensor(PROBS)), LOGP, warns=True)
cases("kl_div_log_target", lambda T, x, y, reduction: F(T).kl_div(x, y, reduction=reduction, log_target=True), LOGP,
      [[-1.0, -2.0, -0.5, -3.0], [-0.2, -1.1, -2.5, -0.9], [-1.4, -1.4, -0.3, -2.0]], kind="grad",
      reduction=["none", "sum", "batchmean"])
case("kl_div_zero_target", lambda T: F(T).kl_div(T.tensor([-1.0, -2.0]), T.tensor([0.0, 1.0]), reduction="sum"))
error_case("kl_div_int", lambda T: F(T).kl_div(T.tensor([1, 2]), T.tensor([1, 2]), reduction="sum"))
cases("poisson_nll", lambda T, x, reduction: F(T).poisson_nll_loss(x, T.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.5]]),
                                                                   reduction=reduction),
      PRED, kind="grad", reduction=REDUCTIONS)
grad_case("poisson_nll_full", lambda T, x: F(T).poisson_nll_loss(x, T.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.5]]), full=True),
          PRED)
grad_case("poisson_nll_no_log", lambda T, x: F(T).poisson_nll_loss(x, T.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.5]]),
                                                                   log_input=False),
          [[0.5, 1.25, 2.0], [1.5, 0.75, 0.3]])
error_case("poisson_nll_reduction", lambda T: F(T).poisson_nll_loss(T.tensor(PRED), T.tensor(PRED), reduction="x"))
cases("gaussian_nll", lambda T, x, v, reduction: F(T).gaussian_nll_loss(x, T.tensor(TARG), v, reduction=reduction),
      PRED, [[0.5, 1.0, 2.0], [0.1, 0.25, 3.0]], kind="grad", reduction=REDUCTIONS)
grad_case("gaussian_nll_full_homo", lambda T, x, v: F(T).gaussian_nll_loss(x, T.tensor(TARG), v, full=True), PRED,
          [0.5, 2.0])
grad_case("gaussian_nll_float_var", lambda T, x: F(T).gaussian_nll_loss(x, T.tensor(TARG), 0.5), PRED)
error_case("gaussian_nll_neg_var", lambda T: F(T).gaussian_nll_loss(T.tensor(PRED), T.tensor(TARG), T.tensor([[-1.0, 1, 1],
                                                                                                              [1, 1, 1]])))
error_case("gaussian_nll_var_size", lambda T: F(T).gaussian_nll_loss(T.tensor(PRED), T.tensor(TARG), T.ones(3, 2)))
cases("cosine_embedding", lambda T, a, b, reduction: F(T).cosine_embedding_loss(a, b, T.tensor([1, -1]), margin=0.2,
                                                                                reduction=reduction),
      PRED, TARG, kind="grad", reduction=REDUCTIONS)
grad_case("cosine_embedding_1d", lambda T, a, b: F(T).cosine_embedding_loss(a, b, T.tensor(-1)), PRED[0], TARG[0])
error_case("cosine_embedding_dims", lambda T: F(T).cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 1)))
error_case("cosine_embedding_1d_target", lambda T: F(T).cosine_embedding_loss(T.ones(3), T.ones(3), T.ones(2)))
cases("margin_ranking", lambda T, a, b, reduction: F(T).margin_ranking_loss(a, b, T.tensor([1.0, -1.0, 1.0]), margin=0.3,
                                                                            reduction=reduction),
      PRED[0], TARG[0], kind="grad", reduction=REDUCTIONS)
error_case("margin_ranking_dims", lambda T: F(T).margin_ranking_loss(T.ones(3), T.ones(3), T.ones(1, 3)))
cases("hinge_embedding", lambda T, x, reduction: F(T).hinge_embedding_loss(x, T.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]),
                                                                           reduction=reduction),
      PRED, kind="grad", reduction=REDUCTIONS)
cases("triplet_margin", lambda T, a, p, n, reduction: F(T).triplet_margin_loss(a, p, n, reduction=reduction), PRED, TARG,
      [[0.1, 0.2, 0.3], [-1.0, 2.0, 0.5]], kind="grad", reduction=REDUCTIONS)
grad_case("triplet_margin_swap_p1", lambda T, a, p, n: F(T).triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True), PRED,
          TARG, [[0.1, 0.2, 0.3], [-1.0, 2.0, 0.5]])
grad_case("triplet_with_distance", lambda T, a, p, n: F(T).triplet_margin_with_distance_loss(a, p, n, margin=1.5),
          PRED, TARG, [[0.1, 0.2, 0.3], [-1.0, 2.0, 0.5]])
error_case("triplet_margin_zero", lambda T: F(T).triplet_margin_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2, 3), margin=0))
error_case("triplet_margin_dims", lambda T: F(T).triplet_margin_loss(T.ones(2, 3), T.ones(3), T.ones(2, 3)))
cases("multilabel_soft_margin", lambda T, x, reduction: F(T).multilabel_soft_margin_loss(
    x, T.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), reduction=reduction), PRED, kind="grad", reduction=REDUCTIONS)
grad_case("multilabel_soft_margin_weight", lambda T, x: F(T).multilabel_soft_margin_loss(
    x, T.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), weight=T.tensor([1.0, 2.0, 0.5])), PRED)
cases("multi_margin", lambda T, x, reduction, p: F(T).multi_margin_loss(x, T.tensor(TGT), p=p, reduction=reduction), LOGITS,
      kind="grad", reduction=REDUCTIONS, p=[1, 2])
grad_case("multi_margin_weight_margin", lambda T, x: F(T).multi_margin_loss(x, T.tensor(TGT), margin=0.5, weight=T.tensor(CW)),
          LOGITS)
grad_case("multi_margin_1d", lambda T, x: F(T).multi_margin_loss(x, T.tensor([1])), LOGITS[0])
error_case("multi_margin_p3", lambda T: F(T).multi_margin_loss(T.tensor(LOGITS), T.tensor(TGT), p=3))
error_case("multi_margin_target", lambda T: F(T).multi_margin_loss(T.tensor(LOGITS), T.tensor([0, 1])))
error_case("multi_margin_weight_dim", lambda T: F(T).multi_margin_loss(T.tensor(LOGITS), T.tensor(TGT), weight=T.ones(2, 2)))
cases("multilabel_margin", lambda T, x, reduction: F(T).multilabel_margin_loss(x, T.tensor([[3, 0, -1, 1], [1, 2, 3, -1],
                                                                                          [-1, 0, 0, 0]]),
                                                                               reduction=reduction),
      LOGITS, kind="grad", reduction=REDUCTIONS)
grad_case("multilabel_margin_1d", lambda T, x: F(T).multilabel_margin_loss(x, T.tensor([2, 0, -1, 3])), LOGITS[0])
error_case("multilabel_margin_size", lambda T: F(T).multilabel_margin_loss(T.tensor(LOGITS), T.tensor([[0, 1], [1, 2], [2, 3]])))

# ---------------------------------------------------------------------------------------------- modules
def _mod(T, name, *args, **kw):
    return getattr(T.nn, name)(*args, **kw)


MODULE_FORWARDS = [
    ("MSELoss", {}, lambda T: (T.tensor(PRED), T.tensor(TARG))),
    ("MSELoss", {"reduction": "sum"}, lambda T: (T.tensor(PRED), T.tensor(TARG))),
    ("L1Loss", {"reduction": "none"}, lambda T: (T.tensor(PRED), T.tensor(TARG))),
    ("SmoothL1Loss", {"beta": 0.3}, lambda T: (T.tensor(PRED), T.tensor(TARG))),
    ("HuberLoss", {"delta": 0.4}, lambda T: (T.tensor(PRED), T.tensor(TARG))),
    ("SoftMarginLoss", {}, lambda T: (T.tensor(PRED), T.tensor([[1.0, -1.0, 1.0], [-1.0, 1.0, 1.0]]))),
    ("CrossEntropyLoss", {}, lambda T: (T.tensor(LOGITS), T.tensor(TGT))),
    ("CrossEntropyLoss", {"weight": "CW", "ignore_index": 1, "label_smoothing": 0.05},
     lambda T: (T.tensor(LOGITS), T.tensor(TGT))),
    ("NLLLoss", {"reduction": "sum"}, lambda T: (T.tensor(LOGP), T.tensor(TGT))),
    ("BCELoss", {}, lambda T: (T.tensor(PROB_IN), T.tensor(PROB_T))),
    ("BCEWithLogitsLoss", {"pos_weight": "PW"}, lambda T: (T.tensor(PRED), T.tensor(PROB_T))),
    ("KLDivLoss", {"reduction": "batchmean"}, lambda T: (T.tensor(LOGP), T.tensor(PROBS))),
    ("KLDivLoss", {"reduction": "sum", "log_target": True}, lambda T: (T.tensor(LOGP), T.tensor(LOGP))),
    ("PoissonNLLLoss", {}, lambda T: (T.tensor(PRED), T.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.5]]))),
    ("HingeEmbeddingLoss", {"margin": 0.5}, lambda T: (T.tensor(PRED), T.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]))),
    ("MultiMarginLoss", {"p": 2}, lambda T: (T.tensor(LOGITS), T.tensor(TGT))),
    ("MultiLabelMarginLoss", {}, lambda T: (T.tensor(LOGITS), T.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]]))),
    ("MultiLabelSoftMarginLoss", {}, lambda T: (T.tensor(PRED), T.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]))),
]
for _i, (_name, _kw, _inputs) in enumerate(MODULE_FORWARDS):
    def _run(T, _name=_name, _kw=_kw, _inputs=_inputs):
        kw = {k: (T.tensor(CW) if v == "CW" else T.tensor([1.0, 3.0, 0.5]) if v == "PW" else v) for k, v in _kw.items()}
        m = _mod(T, _name, **kw)
        x, y = _inputs(T)
        x.requires_grad_(True)
        out = m(x, y)
        (out * 1.5).sum().backward()
        return repr(m), out, x.grad, [n for n, _ in m.named_buffers()]
    case(f"loss_module_{_i}_{_name}", _run)
case("loss_module_triplet", lambda T: T.nn.TripletMarginLoss(margin=0.5, p=1.0)(T.tensor(PRED), T.tensor(TARG),
                                                                               T.tensor([[0.1, 0.2, 0.3], [-1.0, 2.0, 0.5]])))
case("loss_module_cosine", lambda T: T.nn.CosineEmbeddingLoss(0.1)(T.tensor(PRED), T.tensor(TARG), T.tensor([1, -1])))
case("loss_module_margin_ranking", lambda T: T.nn.MarginRankingLoss(0.1)(T.tensor(PRED[0]), T.tensor(TARG[0]),
                                                                        T.tensor([1.0, -1.0, 1.0])))
case("loss_module_gaussian", lambda T: T.nn.GaussianNLLLoss(full=True)(T.tensor(PRED), T.tensor(TARG), T.ones(2, 3)))
case("loss_module_legacy", lambda T: T.nn.MSELoss(size_average=False).reduction, warns=True)
case("loss_module_state_dict", lambda T: list(T.nn.CrossEntropyLoss(weight=T.tensor(CW)).state_dict().items()))
case("loss_module_nll2d_warns", lambda T: repr(T.nn.NLLLoss2d()), warns=True)
error_case("loss_module_huber_delta", lambda T: T.nn.HuberLoss(delta="1"))
error_case("loss_module_triplet_margin", lambda T: T.nn.TripletMarginLoss(margin=-1.0))
error_case("loss_module_multimargin_p", lambda T: T.nn.MultiMarginLoss(p=3))
for _i, _m in enumerate([lambda T: T.nn.L1Loss(), lambda T: T.nn.MSELoss(reduction="sum"), lambda T: T.nn.CrossEntropyLoss(),
                         lambda T: T.nn.NLLLoss(), lambda T: T.nn.BCELoss(), lambda T: T.nn.BCEWithLogitsLoss(),
                         lambda T: T.nn.KLDivLoss(), lambda T: T.nn.SmoothL1Loss(beta=0.5), lambda T: T.nn.HuberLoss(),
                         lambda T: T.nn.CTCLoss(), lambda T: T.nn.TripletMarginWithDistanceLoss(),
                         lambda T: T.nn.TripletMarginLoss(), lambda T: T.nn.CosineEmbeddingLoss()]):
    case(f"loss_repr_{_i}", lambda T, _m=_m: repr(_m(T)))

"""Spatial transformers: F.affine_grid (affine_grid_generator) and F.grid_sample (grid_sampler / grid_sampler_2d)
over 4-D input: bilinear / nearest / bicubic, zeros / border / reflection padding, align_corners, grids inside and
outside [-1, 1], gradients w.r.t. input, grid and theta, torch's checks in torch's order and its warnings."""
from .harness import *  # noqa: F401,F403

IMG = [[[[((n * 7 + c * 5 + h * 3 + w) % 11 - 5) * 0.37 + 0.01 * (h - w) for w in range(5)] for h in range(4)]
        for c in range(2)] for n in range(2)]                                          # [2, 2, 4, 5]
# [2, 3, 4, 2]: positions inside, on and outside [-1, 1], uneven
GRID = [[[[((n * 13 + h * 5 + w * 3 + k * 7) % 17 - 8) * 0.17 + 0.013 * (h - w) + 0.021 * k for k in range(2)]
          for w in range(4)] for h in range(3)] for n in range(2)]
# exact positions: pixel centres / corners for W = 5, H = 4 (ties for nearest, borders for the clip gradient)
EXACT = [[[[-1.0, -1.0], [-0.6, -0.5], [0.2, 0.25], [1.0, 1.0]], [[-0.2, 0.75], [0.6, -0.25], [1.4, 0.5], [-1.8, -1.5]]]]
THETA = [[[0.9, -0.2, 0.1], [0.3, 1.1, -0.05]], [[0.7, 0.4, -0.3], [-0.25, 0.8, 0.2]]]


def F(T):
    return T.nn.functional


MODES = ["bilinear", "nearest", "bicubic"]
PADS = ["zeros", "border", "reflection"]

cases("grid_sample", lambda T, mode, pad, ac: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID), mode=mode,
                                                                   padding_mode=pad, align_corners=ac),
      mode=MODES, pad=PADS, ac=BOOLS)
cases("grid_sample_f64", lambda T, mode, pad: F(T).grid_sample(T.tensor(IMG, dtype=T.float64),
                                                                  T.tensor(GRID, dtype=T.float64) * 2.5, mode=mode,
                                                                  padding_mode=pad, align_corners=False),
      mode=MODES, pad=PADS)
cases("grid_sample_exact", lambda T, mode, pad, ac: F(T).grid_sample(T.tensor(IMG)[:1], T.tensor(EXACT), mode=mode,
                                                                         padding_mode=pad, align_corners=ac),
      mode=MODES, pad=PADS, ac=BOOLS)
# bicubic: torch's vectorised kernel may fuse multiply-adds; the grid gradient sums 16 taps with cancellation
_BIC = dict(rtol=1e-4, atol=1e-5)
for _m in MODES:
    for _p in PADS:
        grad_case(f"grid_sample_grad[{_m},{_p}]",
                  lambda T, x, g, _m=_m, _p=_p: F(T).grid_sample(x, g, mode=_m, padding_mode=_p, align_corners=False),
                  IMG, GRID, **(_BIC if _m == "bicubic" else {}))
        grad_case(f"grid_sample_grad_ac[{_m},{_p}]",
                  lambda T, x, g, _m=_m, _p=_p: F(T).grid_sample(x, g * 1.7, mode=_m, padding_mode=_p,
                                                                  align_corners=True),
                  inp(IMG, dtype=D.float64), inp(GRID, dtype=D.float64))
grad_case("grid_sample_grad_input_only", lambda T, x, g: F(T).grid_sample(x, g, align_corners=False), IMG, const(GRID))
grad_case("grid_sample_grad_grid_only", lambda T, x, g: F(T).grid_sample(x, g, mode="bicubic", align_corners=True),
          const(IMG), GRID, **_BIC)
grad_case("grid_sample_noncontig", lambda T, x, g: F(T).grid_sample(x, g.transpose(1, 2), padding_mode="reflection",
                                                                    align_corners=False),
          inp(IMG, view=vT), GRID)
case("grid_sample_noncontig_value", lambda T: F(T).grid_sample(nc_t(T, IMG), T.tensor(GRID).transpose(1, 2),
                                                               align_corners=True))
case("grid_sample_torch_grid_sampler", lambda T: T.grid_sampler(T.tensor(IMG), T.tensor(GRID), 2, 1, False))
case("grid_sample_torch_grid_sampler_2d", lambda T: T.grid_sampler_2d(T.tensor(IMG), T.tensor(GRID), 1, 2, True))
case("grid_sample_nan", lambda T: F(T).grid_sample(T.tensor(IMG)[:1], T.tensor([[[[float("nan"), 0.5]]]]),
                                                   padding_mode="border", align_corners=False))
case("grid_sample_empty_batch", lambda T: F(T).grid_sample(T.ones(0, 2, 3, 3), T.ones(0, 2, 2, 2), align_corners=False))
case("grid_sample_empty_grid", lambda T: F(T).grid_sample(T.ones(1, 2, 3, 3), T.ones(1, 0, 2, 2), align_corners=False))
case("grid_sample_no_align_corners", lambda T: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID)), warns=True)
error_case("grid_sample_bad_mode", lambda T: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID), mode="linear"))
error_case("grid_sample_bad_padding", lambda T: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID), padding_mode="zero"))
error_case("grid_sample_dtype", lambda T: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID, dtype=T.float64),
                                                           align_corners=False))
error_case("grid_sample_int", lambda T: F(T).grid_sample(T.ones(1, 1, 2, 2, dtype=T.int64),
                                                         T.zeros(1, 1, 1, 2, dtype=T.int64), align_corners=False))
error_case("grid_sample_batch", lambda T: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID)[:1], align_corners=False))
error_case("grid_sample_last_dim", lambda T: F(T).grid_sample(T.tensor(IMG), T.tensor(GRID)[..., :1],
                                                              align_corners=False))
error_case("grid_sample_empty_spatial", lambda T: F(T).grid_sample(T.ones(2, 2, 0, 3), T.tensor(GRID),
                                                                   align_corners=False))
error_case("grid_sample_3d_input", lambda T: T.grid_sampler(T.ones(3, 3, 3), T.ones(3, 3, 1), 0, 0, False))
error_case("grid_sample_grid_dims", lambda T: T.grid_sampler(T.ones(3, 3, 3, 3), T.ones(3, 3, 2), 0, 0, False))
error_case("grid_sample_2d_5d", lambda T: T.grid_sampler_2d(T.ones(1, 1, 2, 2, 2), T.ones(1, 1, 1, 1, 3), 0, 0, False))
error_case("grid_sample_bicubic_5d", lambda T: F(T).grid_sample(T.ones(1, 1, 2, 2, 2), T.ones(1, 1, 1, 1, 3),
                                                                mode="bicubic", align_corners=False))

cases("affine_grid", lambda T, ac, size: F(T).affine_grid(T.tensor(THETA), size, align_corners=ac),
      ac=BOOLS, size=[(2, 3, 4, 5), (2, 1, 3, 1), (2, 2, 1, 6)], warns=True)
cases("affine_grid_f64", lambda T, ac: F(T).affine_grid(T.tensor(THETA, dtype=T.float64), [2, 1, 7, 3],
                                                        align_corners=ac), ac=BOOLS)
grad_case("affine_grid_grad", lambda T, th: F(T).affine_grid(th, (2, 3, 4, 5), align_corners=False), THETA)
grad_case("affine_grid_grad_ac", lambda T, th: F(T).affine_grid(th, T.Size([2, 1, 3, 6]), align_corners=True),
          inp(THETA, dtype=D.float64), order=2)
grad_case("stn", lambda T, x, th: F(T).grid_sample(x, F(T).affine_grid(th, x.size(), align_corners=False),
                                                   align_corners=False), IMG, THETA)
grad_case("stn_bicubic_reflection", lambda T, x, th: F(T).grid_sample(
    x, F(T).affine_grid(th * 1.5, (2, 2, 3, 7), align_corners=True), mode="bicubic", padding_mode="reflection",
    align_corners=True), IMG, THETA, **_BIC)
case("affine_grid_torch_generator", lambda T: T.affine_grid_generator(T.tensor(THETA), [2, 3, 2, 3], False))
case("affine_grid_no_align_corners", lambda T: F(T).affine_grid(T.tensor(THETA), (2, 3, 4, 5)), warns=True)
error_case("affine_grid_int", lambda T: F(T).affine_grid(T.ones(2, 2, 3, dtype=T.int64), (2, 3, 4, 5),
                                                         align_corners=False))
error_case("affine_grid_size_len", lambda T: F(T).affine_grid(T.tensor(THETA), (2, 3, 4), align_corners=False))
error_case("affine_grid_theta_shape", lambda T: F(T).affine_grid(T.ones(2, 3, 3), (2, 3, 4, 5), align_corners=False))
error_case("affine_grid_theta_5d_shape", lambda T: F(T).affine_grid(T.ones(2, 2, 3), (2, 3, 4, 5, 6),
                                                                    align_corners=False))
error_case("affine_grid_zero_size", lambda T: F(T).affine_grid(T.tensor(THETA), (2, 3, 4, 0), align_corners=False))
error_case("affine_grid_batch", lambda T: F(T).affine_grid(T.tensor(THETA), (3, 3, 4, 5), align_corners=False))
error_case("affine_grid_generator_dims", lambda T: T.affine_grid_generator(T.tensor(THETA), [2, 3], False))
error_case("affine_grid_generator_negative", lambda T: T.affine_grid_generator(T.tensor(THETA), [2, 3, -1, 5], False))

# ---- max unpooling: indices from max_pool (distinct), output_size variants, every spelling, torch's checks
POOL_IN = [[[[((c * 7 + h * 5 + w * 3) % 13 - 6) * 0.31 + 0.01 * w for w in range(6)] for h in range(4)]
            for c in range(2)]]                                                         # [1, 2, 4, 6]
SEQ_IN = [[((c * 5 + t * 3) % 11 - 5) * 0.4 + 0.02 * t for t in range(7)] for c in range(3)]   # [3, 7]
VOL_IN = [[[[[((d * 5 + h * 3 + w * 7) % 11 - 5) * 0.3 + 0.01 * d for w in range(4)] for h in range(3)]
             for d in range(2)]]]                                                       # [1, 1, 2, 3, 4]


def _pool2(T, x, **kw):
    return F(T).max_pool2d(x, 2, return_indices=True, **kw)


grad_case("max_unpool2d", lambda T, x: F(T).max_unpool2d(*_pool2(T, x), 2), POOL_IN)
grad_case("max_unpool2d_output_size", lambda T, x: F(T).max_unpool2d(*_pool2(T, x), 2, output_size=(5, 5)), POOL_IN)
grad_case("max_unpool2d_output_size4", lambda T, x: F(T).max_unpool2d(*_pool2(T, x), 2, output_size=[1, 2, 4, 6]),
          POOL_IN)
grad_case("max_unpool2d_stride_pad", lambda T, x: F(T).max_unpool2d(
    *F(T).max_pool2d(x, 3, 2, 1, return_indices=True), 3, 2, 1, output_size=(4, 6)), POOL_IN)
grad_case("max_unpool2d_no_batch", lambda T, x: F(T).max_unpool2d(*_pool2(T, x[0]), 2), POOL_IN)
grad_case("max_unpool2d_module", lambda T, x: T.nn.MaxUnpool2d(2)(*_pool2(T, x), output_size=T.Size([5, 7])), POOL_IN)
grad_case("max_unpool1d", lambda T, x: F(T).max_unpool1d(*F(T).max_pool1d(x, 2, return_indices=True), 2), SEQ_IN)
grad_case("max_unpool1d_module", lambda T, x: T.nn.MaxUnpool1d(3, 2, 1)(
    *F(T).max_pool1d(x[None], 3, 2, 1, return_indices=True), output_size=[7]), SEQ_IN)
grad_case("max_unpool3d", lambda T, x: F(T).max_unpool3d(*F(T).max_pool3d(x, 2, return_indices=True,
                                                                          ceil_mode=True), 2, output_size=(2, 3, 4)),
          VOL_IN)
grad_case("max_unpool3d_module", lambda T, x: T.nn.MaxUnpool3d((1, 2, 2))(
    *F(T).max_pool3d(x, (1, 2, 2), return_indices=True), output_size=[2, 3, 4]), VOL_IN)
cases("max_unpool2d_dtype", lambda T, dtype: F(T).max_unpool2d(*_pool2(T, T.tensor(POOL_IN, dtype=dtype)), 2),
      dtype=FLOATS)
case("max_unpool2d_noncontig", lambda T: F(T).max_unpool2d(*_pool2(T, nc_t(T, POOL_IN)), 2))
case("max_unpool2d_torch_nn", lambda T: T._C._nn.max_unpool2d(T.tensor([[[[1.5, -2.0], [0.5, 3.0]]]]),
                                                             T.tensor([[[[0, 4], [6, 8]]]]), [3, 3]))
case("max_unpool2d_empty_batch", lambda T: T._C._nn.max_unpool2d(T.ones(0, 2, 2, 2),
                                                                 T.zeros(0, 2, 2, 2, dtype=T.int64) + 9, [3, 3]))
case("max_unpool3d_torch_nn", lambda T: T._C._nn.max_unpool3d(T.tensor([[[[[1.5, -2.0]]]]]),
                                                             T.tensor([[[[[0, 5]]]]]), [1, 2, 3], [1, 1, 1],
                                                             [0, 0, 0]))
case("max_unpool_repr", lambda T: repr(T.nn.MaxUnpool2d(2)) + repr(T.nn.MaxUnpool1d(3, 2, 1))
     + repr(T.nn.MaxUnpool3d((1, 2, 3))))
U2 = [[[[1.5, -2.0], [0.5, 3.0]], [[0.25, 1.0], [-1.0, 2.0]]]]                          # [1, 2, 2, 2]
I2 = [[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]]
error_case("max_unpool2d_output_size_range", lambda T: F(T).max_unpool2d(*_pool2(T, T.tensor(POOL_IN)), 2,
                                                                         output_size=(6, 6)))
error_case("max_unpool2d_output_size_len", lambda T: F(T).max_unpool2d(*_pool2(T, T.tensor(POOL_IN)), 2,
                                                                       output_size=(5,)))
error_case("max_unpool2d_output_size_negative", lambda T: F(T).max_unpool2d(T.tensor(U2), T.tensor(I2), 2,
                                                                            output_size=[-1, 3], stride=1, padding=1))
error_case("max_unpool2d_invalid_index", lambda T: F(T).max_unpool2d(T.tensor(U2), T.tensor(I2) * 0 + T.tensor(
    [[[[0, 0], [0, 0]], [[0, 0], [0, 17]]]]), 2))
error_case("max_unpool2d_negative_index", lambda T: T._C._nn.max_unpool2d(T.tensor(U2), T.tensor(I2) - 1, [4, 4]))
error_case("max_unpool2d_int_indices", lambda T: T._C._nn.max_unpool2d(T.tensor(U2), T.tensor(I2, dtype=T.int32),
                                                                       [5]))
error_case("max_unpool2d_long_input", lambda T: T._C._nn.max_unpool2d(T.tensor(U2).long(), T.tensor(I2), [4, 4]))
error_case("max_unpool2d_len", lambda T: T._C._nn.max_unpool2d(T.tensor(U2)[0, 0], T.tensor(I2)[0, 0], [5]))
error_case("max_unpool2d_dims", lambda T: T._C._nn.max_unpool2d(T.tensor(U2)[0, 0], T.tensor(I2)[0, 0], [5, 5]))
error_case("max_unpool2d_shape", lambda T: T._C._nn.max_unpool2d(T.tensor(U2)[:, :0], T.tensor(I2)[:, :1], [5, 5]))
error_case("max_unpool2d_empty", lambda T: T._C._nn.max_unpool2d(T.tensor(U2)[:, :0], T.tensor(I2)[:, :0], [5, 5]))
error_case("max_unpool2d_negative_size", lambda T: T._C._nn.max_unpool2d(T.tensor(U2).long(), T.tensor(I2), [-1, 5]))
error_case("max_unpool3d_int_indices", lambda T: T._C._nn.max_unpool3d(T.tensor(U2), T.tensor(I2).int(), [5], [1], [1]))
error_case("max_unpool3d_dims", lambda T: T._C._nn.max_unpool3d(T.tensor(U2)[0], T.tensor(I2)[0], [5], [1], [1]))
error_case("max_unpool3d_len", lambda T: T._C._nn.max_unpool3d(T.tensor(U2), T.tensor(I2), [5], [1], [1]))
error_case("max_unpool3d_stride_len", lambda T: T._C._nn.max_unpool3d(T.tensor(U2), T.tensor(I2), [1, 5, 5], [1], [1]))
error_case("max_unpool3d_padding_len", lambda T: T._C._nn.max_unpool3d(T.tensor(U2), T.tensor(I2), [1, 5, 5],
                                                                       [1, 1, 1], [1]))
error_case("max_unpool3d_stride", lambda T: T._C._nn.max_unpool3d(T.tensor(U2).long(), T.tensor(I2), [1, 5, 5],
                                                                  [0, 1, 1], [1, 1, 1]))
error_case("max_unpool3d_long_input", lambda T: T._C._nn.max_unpool3d(T.tensor(U2).long(), T.tensor(I2), [1, 5, 5],
                                                                      [1, 1, 1], [1, 1, 1]))
error_case("max_unpool3d_negative_size", lambda T: T._C._nn.max_unpool3d(T.tensor(U2), T.tensor(I2), [1, -5, 5],
                                                                         [1, 1, 1], [1, 1, 1]))
error_case("max_unpool3d_invalid_index", lambda T: T._C._nn.max_unpool3d(T.tensor(U2)[None], T.tensor(I2)[None] * 0 + T.tensor(
    [[[[[0, 0], [30, 0]], [[0, 0], [0, 0]]]]]),
                                                                         [1, 5, 5], [1, 1, 1], [0, 0, 0]))
error_case("max_unpool2d_backward_empty_output", lambda T: T._C._nn.max_unpool2d(
    T.ones(1, 1, 1, 2, requires_grad=True), T.tensor([[[[0, 1]]]]), [0, 3]).sum().backward())

# ---- pdist: every p family (0, fractional below 1, 1, between 1 and 2, 2, above 2, inf), repeated rows (distance
# 0), ties for inf, both spellings, torch's checks in torch's order
ROWS = [[1.0, 2.0, 0.5, -1.25], [0.25, -1.0, 3.0, 0.5], [1.0, 2.0, 0.5, -1.25], [1.5, 0.0, -2.0, 0.75],
        [2.0, 2.0, 0.5, 0.0]]
for _p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")):
    grad_case(f"pdist[p={_p}]", lambda T, x, _p=_p: T.pdist(x, _p), ROWS)
grad_case("pdist_f64", lambda T, x: T.nn.functional.pdist(x, p=2.5), inp(ROWS, dtype=D.float64))
grad_case("pdist_noncontig", lambda T, x: T.pdist(x.t()), inp(ROWS, view=vT))
case("pdist_default", lambda T: T.pdist(T.tensor(ROWS)))
case("pdist_one_row", lambda T: T.pdist(T.tensor(ROWS[:1])))
case("pdist_no_rows", lambda T: T.pdist(T.ones(0, 3)))
case("pdist_no_columns", lambda T: T.pdist(T.ones(4, 0)))
error_case("pdist_1d", lambda T: T.pdist(T.tensor(ROWS[0])))
error_case("pdist_3d", lambda T: T.pdist(T.tensor([ROWS])))
error_case("pdist_int", lambda T: T.pdist(T.ones(3, 2, dtype=T.int64), -1))
error_case("pdist_negative_p", lambda T: T.pdist(T.tensor(ROWS), -1))
error_case("pdist_half", lambda T: T.pdist(T.tensor(ROWS, dtype=T.float16)))
error_case("pdist_method", lambda T: T.tensor(ROWS).pdist())
error_case("pdist_p_str", lambda T: T.pdist(T.tensor(ROWS), "a"))

# ---- 5-D input: trilinear / nearest, every padding, align_corners; affine_grid over 3-D affine maps
VOLS = [[[[[((c * 5 + d * 7 + h * 3 + w) % 11 - 5) * 0.29 + 0.01 * d for w in range(4)] for h in range(3)]
           for d in range(2)] for c in range(2)]]                                       # [1, 2, 2, 3, 4]
GRID3 = [[[[[((d * 5 + h * 3 + w * 7 + k * 11) % 13 - 6) * 0.23 + 0.017 * k for k in range(3)] for w in range(3)]
           for h in range(2)] for d in range(2)]]                                       # [1, 2, 2, 3, 3]
THETA3 = [[[0.9, -0.2, 0.1, 0.05], [0.3, 1.1, -0.05, -0.1], [0.15, 0.2, 0.8, 0.25]]]
cases("grid_sample_5d", lambda T, mode, pad, ac: F(T).grid_sample(T.tensor(VOLS), T.tensor(GRID3), mode=mode,
                                                                      padding_mode=pad, align_corners=ac),
      mode=["bilinear", "nearest"], pad=PADS, ac=BOOLS)
for _m in ("bilinear", "nearest"):
    for _p in PADS:
        grad_case(f"grid_sample_5d_grad[{_m},{_p}]",
                  lambda T, x, g, _m=_m, _p=_p: F(T).grid_sample(x, g * 1.4, mode=_m, padding_mode=_p,
                                                                  align_corners=_p == "border"), VOLS, GRID3)
grad_case("grid_sample_5d_f64", lambda T, x, g: F(T).grid_sample(x, g, padding_mode="reflection", align_corners=True),
          inp(VOLS, dtype=D.float64), inp(GRID3, dtype=D.float64))
case("grid_sample_torch_grid_sampler_3d", lambda T: T.grid_sampler_3d(T.tensor(VOLS), T.tensor(GRID3), 0, 1, False))
cases("affine_grid_5d", lambda T, ac: F(T).affine_grid(T.tensor(THETA3), (1, 2, 2, 3, 4), align_corners=ac), ac=BOOLS)
grad_case("affine_grid_5d_grad", lambda T, th: F(T).affine_grid(th, (1, 2, 3, 1, 2), align_corners=False), THETA3)
grad_case("stn_5d", lambda T, x, th: F(T).grid_sample(x, F(T).affine_grid(th, x.size(), align_corners=False),
                                                      align_corners=False), VOLS, THETA3)
error_case("grid_sample_5d_dtype", lambda T: F(T).grid_sample(T.tensor(VOLS), T.tensor(GRID3, dtype=T.float64),
                                                              align_corners=False))
error_case("grid_sample_5d_int", lambda T: F(T).grid_sample(T.ones(1, 1, 1, 1, 1, dtype=T.int64),
                                                            T.zeros(1, 1, 1, 1, 3, dtype=T.int64), align_corners=False))

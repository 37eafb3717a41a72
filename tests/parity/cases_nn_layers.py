"""nn layers: Linear, Bilinear, Identity, Flatten/Unflatten, Conv1d/2d/3d, ConvTranspose, pooling, padding,
PixelShuffle, Fold/Unfold, Embedding; their seeded default initialisation (torch's draws, bit for bit), forward
values, gradients (inputs and parameters), printouts and errors."""
from .harness import *  # noqa: F401,F403

X23 = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.3]]
W43 = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 0.05]]
B4 = [0.01, -0.02, 0.03, 0.5]
# [N=2, C=3, H=5, W=4]
IMG = [[[[((n * 7 + c * 5 + h * 3 + w) % 11 - 5) * 0.37 + 0.01 * (h - w) for w in range(4)] for h in range(5)]
        for c in range(3)] for n in range(2)]
# conv weight [Cout=2, Cin=3, 3, 2]
CW = [[[[((o * 5 + i * 3 + kh * 2 + kw) % 7 - 3) * 0.21 for kw in range(2)] for kh in range(3)] for i in range(3)]
      for o in range(2)]
SEQ = [[[((n * 5 + c * 3 + t) % 9 - 4) * 0.4 + 0.03 * t for t in range(7)] for c in range(3)] for n in range(2)]


def F(T):
    return T.nn.functional


# ---------------------------------------------------------------------------------------------- linear
grad_case("linear_2d_bias", lambda T, x, w, b: F(T).linear(x, w, b), X23, W43, B4)
grad_case("linear_2d_nobias", lambda T, x, w: F(T).linear(x, w), X23, W43)
grad_case("linear_1d_bias", lambda T, x, w, b: F(T).linear(x, w, b), [0.5, -1.0, 2.0], W43, B4)
grad_case("linear_1d_nobias", lambda T, x, w: F(T).linear(x, w), [0.5, -1.0, 2.0], W43)
grad_case("linear_3d_bias", lambda T, x, w, b: F(T).linear(x, w, b), [X23, [[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]]], W43, B4)
grad_case("linear_3d_nobias", lambda T, x, w: F(T).linear(x, w), [X23, [[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]]], W43)
grad_case("linear_4d_bias", lambda T, x, w, b: F(T).linear(x, w, b), [[X23], [X23]], W43, B4)
grad_case("linear_noncontig_bias", lambda T, x, w, b: F(T).linear(x, w, b), inp([[0.5, 1.5], [-1.25, 0.75], [2.0, -0.3]], view=vT), W43, B4)
grad_case("linear_3d_noncontig", lambda T, x, w, b: F(T).linear(x.transpose(0, 1), w, b),
          [X23, [[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]]], W43, B4)
grad_case("linear_grad2", lambda T, x, w, b: F(T).linear(x, w, b), X23, W43, B4, order=2)
case("linear_empty_batch", lambda T: F(T).linear(T.zeros(0, 3), T.tensor(W43), T.tensor(B4)))
case("linear_float64", lambda T: F(T).linear(T.tensor(X23, dtype=T.float64), T.tensor(W43, dtype=T.float64)))
case("linear_int64", lambda T: F(T).linear(T.tensor([[1, 2, 3]]), T.tensor([[1, 0, -1], [2, 2, 2]])))
error_case("linear_shape", lambda T: F(T).linear(T.ones(2, 3), T.ones(4, 5)))
error_case("linear_shape_bias", lambda T: F(T).linear(T.ones(2, 3), T.ones(4, 3), T.ones(3)))
error_case("linear_shape_1d", lambda T: F(T).linear(T.ones(3), T.ones(4, 5)))
error_case("linear_shape_3d", lambda T: F(T).linear(T.ones(2, 2, 3), T.ones(4, 5), T.ones(4)))
error_case("linear_dtype", lambda T: F(T).linear(T.ones(2, 3), T.ones(4, 3, dtype=T.float64)))
error_case("linear_dtype_bias", lambda T: F(T).linear(T.ones(2, 3), T.ones(4, 3), T.ones(4, dtype=T.float64)))


def _linear_module(T):
    m = T.nn.Linear(3, 4)
    return m.weight, m.bias, m(T.tensor(X23))


case("linear_module_seeded", _linear_module)
case("linear_module_nobias", lambda T: (T.nn.Linear(5, 2, bias=False).weight, T.nn.Linear(2, 3, bias=False).bias))
case("linear_module_params", lambda T: [(n, p.shape, p.requires_grad) for n, p in T.nn.Linear(3, 2).named_parameters()])
case("linear_module_double", lambda T: T.nn.Linear(3, 2, dtype=T.float64).weight)
case("linear_module_zero_in", lambda T: (T.nn.Linear(0, 2).weight, T.nn.Linear(0, 2).bias), warns=True)
case("linear_module_state_dict", lambda T: list(T.nn.Linear(3, 2).state_dict().items()))


def _linear_grads(T):
    m = T.nn.Linear(3, 4)
    out = m(T.tensor(X23))
    (out * T.tensor([[1.0, -2.0, 0.5, 3.0], [0.25, 1.5, -1.0, 2.0]])).sum().backward()
    return out, m.weight.grad, m.bias.grad


case("linear_module_backward", _linear_grads)
case("mlp_seeded", lambda T: [p for p in T.nn.Sequential(T.nn.Linear(7, 5), T.nn.ReLU(), T.nn.Linear(5, 3)).parameters()])
case("identity", lambda T: T.nn.Identity(3, foo=1)(T.tensor(X23)))

grad_case("bilinear_fn", lambda T, a, b, w, bias: F(T).bilinear(a, b, w, bias), X23, [[1.0, -0.5], [0.25, 2.0]],
          [[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [-1.1, 0.2]]], [0.5, -0.5])
grad_case("bilinear_nobias", lambda T, a, b, w: F(T).bilinear(a, b, w), X23, [[1.0, -0.5], [0.25, 2.0]],
          [[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]]])
case("bilinear_module_seeded", lambda T: (lambda m: (m.weight, m.bias, m(T.tensor(X23), T.tensor([[1.0, 2.0], [3.0, -1.0]]))))(
    T.nn.Bilinear(3, 2, 4)))
error_case("bilinear_dim_mismatch", lambda T: F(T).bilinear(T.ones(2, 3), T.ones(3), T.ones(4, 3, 3)))
error_case("bilinear_size_mismatch", lambda T: F(T).bilinear(T.ones(2, 3), T.ones(2, 2), T.ones(4, 3, 3)))
error_case("bilinear_zero_in1", lambda T: T.nn.Bilinear(0, 2, 3))

# ---------------------------------------------------------------------------------------------- flatten
grad_case("flatten_module", lambda T, x: T.nn.Flatten()(x), IMG)
grad_case("flatten_module_range", lambda T, x: T.nn.Flatten(0, 2)(x), IMG)
grad_case("unflatten_module", lambda T, x: T.nn.Unflatten(1, (3, 1))(x), [[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]])
error_case("unflatten_bad_sizes", lambda T: T.nn.Unflatten(1, (3, 1.5)))
error_case("unflatten_bad_type", lambda T: T.nn.Unflatten(1, 3))

# ---------------------------------------------------------------------------------------------- convolution
CONV2D_ARGS = {
    "plain": {}, "stride2": {"stride": 2}, "pad1": {"padding": 1}, "dil": {"dilation": 2, "padding": (2, 1)},
    "mixed": {"stride": (2, 1), "padding": (0, 1)}, "same": {"padding": "same"}, "valid": {"padding": "valid"},
    "same_dil": {"padding": "same", "dilation": (2, 1)},
}
for _n, _kw in CONV2D_ARGS.items():
    grad_case(f"conv2d_{_n}", lambda T, x, w, b, _kw=_kw: F(T).conv2d(x, w, b, **_kw), IMG, CW, [0.5, -0.25])
grad_case("conv2d_nobias", lambda T, x, w: F(T).conv2d(x, w), IMG, CW)
grad_case("conv2d_groups", lambda T, x, w, b: F(T).conv2d(x, w, b, groups=3), IMG,
          [[[[0.2, -0.1]]], [[[0.5, 0.3]]], [[[-0.4, 0.6]]]], [0.1, 0.2, 0.3])
grad_case("conv2d_groups_depthwise2", lambda T, x, w: F(T).conv2d(x, w, None, 1, 1, 1, 3), IMG,
          [[[[0.2, -0.1], [0.3, 0.05]]], [[[0.5, 0.3], [-0.2, 0.1]]], [[[-0.4, 0.6], [0.7, -0.8]]],
           [[[0.9, -0.2], [0.1, 0.4]]], [[[0.25, 0.75], [-0.5, 0.5]]], [[[1.0, 0.0], [0.0, -1.0]]]])
grad_case("conv2d_unbatched", lambda T, x, w, b: F(T).conv2d(x, w, b), IMG[0], CW, [0.5, -0.25])
grad_case("conv2d_noncontig_input", lambda T, x, w: F(T).conv2d(x.transpose(2, 3), w), IMG, CW)
grad_case("conv2d_grad2", lambda T, x, w: F(T).conv2d(x, w, padding=1), IMG, CW, order=2)
grad_case("conv1d", lambda T, x, w, b: F(T).conv1d(x, w, b, stride=2, padding=1), SEQ,
          [[[0.2, -0.3], [0.1, 0.4], [-0.5, 0.6]], [[0.7, 0.1], [-0.2, 0.3], [0.05, -0.15]]], [0.1, -0.1])
grad_case("conv1d_unbatched_same", lambda T, x, w: F(T).conv1d(x, w, padding="same"), SEQ[1],
          [[[0.2, -0.3, 0.5], [0.1, 0.4, 0.0], [-0.5, 0.6, 0.25]]])
grad_case("conv1d_dilation_groups", lambda T, x, w: F(T).conv1d(x, w, dilation=2, groups=3), SEQ,
          [[[0.2, -0.3]], [[0.1, 0.4]], [[-0.5, 0.6]]])
grad_case("conv3d", lambda T, x, w, b: F(T).conv3d(x, w, b, padding=(1, 0, 0)), [IMG], [[[[[0.1, 0.2]], [[-0.3, 0.4]]],
          [[[0.5, -0.6]], [[0.7, 0.8]]]]], [0.25])
grad_case("conv_transpose2d", lambda T, x, w, b: F(T).conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
          IMG, [[[[0.1, -0.2], [0.3, 0.4]]], [[[0.5, 0.6], [-0.7, 0.8]]], [[[0.9, -1.0], [0.2, 0.1]]]], [0.3])
grad_case("conv_transpose2d_groups_dil", lambda T, x, w: F(T).conv_transpose2d(x, w, None, 1, 0, 0, 3, 2), IMG,
          [[[[0.1, -0.2]], [[0.3, 0.4]]], [[[0.5, 0.6]], [[-0.7, 0.8]]], [[[0.9, -1.0]], [[0.2, 0.1]]]])
grad_case("conv_transpose1d", lambda T, x, w, b: F(T).conv_transpose1d(x, w, b, stride=3), SEQ,
          [[[0.2, -0.3]], [[0.1, 0.4]], [[-0.5, 0.6]]], [0.05])
grad_case("conv_transpose2d_grad2", lambda T, x, w: F(T).conv_transpose2d(x, w, stride=2), IMG,
          [[[[0.1, -0.2], [0.3, 0.4]]], [[[0.5, 0.6], [-0.7, 0.8]]], [[[0.9, -1.0], [0.2, 0.1]]]], order=2)
grad_case("torch_convolution", lambda T, x, w, b: T.convolution(x, w, b, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
          IMG, CW, [0.5, -0.25])
cases("conv2d_dtype", lambda T, dtype: F(T).conv2d(T.tensor(IMG, dtype=dtype), T.tensor(CW, dtype=dtype)),
      dtype=FLOATS, rtol=2e-2)
case("conv2d_int64", lambda T: F(T).conv2d(T.tensor([[[[1, 2, 3], [4, 5, 6]]]]), T.tensor([[[[1, -1]]]])))
case("conv2d_empty_batch", lambda T: F(T).conv2d(T.zeros(0, 3, 5, 4), T.tensor(CW)))
case("conv2d_same_warns", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), padding="same"), warns=False)
error_case("conv2d_2d_input", lambda T: F(T).conv2d(T.ones(2, 3), T.tensor(CW)))
error_case("conv2d_5d_input", lambda T: F(T).conv2d(T.ones(1, 2, 3, 5, 5), T.tensor(CW)))
error_case("conv2d_weight_3d", lambda T: F(T).conv2d(T.tensor(IMG), T.ones(2, 3, 3)))
error_case("conv2d_channels", lambda T: F(T).conv2d(T.tensor(IMG), T.ones(4, 2, 3, 3)))
error_case("conv2d_groups_divisible", lambda T: F(T).conv2d(T.ones(2, 4, 5, 5), T.ones(3, 2, 3, 3), groups=2))
error_case("conv2d_groups_atleast", lambda T: F(T).conv2d(T.ones(2, 4, 5, 5), T.ones(1, 1, 3, 3), groups=2))
error_case("conv2d_groups_zero", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), groups=0))
error_case("conv2d_kernel_big", lambda T: F(T).conv2d(T.tensor(IMG), T.ones(2, 3, 6, 6)))
error_case("conv1d_kernel_big", lambda T: F(T).conv1d(T.ones(2, 3, 5), T.ones(1, 3, 7)))
error_case("conv3d_kernel_big", lambda T: F(T).conv3d(T.ones(1, 3, 5, 5, 5), T.ones(1, 3, 7, 2, 2)))
error_case("conv2d_stride0", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), stride=0))
error_case("conv2d_stride_len", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), stride=(1, 1, 1)))
error_case("conv2d_pad_len", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), padding=(1, 1, 1)))
error_case("conv2d_pad_neg", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), padding=-1))
error_case("conv2d_dil0", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), dilation=0))
error_case("conv2d_dil_neg", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), dilation=-1))
error_case("conv2d_dtype_double_float", lambda T: F(T).conv2d(T.tensor(IMG, dtype=T.float64), T.tensor(CW)))
error_case("conv2d_dtype_float_double", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW, dtype=T.float64)))
error_case("conv2d_dtype_half_float", lambda T: F(T).conv2d(T.tensor(IMG, dtype=T.float16), T.tensor(CW)),
           cpu_dependent="oneDNN, with its own dtype message, takes half convolutions on AVX-512-FP16 CPUs only")
error_case("conv2d_dtype_bf16_float", lambda T: F(T).conv2d(T.tensor(IMG, dtype=T.bfloat16), T.tensor(CW)),
           cpu_dependent="oneDNN, with its own dtype message, takes bf16 convolutions on AVX-512 CPUs only")
error_case("conv2d_dtype_bias", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), T.zeros(2, dtype=T.float64)))
error_case("conv2d_bias_size", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), T.zeros(3)))
error_case("conv2d_bool", lambda T: F(T).conv2d(T.ones(1, 3, 5, 4, dtype=T.bool), T.ones(2, 3, 3, 2, dtype=T.bool)))
error_case("conv2d_same_strided", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), padding="same", stride=2))
error_case("conv2d_bad_pad_str", lambda T: F(T).conv2d(T.tensor(IMG), T.tensor(CW), padding="foo"))
error_case("conv_transpose2d_output_padding", lambda T: F(T).conv_transpose2d(T.tensor(IMG), T.ones(3, 2, 3, 3),
                                                                               output_padding=2, stride=2))
error_case("conv_transpose1d_output_padding", lambda T: F(T).conv_transpose1d(T.tensor(SEQ), T.ones(3, 2, 3),
                                                                               output_padding=2, stride=2))
error_case("conv_transpose2d_channels", lambda T: F(T).conv_transpose2d(T.tensor(IMG), T.ones(4, 2, 3, 3)))
error_case("conv_transpose2d_bias", lambda T: F(T).conv_transpose2d(T.tensor(IMG), T.ones(3, 2, 3, 3), T.zeros(3)))
error_case("conv_wdim", lambda T: T.convolution(T.tensor(IMG), T.ones(3, 3, 3), None, [1], [0], [1], False, [0], 1))


def _conv_module(T, cls, *args, **kw):
    m = getattr(T.nn, cls)(*args, **kw)
    return m


for _i, (_cls, _args, _kw) in enumerate([
        ("Conv2d", (3, 8, 5), {}), ("Conv2d", (3, 8, 3), {"stride": 2, "padding": 1}),
        ("Conv2d", (4, 6, (3, 2)), {"dilation": 2, "groups": 2, "bias": False}),
        ("Conv2d", (3, 2, 3), {"padding": "same", "padding_mode": "reflect"}),
        ("Conv2d", (3, 2, 3), {"padding": 1, "padding_mode": "circular"}),
        ("Conv1d", (3, 5, 2), {}), ("Conv1d", (3, 5, 2), {"padding": "valid"}), ("Conv3d", (2, 3, 2), {}),
        ("ConvTranspose2d", (3, 5, 2), {}), ("ConvTranspose2d", (3, 6, 3), {"stride": 2, "output_padding": 1, "groups": 3}),
        ("ConvTranspose1d", (3, 2, 3), {"dilation": 2})]):
    case(f"conv_module_repr_{_i}", lambda T, _cls=_cls, _args=_args, _kw=_kw: repr(_conv_module(T, _cls, *_args, **_kw)))
    case(f"conv_module_params_{_i}", lambda T, _cls=_cls, _args=_args, _kw=_kw: list(_conv_module(T, _cls, *_args, **_kw).parameters()))


def _conv_forward(T, cls, x, *args, **kw):
    m = getattr(T.nn, cls)(*args, **kw)
    out = m(T.tensor(x))
    out.backward(T.ones_like(out) * 0.5)
    return out, m.weight.grad, (m.bias.grad if m.bias is not None else None)


case("conv2d_module_forward", lambda T: _conv_forward(T, "Conv2d", IMG, 3, 4, 3, padding=1))
case("conv2d_module_reflect", lambda T: _conv_forward(T, "Conv2d", IMG, 3, 2, 3, padding=1, padding_mode="reflect"))
case("conv2d_module_replicate", lambda T: _conv_forward(T, "Conv2d", IMG, 3, 2, (3, 2), padding=(1, 2),
                                                         padding_mode="replicate"))
case("conv2d_module_circular", lambda T: _conv_forward(T, "Conv2d", IMG, 3, 2, 3, padding=1, padding_mode="circular"))
case("conv1d_module_forward", lambda T: _conv_forward(T, "Conv1d", SEQ, 3, 2, 3, stride=2))
case("convT2d_module_forward", lambda T: _conv_forward(T, "ConvTranspose2d", IMG, 3, 2, 3, stride=2))
case("convT2d_module_output_size", lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2)(T.tensor(IMG), output_size=[11, 10]).shape)
error_case("convT2d_module_bad_output_size", lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2)(T.tensor(IMG), output_size=[20, 8]))
error_case("conv_module_groups", lambda T: T.nn.Conv2d(3, 4, 3, groups=2))
error_case("conv_module_groups_out", lambda T: T.nn.Conv2d(4, 3, 3, groups=2))
error_case("conv_module_groups_zero", lambda T: T.nn.Conv2d(4, 3, 3, groups=0))
error_case("conv_module_bad_padding", lambda T: T.nn.Conv2d(3, 3, 3, padding="full"),
           match=r"Invalid padding string 'full', should be one of \{('same', 'valid'|'valid', 'same')\}")
error_case("conv_module_same_strided", lambda T: T.nn.Conv2d(3, 3, 3, stride=2, padding="same"))
error_case("conv_module_bad_mode", lambda T: T.nn.Conv2d(3, 3, 3, padding_mode="mirror"),
           match=r"padding_mode must be one of \{.*\}, but got padding_mode=.mirror.")
error_case("convT_module_mode", lambda T: T.nn.ConvTranspose2d(3, 3, 3, padding_mode="reflect"))

# ---------------------------------------------------------------------------------------------- pooling
POOLS = {
    "max2d": lambda T, x: F(T).max_pool2d(x, 2),
    "max2d_stride_pad": lambda T, x: F(T).max_pool2d(x, 3, 2, 1),
    "max2d_dil_ceil": lambda T, x: F(T).max_pool2d(x, (2, 2), (2, 1), 0, (2, 1), True),
    "max2d_ceil": lambda T, x: F(T).max_pool2d(x, 2, ceil_mode=True),
    "max2d_indices": lambda T, x: F(T).max_pool2d(x, 2, return_indices=True),
    "max2d_indices_pos": lambda T, x: F(T).max_pool2d(x, 2, 1, 0, 1, False, True),
    "torch_max_pool2d": lambda T, x: T.max_pool2d(x, [3, 2], [1, 1], [1, 1]),
    "max1d": lambda T, x: F(T).max_pool1d(x.flatten(2), 3),
    "max1d_indices": lambda T, x: F(T).max_pool1d(x.flatten(2), 3, 2, 1, return_indices=True),
    "max1d_ceil_dil": lambda T, x: F(T).max_pool1d(x.flatten(2), 2, 3, 0, 2, True),
    "avg2d": lambda T, x: F(T).avg_pool2d(x, 2),
    "avg2d_pad": lambda T, x: F(T).avg_pool2d(x, 3, 2, 1),
    "avg2d_pad_exclude": lambda T, x: F(T).avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg2d_ceil": lambda T, x: F(T).avg_pool2d(x, 2, ceil_mode=True),
    "avg2d_ceil_exclude": lambda T, x: F(T).avg_pool2d(x, 3, 2, 1, True, False),
    "avg2d_divisor": lambda T, x: F(T).avg_pool2d(x, 2, 1, divisor_override=3),
    "avg1d": lambda T, x: F(T).avg_pool1d(x.flatten(2), 3),
    "avg1d_pad": lambda T, x: F(T).avg_pool1d(x.flatten(2), 3, 2, 1, True, False),
    "adaptive_avg2d": lambda T, x: F(T).adaptive_avg_pool2d(x, (3, 2)),
    "adaptive_avg2d_up": lambda T, x: F(T).adaptive_avg_pool2d(x, 7),
    "adaptive_avg2d_one": lambda T, x: F(T).adaptive_avg_pool2d(x, 1),
    "adaptive_avg2d_none": lambda T, x: F(T).adaptive_avg_pool2d(x, (None, 3)),
    "adaptive_avg1d": lambda T, x: F(T).adaptive_avg_pool1d(x.flatten(2), 6),
    "adaptive_max2d": lambda T, x: F(T).adaptive_max_pool2d(x, (2, 3)),
    "adaptive_max2d_indices": lambda T, x: F(T).adaptive_max_pool2d(x, 3, return_indices=True),
    "adaptive_max1d": lambda T, x: F(T).adaptive_max_pool1d(x.flatten(2), 4),
    "adaptive_max1d_indices": lambda T, x: F(T).adaptive_max_pool1d(x.flatten(2), 4, True),
    "lp2d": lambda T, x: F(T).lp_pool2d(x.abs() + 0.1, 2, 2),
    "lp1d": lambda T, x: F(T).lp_pool1d(x.flatten(2).abs() + 0.1, 3, 2),
}
for _n, _f in POOLS.items():
    grad_case(f"pool_{_n}", _f, IMG)
    case(f"pool_unbatched_{_n}", lambda T, _f=_f: _f(T, T.tensor(IMG[1])) if "1d" not in _n else _f(T, T.tensor(IMG)))
    case(f"pool_noncontig_{_n}", lambda T, _f=_f: _f(T, T.tensor(IMG).transpose(2, 3)))
cases("pool_dtype_max2d", lambda T, dtype: F(T).max_pool2d(T.tensor(IMG, dtype=dtype), 2), dtype=FLOATS)
cases("pool_dtype_avg2d", lambda T, dtype: F(T).avg_pool2d(T.tensor(IMG, dtype=dtype), 2), dtype=FLOATS)
cases("pool_dtype_adaptive_avg2d", lambda T, dtype: F(T).adaptive_avg_pool2d(T.tensor(IMG, dtype=dtype), 3), dtype=FLOATS)
case("pool_max2d_int", lambda T: F(T).max_pool2d(T.tensor([[[[1, 5, 2, 8], [3, 3, 9, 0]]]]), 2))
case("pool_avg2d_int", lambda T: F(T).avg_pool2d(T.tensor([[[[1, 5, 2, 8], [3, 3, 9, 0]]]]), 2))
case("pool_max2d_ties", lambda T: F(T).max_pool2d(T.tensor([[[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0]]]]), 2,
                                                  return_indices=True))
grad_case("pool_max2d_ties_grad", lambda T, x: F(T).max_pool2d(x, 2, 1), [[[[1.0, 1.0, 2.0], [1.0, 1.0, 2.0]]]])
case("pool_max2d_nan", lambda T: F(T).max_pool2d(T.tensor([[[[1.0, float("nan"), 2.0, 5.0], [0.5, 3.0, float("nan"), 1.0]]]]),
                                                 2, return_indices=True))
case("pool_max2d_neg_inf", lambda T: F(T).max_pool2d(T.full((1, 1, 2, 2), float("-inf")), 2, return_indices=True))
case("pool_max2d_empty_batch", lambda T: F(T).max_pool2d(T.zeros(0, 1, 4, 4), 2))
case("pool_max3d", lambda T: F(T).max_pool3d(T.tensor([IMG]), 2, return_indices=True))
case("pool_avg3d", lambda T: F(T).avg_pool3d(T.tensor([IMG]), (2, 2, 1), 1, (1, 0, 0)))
case("pool_adaptive_avg3d", lambda T: F(T).adaptive_avg_pool3d(T.tensor([IMG]), (1, 3, 2)))
case("pool_adaptive_max3d", lambda T: F(T).adaptive_max_pool3d(T.tensor([IMG]), 2, True))
# lp_pool3d / LPPool3d: torch's composite (avg_pool3d of x^p, rescaled); values and grads, the +-inf norms
# (max_pool3d of |x|), stride / ceil_mode, unbatched input, a negative-sum window (the relu(abs) clamp) and the
# module's repr.
grad_case("pool_lp3d", lambda T, x: F(T).lp_pool3d(x.abs() + 0.1, 2, 2), [IMG])
grad_case("pool_lp3d_p3_stride", lambda T, x: F(T).lp_pool3d(x, 3, (2, 3, 2), stride=(1, 1, 2)), [IMG])
grad_case("pool_lp3d_ceil", lambda T, x: F(T).lp_pool3d(x.abs() + 0.1, 1.5, 2, 2, True), [IMG])
grad_case("pool_lp3d_inf", lambda T, x: F(T).lp_pool3d(x, float('inf'), 2), [IMG])
grad_case("pool_lp3d_neginf", lambda T, x: F(T).lp_pool3d(x, -float('inf'), (1, 2, 2), 1), [IMG])
case("pool_lp3d_unbatched", lambda T: F(T).lp_pool3d(T.tensor(IMG).abs(), 2, (2, 2, 1)))
case("pool_lp3d_module", lambda T: T.nn.LPPool3d(2, (2, 1, 2), stride=1)(T.tensor([IMG]).abs()))
case("pool_lp3d_module_repr", lambda T: repr(T.nn.LPPool3d(1.2, (3, 2, 2), stride=(2, 1, 2))))
error_case("pool_lp3d_too_small", lambda T: F(T).lp_pool3d(T.ones(1, 1, 1, 5, 5), 2, 2))
# avg_pool3d's own input-smaller-than-kernel check (after the pad check, before the output-size check)
error_case("pool_avg3d_smaller_than_kernel", lambda T: F(T).avg_pool3d(T.ones(1, 1, 2, 5, 5), (2, 6, 1), padding=(0, 3, 0)))
error_case("pool_avg3d_smaller_than_kernel_unbatched", lambda T: F(T).avg_pool3d(T.ones(1, 1, 5, 5), 2, padding=1))
error_case("pool_avg3d_pad_before_kernel", lambda T: F(T).avg_pool3d(T.ones(1, 1, 1, 5, 5), 2, padding=3))
error_case("pool_max2d_k0", lambda T: F(T).max_pool2d(T.tensor(IMG), 0))
error_case("pool_max2d_k3", lambda T: F(T).max_pool2d(T.tensor(IMG), (2, 2, 2)))
error_case("pool_max2d_s0", lambda T: F(T).max_pool2d(T.tensor(IMG), 2, 0))
error_case("pool_max2d_d0", lambda T: F(T).max_pool2d(T.tensor(IMG), 2, dilation=0))
error_case("pool_max2d_pad", lambda T: F(T).max_pool2d(T.tensor(IMG), 2, padding=2))
error_case("pool_max2d_pad_len", lambda T: F(T).max_pool2d(T.tensor(IMG), 2, padding=(1, 1, 1)))
error_case("pool_max2d_stride_len", lambda T: F(T).max_pool2d(T.tensor(IMG), 2, stride=(1, 1, 1)))
error_case("pool_max2d_dil_len", lambda T: F(T).max_pool2d(T.tensor(IMG), 2, dilation=(1, 1, 1)))
error_case("pool_max2d_2d_input", lambda T: F(T).max_pool2d(T.ones(5, 5), 2))
error_case("pool_max2d_5d_input", lambda T: F(T).max_pool2d(T.ones(1, 1, 1, 5, 5), 2))
error_case("pool_max2d_small", lambda T: F(T).max_pool2d(T.ones(1, 1, 2, 2), 3))
error_case("pool_max2d_empty_channels", lambda T: F(T).max_pool2d(T.ones(1, 0, 4, 4), 2))
error_case("pool_max2d_bool", lambda T: F(T).max_pool2d(T.ones(1, 1, 4, 4, dtype=T.bool), 2))
error_case("pool_avg2d_k0", lambda T: F(T).avg_pool2d(T.tensor(IMG), 0))
error_case("pool_avg2d_pad_big", lambda T: F(T).avg_pool2d(T.tensor(IMG), 2, padding=2))
error_case("pool_avg2d_div0", lambda T: F(T).avg_pool2d(T.tensor(IMG), 2, divisor_override=0))
error_case("pool_avg2d_small", lambda T: F(T).avg_pool2d(T.ones(1, 1, 2, 2), 3))
error_case("pool_avg2d_2d", lambda T: F(T).avg_pool2d(T.ones(5, 5), 2))
error_case("pool_adaptive_avg2d_2d", lambda T: F(T).adaptive_avg_pool2d(T.ones(5, 5), 2))
error_case("pool_adaptive_avg2d_len", lambda T: F(T).adaptive_avg_pool2d(T.tensor(IMG), (2, 2, 2)))
error_case("pool_adaptive_avg2d_neg", lambda T: F(T).adaptive_avg_pool2d(T.tensor(IMG), -1))
error_case("pool_adaptive_avg2d_int", lambda T: F(T).adaptive_avg_pool2d(T.ones(1, 1, 4, 4, dtype=T.int64), 2))
error_case("pool_adaptive_max2d_2d", lambda T: F(T).adaptive_max_pool2d(T.ones(5, 5), 2))
error_case("pool_adaptive_max2d_int", lambda T: F(T).adaptive_max_pool2d(T.ones(1, 1, 4, 4, dtype=T.int64), 2))
error_case("pool_max1d_1d", lambda T: F(T).max_pool1d(T.ones(5), 2))
error_case("pool_max1d_k0", lambda T: F(T).max_pool1d(T.ones(1, 1, 5), 0))
error_case("pool_max1d_small", lambda T: F(T).max_pool1d(T.ones(1, 1, 2), 3))
error_case("pool_max1d_pad", lambda T: F(T).max_pool1d(T.ones(1, 1, 5), 2, padding=2))
error_case("pool_avg1d_small", lambda T: F(T).avg_pool1d(T.ones(1, 1, 2), 3))
error_case("pool_avg1d_1d", lambda T: F(T).avg_pool1d(T.ones(5), 2))

POOL_MODULES = [
    lambda T: T.nn.MaxPool1d(2), lambda T: T.nn.MaxPool2d(2), lambda T: T.nn.MaxPool2d((2, 3), 1, 1, 2, True, True),
    lambda T: T.nn.MaxPool3d(2), lambda T: T.nn.AvgPool1d(3), lambda T: T.nn.AvgPool2d(2),
    lambda T: T.nn.AvgPool2d((2, 3), 1, 1, True, False, 2), lambda T: T.nn.AvgPool3d(2),
    lambda T: T.nn.AdaptiveAvgPool1d(3), lambda T: T.nn.AdaptiveAvgPool2d((3, None)), lambda T: T.nn.AdaptiveMaxPool2d(2),
    lambda T: T.nn.AdaptiveMaxPool2d(2, True), lambda T: T.nn.AdaptiveMaxPool1d(3), lambda T: T.nn.LPPool2d(2, 3),
    lambda T: T.nn.LPPool1d(2, 3), lambda T: T.nn.AdaptiveAvgPool3d(2), lambda T: T.nn.AdaptiveMaxPool3d((1, 2, 2)),
]
for _i, _m in enumerate(POOL_MODULES):
    case(f"pool_module_repr_{_i}", lambda T, _m=_m: repr(_m(T)))
case("pool_module_max2d", lambda T: T.nn.MaxPool2d(2, 1, return_indices=True)(T.tensor(IMG)))
case("pool_module_avg2d", lambda T: T.nn.AvgPool2d(3, 1, 1, count_include_pad=False)(T.tensor(IMG)))
case("pool_module_adaptive", lambda T: T.nn.AdaptiveAvgPool2d((2, None))(T.tensor(IMG)))
case("pool_module_max1d", lambda T: T.nn.MaxPool1d(2)(T.tensor(SEQ)))
case("pool_module_avg1d", lambda T: T.nn.AvgPool1d(2)(T.tensor(SEQ)))
case("pool_module_adaptive_max1d", lambda T: T.nn.AdaptiveMaxPool1d(3, True)(T.tensor(SEQ)))

# ---------------------------------------------------------------------------------------------- padding
PADS = {
    "const1": lambda T, x: F(T).pad(x, (1, 2)),
    "const_value": lambda T, x: F(T).pad(x, (1, 2, 0, 1), value=2.5),
    "const_neg": lambda T, x: F(T).pad(x, (-1, 1, 2, -2)),
    "const_3dims": lambda T, x: F(T).pad(x, (1, 0, 0, 1, 2, 1)),
    "const_all": lambda T, x: F(T).pad(x, (1, 1, 1, 1, 1, 1, 1, 1)),
    "reflect1": lambda T, x: F(T).pad(x.flatten(2), (2, 3), mode="reflect"),
    "reflect2": lambda T, x: F(T).pad(x, (1, 2, 3, 1), mode="reflect"),
    "reflect_neg": lambda T, x: F(T).pad(x.flatten(2), (-1, 2), mode="reflect"),
    "replicate1": lambda T, x: F(T).pad(x.flatten(2), (2, 5), mode="replicate"),
    "replicate2": lambda T, x: F(T).pad(x, (1, 2, 0, 3), mode="replicate"),
    "replicate_neg": lambda T, x: F(T).pad(x, (-1, 2, 0, 1), mode="replicate"),
    "circular1": lambda T, x: F(T).pad(x.flatten(2), (2, 3), mode="circular"),
    "circular2": lambda T, x: F(T).pad(x, (1, 2, 2, 1), mode="circular"),
    "circular_neg": lambda T, x: F(T).pad(x, (-1, 2, 0, 1), mode="circular"),
    "reflect3d": lambda T, x: F(T).pad(x.unsqueeze(0), (1, 1, 1, 1, 1, 1), mode="reflect"),
    "replicate3d": lambda T, x: F(T).pad(x.unsqueeze(0), (0, 1, 2, 1, 1, 0), mode="replicate"),
    "torch_constant_pad_nd": lambda T, x: T.constant_pad_nd(x, [1, 0, 2, 1], -1.5),
}
for _n, _f in PADS.items():
    grad_case(f"pad_{_n}", _f, IMG)
grad_case("pad_reflect_grad2", lambda T, x: F(T).pad(x, (1, 1, 1, 1), mode="reflect"), IMG, order=2)
grad_case("pad_const_grad2", lambda T, x: F(T).pad(x, (1, 1)), X23, order=2)
cases("pad_dtypes", lambda T, dtype: F(T).pad(T.tensor([[[1, 2, 3]]], dtype=dtype), (1, 1), value=2.5), dtype=ALL)
cases("pad_mode_dtypes", lambda T, dtype, mode: F(T).pad(T.tensor([[[1, 2, 3]]], dtype=dtype), (1, 1), mode=mode),
      dtype=[D.float32, D.float64, D.int64], mode=["reflect", "replicate", "circular"])
case("pad_unbatched_reflect", lambda T: F(T).pad(T.tensor(X23), (1, 2), mode="reflect"))
case("pad_empty_batch", lambda T: F(T).pad(T.zeros(0, 2, 3), (1, 1)))
error_case("pad_odd", lambda T: F(T).pad(T.tensor(IMG), (1, 2, 3)))
error_case("pad_too_long", lambda T: F(T).pad(T.tensor(X23), (1, 2, 3, 4, 5, 6)))
error_case("pad_neg_too_much", lambda T: F(T).pad(T.tensor(X23), (-3, -2)))
error_case("pad_bad_mode", lambda T: F(T).pad(T.tensor(IMG), (1, 2), mode="foo"))
error_case("pad_reflect_wrong_len", lambda T: F(T).pad(T.tensor(IMG), (1, 2), mode="reflect"))
error_case("pad_reflect_1d_input", lambda T: F(T).pad(T.ones(4), (1, 2), mode="reflect"))
error_case("pad_reflect_too_big", lambda T: F(T).pad(T.tensor(SEQ), (7, 2), mode="reflect"))
error_case("pad_reflect2_too_big", lambda T: F(T).pad(T.tensor(IMG), (1, 2, 5, 3), mode="reflect"))
error_case("pad_circular_wrap", lambda T: F(T).pad(T.tensor(SEQ), (8, 2), mode="circular"))
error_case("pad_reflect_value", lambda T: F(T).pad(T.tensor(SEQ), (1, 2), mode="reflect", value=1.0))
error_case("constant_pad_nd_odd", lambda T: T.constant_pad_nd(T.tensor(X23), [1]))
error_case("constant_pad_nd_negative", lambda T: T.constant_pad_nd(T.tensor(X23), [-2, -2]))
PAD_MODULES = [
    lambda T: T.nn.ConstantPad1d(2, 3.5), lambda T: T.nn.ConstantPad2d((1, 2, 0, 1), -1.0), lambda T: T.nn.ConstantPad3d(1, 0.5),
    lambda T: T.nn.ZeroPad1d((1, 2)), lambda T: T.nn.ZeroPad2d(2), lambda T: T.nn.ReflectionPad1d(2),
    lambda T: T.nn.ReflectionPad2d((1, 1, 2, 0)), lambda T: T.nn.ReplicationPad1d((3, 1)), lambda T: T.nn.ReplicationPad2d(1),
    lambda T: T.nn.CircularPad1d(1), lambda T: T.nn.CircularPad2d((1, 0, 1, 2)), lambda T: T.nn.ReplicationPad3d(1),
]
for _i, _m in enumerate(PAD_MODULES):
    case(f"pad_module_repr_{_i}", lambda T, _m=_m: repr(_m(T)))
case("pad_module_reflect2d", lambda T: T.nn.ReflectionPad2d((1, 1, 2, 0))(T.tensor(IMG)))
case("pad_module_zero2d", lambda T: T.nn.ZeroPad2d(1)(T.tensor(IMG)))
case("pad_module_circular1d", lambda T: T.nn.CircularPad1d(2)(T.tensor(SEQ)))
error_case("pad_module_circular_dims", lambda T: T.nn.CircularPad2d(1)(T.tensor(X23)))

# ---------------------------------------------------------------------------------------------- pixel shuffle, fold
grad_case("pixel_shuffle", lambda T, x: F(T).pixel_shuffle(x, 2), [[[[1.0, 2.0], [3.0, 4.0]], [[5.0, -6.0], [7.0, 8.0]],
                                                                   [[9.0, 10.0], [-11.0, 12.0]], [[13.0, 14.0], [15.0, 0.5]]]])
grad_case("pixel_unshuffle", lambda T, x: F(T).pixel_unshuffle(x, 2), [[r[:4] for r in IMG[0][0][:4]]])
grad_case("pixel_shuffle_5d", lambda T, x: F(T).pixel_shuffle(x, 2), [[[[[0.5, 1.5]] * 1, [[2.5, -1.0]]] * 2] * 1 * 2])
case("pixel_shuffle_int", lambda T: F(T).pixel_shuffle(T.arange(16).reshape(1, 4, 2, 2), 2))
case("pixel_shuffle_module", lambda T: (repr(T.nn.PixelShuffle(3)), repr(T.nn.PixelUnshuffle(2))))
case("pixel_roundtrip", lambda T: F(T).pixel_unshuffle(F(T).pixel_shuffle(T.arange(32.0).reshape(2, 4, 2, 2), 2), 2))
error_case("pixel_shuffle_channels", lambda T: F(T).pixel_shuffle(T.ones(1, 6, 2, 3), 2))
error_case("pixel_shuffle_2d", lambda T: F(T).pixel_shuffle(T.ones(6, 2), 2))
error_case("pixel_shuffle_zero", lambda T: F(T).pixel_shuffle(T.ones(1, 8, 2, 3), 0))
error_case("pixel_unshuffle_height", lambda T: F(T).pixel_unshuffle(T.ones(1, 2, 3, 4), 2))
error_case("pixel_unshuffle_width", lambda T: F(T).pixel_unshuffle(T.ones(1, 2, 4, 3), 2))
grad_case("unfold", lambda T, x: F(T).unfold(x, 2), IMG)
grad_case("unfold_args", lambda T, x: F(T).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), IMG)
grad_case("unfold_unbatched", lambda T, x: F(T).unfold(x, 2), IMG[0])
grad_case("fold", lambda T, x: F(T).fold(x, (3, 4), 2), [[[float((i * 3 + j) % 5 - 2) for j in range(6)] for i in range(8)]])
grad_case("fold_args", lambda T, x: F(T).fold(x, (4, 3), (2, 2), padding=1, stride=2),
          [[[float((i * 7 + j) % 9 - 4) * 0.5 for j in range(6)] for i in range(4)]])
grad_case("fold_unfold", lambda T, x: F(T).fold(F(T).unfold(x, 2), (5, 4), 2), IMG)
case("fold_module", lambda T: (repr(T.nn.Fold((4, 5), 2)), repr(T.nn.Unfold((2, 3), padding=1)),
                               T.nn.Unfold(2)(T.tensor(IMG)).shape))
error_case("unfold_2d", lambda T: F(T).unfold(T.ones(5, 5), 2))
error_case("unfold_big", lambda T: F(T).unfold(T.ones(1, 1, 2, 2), 3))
error_case("unfold_int", lambda T: F(T).unfold(T.ones(1, 1, 3, 3, dtype=T.int64), 2))
error_case("fold_blocks", lambda T: F(T).fold(T.ones(2, 12, 15), (5, 5), 2))
error_case("fold_channels", lambda T: F(T).fold(T.ones(2, 10, 16), (5, 5), 2))

# ---------------------------------------------------------------------------------------------- embedding
EMB_W = [[0.1, -0.2, 0.3], [1.0, 2.0, -3.0], [0.5, 0.25, 0.75], [-1.5, 0.0, 2.5], [4.0, -4.0, 0.5]]
grad_case("embedding", lambda T, w: F(T).embedding(T.tensor([[0, 2, 4], [2, 2, 1]]), w), EMB_W)
grad_case("embedding_padding_idx", lambda T, w: F(T).embedding(T.tensor([[0, 2, 4], [2, 2, 1]]), w, padding_idx=2), EMB_W)
grad_case("embedding_padding_idx_neg", lambda T, w: F(T).embedding(T.tensor([0, 4, 4, 3]), w, padding_idx=-1), EMB_W)
grad_case("embedding_scale_freq", lambda T, w: F(T).embedding(T.tensor([0, 2, 2, 2, 1, 0]), w, scale_grad_by_freq=True), EMB_W)
grad_case("embedding_0d_index", lambda T, w: F(T).embedding(T.tensor(3), w), EMB_W)
grad_case("embedding_int32_index", lambda T, w: F(T).embedding(T.tensor([1, 3], dtype=T.int32), w), EMB_W)
grad_case("embedding_grad2", lambda T, w: F(T).embedding(T.tensor([1, 3, 1]), w * w), EMB_W, order=2)
grad_case("torch_embedding", lambda T, w: T.embedding(w, T.tensor([4, 0, 1]), 1), EMB_W)


def _max_norm(T, norm_type):
    w = T.tensor(EMB_W)
    out = F(T).embedding(T.tensor([[0, 1], [3, 1]]), w, max_norm=1.5, norm_type=norm_type)
    return out, w


cases("embedding_max_norm", _max_norm, norm_type=[2.0, 1.0, 3.0, float("inf")])
case("embedding_renorm_", lambda T: T.embedding_renorm_(T.tensor(EMB_W), T.tensor([1, 3, 3]), 2.0, 2.0))
case("embedding_int_weight", lambda T: F(T).embedding(T.tensor([1, 2]), T.tensor([[1, 2], [3, 4], [5, 6]])))
error_case("embedding_float_index", lambda T: F(T).embedding(T.tensor([1.0]), T.tensor(EMB_W)))
error_case("embedding_oob", lambda T: F(T).embedding(T.tensor([5]), T.tensor(EMB_W)))
error_case("embedding_neg", lambda T: F(T).embedding(T.tensor([-1]), T.tensor(EMB_W)))
error_case("embedding_w1d", lambda T: F(T).embedding(T.tensor([1]), T.ones(5)))
error_case("embedding_pad_oob", lambda T: F(T).embedding(T.tensor([1]), T.tensor(EMB_W), padding_idx=5))
error_case("embedding_pad_neg_oob", lambda T: F(T).embedding(T.tensor([1]), T.tensor(EMB_W), padding_idx=-6))


def _emb_module(T, *args, **kw):
    m = T.nn.Embedding(*args, **kw)
    return repr(m), m.weight


case("embedding_module_seeded", lambda T: _emb_module(T, 10, 3))
case("embedding_module_small_seeded", lambda T: _emb_module(T, 4, 3))
case("embedding_module_padding", lambda T: _emb_module(T, 6, 4, padding_idx=2))
case("embedding_module_padding_neg", lambda T: _emb_module(T, 6, 4, padding_idx=-2))
case("embedding_module_options", lambda T: _emb_module(T, 10, 3, padding_idx=2, max_norm=1.0, norm_type=3.0,
                                                      scale_grad_by_freq=True, sparse=True))
error_case("embedding_module_pad_oob", lambda T: T.nn.Embedding(3, 2, padding_idx=3))


def _emb_forward(T):
    m = T.nn.Embedding(5, 3, padding_idx=0)
    out = m(T.tensor([[0, 1, 4], [4, 4, 2]]))
    (out * T.tensor([1.0, -2.0, 0.5])).sum().backward()
    return out, m.weight.grad


case("embedding_module_backward", _emb_forward)


def _pretrained(T, freeze):
    m = T.nn.Embedding.from_pretrained(T.tensor(EMB_W), freeze=freeze, padding_idx=1)
    return repr(m), m.weight.requires_grad, m(T.tensor([1, 3]))


cases("embedding_from_pretrained", _pretrained, freeze=BOOLS)
error_case("embedding_from_pretrained_1d", lambda T: T.nn.Embedding.from_pretrained(T.ones(3)))

case("one_hot", lambda T: F(T).one_hot(T.tensor([0, 2, 1, 4])))
case("one_hot_classes", lambda T: F(T).one_hot(T.tensor([[0, 2], [1, 1]]), 5))
case("one_hot_0d", lambda T: F(T).one_hot(T.tensor(1), 3))
case("one_hot_empty", lambda T: F(T).one_hot(T.zeros(0, dtype=T.int64), 3))
error_case("one_hot_float", lambda T: F(T).one_hot(T.tensor([0.0, 2.0])))
error_case("one_hot_int32", lambda T: F(T).one_hot(T.tensor([0, 2], dtype=T.int32)))
error_case("one_hot_negative", lambda T: F(T).one_hot(T.tensor([0, -2])))
error_case("one_hot_too_big", lambda T: F(T).one_hot(T.tensor([0, 2]), 2))
error_case("one_hot_empty_infer", lambda T: F(T).one_hot(T.zeros(0, dtype=T.int64)))

# printouts of the simple layers
for _i, _m in enumerate([lambda T: T.nn.Identity(), lambda T: T.nn.Linear(3, 4), lambda T: T.nn.Linear(3, 4, bias=False),
                         lambda T: T.nn.Bilinear(2, 3, 4, False), lambda T: T.nn.Flatten(), lambda T: T.nn.Flatten(0, 2),
                         lambda T: T.nn.Unflatten(1, (2, 3)), lambda T: T.nn.Embedding(10, 3),
                         lambda T: T.nn.ChannelShuffle(2)]):
    case(f"layer_repr_{_i}", lambda T, _m=_m: repr(_m(T)))

# ---------------------------------------------------------------------------------------------- embedding_bag
BAG_I = [0, 2, 4, 1, 3, 2, 2]
for _mode in ("sum", "mean", "max"):
    grad_case(f"embedding_bag_{_mode}", lambda T, w, _mode=_mode: F(T).embedding_bag(T.tensor(BAG_I), w, T.tensor([0, 2, 2, 5]),
                                                                                   mode=_mode), EMB_W)
    grad_case(f"embedding_bag_2d_{_mode}", lambda T, w, _mode=_mode: F(T).embedding_bag(T.tensor([[0, 2, 4], [1, 3, 3]]), w,
                                                                                      mode=_mode), EMB_W)
    grad_case(f"embedding_bag_padding_{_mode}", lambda T, w, _mode=_mode: F(T).embedding_bag(
        T.tensor(BAG_I), w, T.tensor([0, 3]), mode=_mode, padding_idx=2), EMB_W)
    grad_case(f"embedding_bag_last_offset_{_mode}", lambda T, w, _mode=_mode: F(T).embedding_bag(
        T.tensor(BAG_I), w, T.tensor([0, 2, 7]), mode=_mode, include_last_offset=True), EMB_W)
grad_case("embedding_bag_per_sample_weights", lambda T, w, p: F(T).embedding_bag(T.tensor(BAG_I), w, T.tensor([0, 3]),
                                                                                mode="sum", per_sample_weights=p),
          EMB_W, [0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 3.0])
grad_case("embedding_bag_int32", lambda T, w: F(T).embedding_bag(T.tensor(BAG_I, dtype=T.int32), w,
                                                                T.tensor([0, 3], dtype=T.int32)), EMB_W)
case("embedding_bag_max_norm", lambda T: (lambda w: (F(T).embedding_bag(T.tensor(BAG_I), w, T.tensor([0, 3]), max_norm=1.0), w))(
    T.tensor(EMB_W)))
case("torch_embedding_bag_output", lambda T: T.embedding_bag(T.tensor(EMB_W), T.tensor(BAG_I), T.tensor([0, 3]), False, 1,
                                                             False, None, False, None)[0])
error_case("embedding_bag_offset0", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.tensor(EMB_W), T.tensor([1, 2])))
error_case("embedding_bag_offset_big", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.tensor(EMB_W), T.tensor([0, 9])))
error_case("embedding_bag_float_idx", lambda T: F(T).embedding_bag(T.tensor([0.0, 1.0]), T.tensor(EMB_W), T.tensor([0])))
error_case("embedding_bag_oob", lambda T: F(T).embedding_bag(T.tensor([0, 5]), T.tensor(EMB_W), T.tensor([0])))
error_case("embedding_bag_psw_mean", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.tensor(EMB_W), T.tensor([0]),
                                                                  per_sample_weights=T.ones(7)))
error_case("embedding_bag_2d_offsets", lambda T: F(T).embedding_bag(T.tensor([[0, 1]]), T.tensor(EMB_W), T.tensor([0])))
error_case("embedding_bag_no_offsets", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.tensor(EMB_W)))
error_case("embedding_bag_3d", lambda T: F(T).embedding_bag(T.zeros(1, 1, 1, dtype=T.int64), T.tensor(EMB_W)))
error_case("embedding_bag_mode", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.tensor(EMB_W), T.tensor([0]), mode="min"))
error_case("embedding_bag_w1d", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.ones(5), T.tensor([0])))
error_case("embedding_bag_max_freq", lambda T: F(T).embedding_bag(T.tensor(BAG_I), T.tensor(EMB_W), T.tensor([0]), mode="max",
                                                                  scale_grad_by_freq=True))


def _bag_module(T, **kw):
    m = T.nn.EmbeddingBag(10, 3, **kw)
    out = m(T.tensor([1, 2, 4, 5, 4, 3, 2, 9]), T.tensor([0, 4]))
    out.sum().backward()
    return repr(m), out, m.weight.grad


case("embedding_bag_module", lambda T: _bag_module(T))
case("embedding_bag_module_sum_pad", lambda T: _bag_module(T, mode="sum", padding_idx=2))
case("embedding_bag_module_max", lambda T: _bag_module(T, mode="max", max_norm=2.0, norm_type=1.0))
case("embedding_bag_from_pretrained", lambda T: (lambda m: (repr(m), m.weight.requires_grad, m(T.tensor([[0, 1], [3, 4]]))))(
    T.nn.EmbeddingBag.from_pretrained(T.tensor(EMB_W), mode="sum")))

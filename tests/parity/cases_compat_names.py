"""The long tail of torch names (issue 24), part 2: the window functions (hann / hamming / blackman / bartlett /
kaiser, every dtype and length edge, torch's TensorOptions messages), vander and chain_matmul, the sym_* helpers,
typename / is_storage, the deterministic-algorithms switches and the memory they fill, Tensor's compatibility names
(is_<backend>, volatile, __div__, apply_ / map_ / map2_), fractional max pooling (values, indices and gradients
through torch's random stream, NaN windows, errors) and F's extras (boolean_dispatch, linear_cross_entropy)."""
from .harness import *  # noqa: F401,F403

FD = [D.float32, D.float64, D.float16, D.bfloat16]
WINDOWS = ['hann_window', 'hamming_window', 'blackman_window', 'bartlett_window', 'kaiser_window']

# ---- window functions
cases("window", lambda T, f, n, periodic, dtype: getattr(T, f)(n, periodic, dtype=dtype),
      f=WINDOWS, n=[0, 1, 2, 3, 8, 17], periodic=[True, False], dtype=FD)
cases("window_default", lambda T, f: getattr(T, f)(10), f=WINDOWS)
cases("window_requires_grad", lambda T, f, n: (lambda w: (w, w.requires_grad, w.is_leaf))(
    getattr(T, f)(n, requires_grad=True)), f=WINDOWS, n=[0, 1, 6])
cases("window_keywords", lambda T, f: getattr(T, f)(window_length=7, periodic=False, layout=T.strided,
                                                     device='cpu'), f=WINDOWS)
cases("window_error_negative", lambda T, f: getattr(T, f)(-1), kind="error", f=WINDOWS)
cases("window_error_int", lambda T, f, dtype: getattr(T, f)(4, dtype=dtype), kind="error", f=WINDOWS,
      dtype=[D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool])
cases("window_error_int_layout", lambda T, f: getattr(T, f)(4, dtype=T.int32, layout=T.strided), kind="error",
      f=WINDOWS)
case("window_error_default_f64", lambda T: _in_f64(T, lambda: T.hann_window(4, dtype=T.int64)), )
cases("window_hamming_alpha_beta", lambda T, periodic, alpha, beta, dtype: T.hamming_window(
    9, periodic, alpha, beta, dtype=dtype), periodic=[True, False], alpha=[0.54, 0.5, 1.0], beta=[0.46, 0.25],
      dtype=FD)
cases("window_kaiser_beta", lambda T, beta, dtype: T.kaiser_window(12, False, beta, dtype=dtype),
      beta=[0.0, 1.5, 8.0, 20.0], dtype=FD)
case("window_kaiser_beta_keyword", lambda T: T.kaiser_window(6, periodic=True, beta=3.0))
case("window_bartlett_odd_even", lambda T: [T.bartlett_window(n, False, dtype=T.float64) for n in (4, 5, 6, 7)])
case("window_module", lambda T: [getattr(T, f).__module__ for f in WINDOWS])


def _in_f64(T, fn):
    T.set_default_dtype(T.float64)
    try:
        try:
            fn()
        except RuntimeError as e:
            return str(e)
        return fn()
    finally:
        T.set_default_dtype(T.float32)


case("window_default_dtype_f64", lambda T: _in_f64(T, lambda: [getattr(T, f)(5) for f in WINDOWS]))

# ---- vander, chain_matmul
V = [1.5, -2.0, 3.0, 0.5]
cases("vander", lambda T, N, increasing, dtype: T.vander(T.tensor(V, dtype=dtype), N, increasing),
      N=[None, 0, 1, 2, 5], increasing=[False, True], dtype=[D.float32, D.float64])
cases("vander_int", lambda T, dtype: T.vander(T.tensor([1, 2, 3], dtype=dtype)),
      dtype=[D.int64, D.int32, D.int8, D.uint8, D.bool])
case("vander_keywords", lambda T: T.vander(x=T.tensor(V), N=3, increasing=True))
case("vander_empty", lambda T: T.vander(T.empty(0)))
case("vander_nc", lambda T: T.vander(T.arange(8.)[::2]))
error_case("vander_2d", lambda T: T.vander(T.ones(2, 2)))
error_case("vander_0d", lambda T: T.vander(T.tensor(1.)))
error_case("vander_negative_N", lambda T: T.vander(T.tensor(V), -1))
error_case("vander_float_N", lambda T: T.vander(T.tensor(V), N=2.0))
error_case("vander_backward", lambda T: T.vander(T.tensor(V, requires_grad=True)).sum().backward())
M3 = [[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]
case("chain_matmul", lambda T: T.chain_matmul(T.tensor(M3), T.tensor(M3).t(), T.tensor(M3)), warns=True)
case("chain_matmul_one", lambda T: (lambda a: (lambda r: (r, r.data_ptr() == a.data_ptr()))(T.chain_matmul(a)))(
    T.tensor(M3)), warns=True)
case("chain_matmul_out", lambda T: (lambda o: (T.chain_matmul(T.tensor(M3), T.tensor(M3).t(), out=o), o))(
    T.empty(0)), warns=True)
grad_case("chain_matmul_grad", lambda T, a, b: T.chain_matmul(a, b, a), M3, [[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]],
          warns=True)
error_case("chain_matmul_none", lambda T: T.chain_matmul(), warns=True)
error_case("chain_matmul_1d", lambda T: T.chain_matmul(T.ones(2, 2), T.ones(2)), warns=True)
error_case("chain_matmul_single_1d", lambda T: T.chain_matmul(T.ones(2)), warns=True)

# ---- sym_*, typename, is_storage
case("sym_int", lambda T: [T.sym_int(2.7), T.sym_int(-2.7), T.sym_int(True), T.sym_int(5)])
case("sym_float", lambda T: [T.sym_float(3), T.sym_float(2.5), T.sym_float(False)])
case("sym_max_min", lambda T: [T.sym_max(1, 2), T.sym_max(1, 2.0), T.sym_max(3.0, 1), T.sym_min(1, 2),
                               T.sym_min(1.5, 2), T.sym_min(-1, -1.0)])
error_case("sym_max_str", lambda T: T.sym_max('a', 1))
error_case("sym_min_none", lambda T: T.sym_min(1, None))
case("sym_not", lambda T: [T.sym_not(True), T.sym_not(0), T.sym_not([])])
case("sym_ite", lambda T: [T.sym_ite(True, 1, 2), T.sym_ite(False, 'a', 'b')])
error_case("sym_ite_int_cond", lambda T: T.sym_ite(1, 1, 2))
error_case("sym_ite_types", lambda T: T.sym_ite(True, 1, 2.0))
case("sym_sum", lambda T: [T.sym_sum([1, 2, 3]), T.sym_sum(1, 2, 3), T.sym_sum([1.5, 2]), T.sym_sum([])])
case("sym_sqrt", lambda T: [T.sym_sqrt(4), T.sym_sqrt(2.25)])
case("typename", lambda T: [T.typename(T.ones(2)), T.typename(T.ones(2, dtype=T.int64)),
                            T.typename(T.ones(2, dtype=T.float64)), T.typename(T.nn.Parameter), T.typename(3),
                            T.typename(int), T.typename(T.nn.Linear(2, 2)), T.typename(T.nn.Linear)])
case("is_storage", lambda T: [T.is_storage(T.ones(2)), T.is_storage([1]), T.is_storage(None)])


# ---- deterministic algorithms
def _deterministic(T, fn, **kw):
    T.use_deterministic_algorithms(True, **kw)
    try:
        return fn()
    finally:
        T.use_deterministic_algorithms(False)


case("deterministic_flags", lambda T: [T.are_deterministic_algorithms_enabled(),
                                       T.is_deterministic_algorithms_warn_only_enabled(),
                                       T.get_deterministic_debug_mode()]
     + _deterministic(T, lambda: [T.are_deterministic_algorithms_enabled(),
                                  T.is_deterministic_algorithms_warn_only_enabled(),
                                  T.get_deterministic_debug_mode()])
     + _deterministic(T, lambda: [T.are_deterministic_algorithms_enabled(),
                                  T.is_deterministic_algorithms_warn_only_enabled(),
                                  T.get_deterministic_debug_mode()], warn_only=True)
     + [T.are_deterministic_algorithms_enabled()])


def _debug_modes(T):
    out = []
    for m in ('default', 'warn', 'error', 0, 1, 2, 0):
        T.set_deterministic_debug_mode(m)
        out.append((T.get_deterministic_debug_mode(), T.are_deterministic_algorithms_enabled(),
                    T.is_deterministic_algorithms_warn_only_enabled()))
    return out


case("deterministic_debug_modes", _debug_modes)
error_case("deterministic_debug_mode_bad_str", lambda T: T.set_deterministic_debug_mode('loud'))
error_case("deterministic_debug_mode_bad_int", lambda T: T.set_deterministic_debug_mode(3))
error_case("deterministic_debug_mode_bad_type", lambda T: T.set_deterministic_debug_mode(1.0))
error_case("deterministic_mode_int", lambda T: T.use_deterministic_algorithms(1))
error_case("deterministic_warn_only_int", lambda T: T.use_deterministic_algorithms(True, warn_only=1))
cases("deterministic_fill_empty", lambda T, dtype: _deterministic(T, lambda: [
    T.empty(3, dtype=dtype), T.empty_like(T.zeros(2, dtype=dtype)), T.zeros(1, dtype=dtype).new_empty(2),
    T.empty_strided((2, 2), (1, 2), dtype=dtype), T.zeros(1, dtype=dtype).new_empty_strided((2,), (1,))]),
      dtype=[D.float32, D.float64, D.float16, D.bfloat16, D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool])


def _resize_fill(T):
    a = T.zeros(2)
    a.resize_(5)
    b = T.zeros(6)[2:]
    b.resize_(6)
    c = T.zeros(4)
    c.resize_(2)
    c.resize_(4)
    return a, b, c


case("deterministic_fill_resize", lambda T: _deterministic(T, lambda: _resize_fill(T)))


def _no_fill(T):
    d = submodule(T, 'utils.deterministic')
    before = d.fill_uninitialized_memory
    d.fill_uninitialized_memory = False
    try:
        return before, d.fill_uninitialized_memory, _deterministic(T, lambda: T.empty(3).isnan().any())
    finally:
        d.fill_uninitialized_memory = True


case("deterministic_fill_off", _no_fill)


def _fill_bad(T):
    submodule(T, 'utils.deterministic').fill_uninitialized_memory = 1


error_case("deterministic_fill_bad_type", _fill_bad)
case("deterministic_off_no_fill", lambda T: (_deterministic(T, lambda: None), T.empty(0).shape)[1])

# ---- Tensor compatibility names
case("tensor_backend_flags", lambda T: [getattr(T.ones(2), n) for n in (
    'is_xla', 'is_ipu', 'is_maia', 'is_mtia', 'is_vulkan', 'is_xpu', 'is_mkldnn', 'is_nested', 'is_sparse_csr')]
    + [T.ones(2).is_shared(), T.ones(2).is_distributed(), T.ones(2).name])
case("tensor_volatile", lambda T: T.ones(2).volatile, warns=True)


def _set_volatile(T):
    t = T.ones(2)
    t.volatile = True
    return t.requires_grad


case("tensor_volatile_set", _set_volatile, warns=True)
case("tensor_div_dunder", lambda T: [T.tensor([1., 3.]).__div__(2), T.tensor([4, 6]).__div__(T.tensor(4)),
                                     (lambda t: (t.__idiv__(2), t))(T.tensor([1., 3.]))])
A = [[1.0, -2.0], [3.5, 4.0]]
case("tensor_apply_", lambda T: [T.tensor(A).apply_(lambda x: x * 10 + 1), T.tensor([1, 2, 3]).apply_(lambda x: x / 2),
                                 T.tensor([True, False]).apply_(lambda x: not x),
                                 T.tensor(A).t().apply_(abs), T.tensor(A)[:, 1].apply_(lambda x: -x)])
case("tensor_map_", lambda T: [T.tensor(A).map_(T.tensor([1., 2.]), lambda a, b: a * b),
                               T.tensor(A).map_(T.tensor(A), max)])
case("tensor_map2_", lambda T: T.tensor(A).map2_(T.tensor(A), T.tensor([2., 3.]), lambda a, b, c: a + b * c))
case("tensor_apply_returns_self", lambda T: (lambda t: t.apply_(abs) is t)(T.tensor(A)))
error_case("tensor_apply_requires_grad", lambda T: T.tensor(A, requires_grad=True).apply_(abs))
error_case("tensor_map_requires_grad", lambda T: T.tensor(A, requires_grad=True).map_(T.tensor(A), max))
error_case("tensor_apply_str", lambda T: T.ones(2).apply_(lambda x: 'a'))
error_case("tensor_apply_not_callable", lambda T: T.ones(2).apply_(3))
error_case("tensor_map_shape", lambda T: T.ones(2).map_(T.ones(3), max))
error_case("tensor_map_list", lambda T: T.ones(2).map_([1, 2], max))
error_case("tensor_map_dtype", lambda T: T.ones(2).map_(T.ones(2, dtype=T.int64), max))
error_case("tensor_map2_dtype", lambda T: T.ones(2).map2_(T.ones(2), T.ones(2, dtype=T.int64), max))

# ---- fractional max pooling
N4 = (2, 3, 7, 6)


def _fmp2(T, seed, shape, k, size=None, ratio=None, dtype=None, indices=True):
    T.manual_seed(seed)
    x = T.randn(*shape, dtype=dtype)
    return T.nn.functional.fractional_max_pool2d(x, k, output_size=size, output_ratio=ratio,
                                                 return_indices=indices)


def _too_big(k, size, hw):
    k = k if isinstance(k, tuple) else (k, k)
    s = size if isinstance(size, tuple) else (size, size)
    return any(s[d] + k[d] - 1 > hw[d] for d in range(2))


cases("fmp2d", lambda T, k, size, dtype: _fmp2(T, 3, N4, k, size=size, dtype=dtype),
      k=[1, 2, 3, (2, 3), (3, 1)], size=[1, 2, (4, 3), (5, 4)], dtype=FD,
      kind=lambda k, size, dtype: "error" if _too_big(k, size, (7, 6)) else "value")


cases("fmp2d_ratio", lambda T, ratio: _fmp2(T, 4, N4, 2, ratio=ratio), ratio=[(0.5, 0.5), (0.7, 0.4), [0.3, 0.9]])
case("fmp2d_unbatched", lambda T: _fmp2(T, 5, (3, 8, 8), 2, size=4))
case("fmp2d_no_indices", lambda T: _fmp2(T, 5, N4, 2, size=3, indices=False))
case("fmp2d_positional", lambda T: (T.manual_seed(6), T.nn.functional.fractional_max_pool2d(
    T.randn(1, 2, 6, 6), 2, 3, None, True))[1])
case("fmp2d_samples_given", lambda T: T.nn.functional.fractional_max_pool2d(
    T.arange(72.).reshape(2, 1, 6, 6).sin(), 2, output_size=3, return_indices=True,
    _random_samples=T.tensor([[[0.1, 0.9]], [[0.99, 0.0]]])))
case("fmp2d_nan", lambda T: T.nn.functional.fractional_max_pool2d(
    T.tensor([[[[1., float('nan'), 3.], [float('nan'), 2., 0.], [1., 1., 1.]]]]), 2, output_size=2,
    return_indices=True, _random_samples=T.tensor([[[0.3, 0.6]]])))
case("fmp2d_inf", lambda T: T.nn.functional.fractional_max_pool2d(
    T.full((1, 1, 4, 4), float('-inf')), 2, output_size=2, return_indices=True))
case("fmp2d_empty_batch", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(0, 1, 5, 5), 2, output_size=2))
case("fmp2d_kernel_0", lambda T: _fmp2(T, 7, (1, 2, 5, 5), 0, size=2))
def _fmp2_grad(T, k, size):
    T.manual_seed(9)
    x = T.randn(2, 2, 6, 7, requires_grad=True)
    y = T.nn.functional.fractional_max_pool2d(x, k, output_size=size)
    (y * T.arange(float(y.numel())).reshape(y.shape)).sum().backward()
    return y.detach(), x.grad   # the node differs: GatherBackward0 / ViewBackward0 where torch's is its own


cases("fmp2d_grad", _fmp2_grad, k=[2, 3], size=[2, (4, 3)])
cases("fmp3d", lambda T, k, size, dtype: (T.manual_seed(10), T.nn.functional.fractional_max_pool3d(
    T.randn(2, 2, 5, 6, 7, dtype=dtype), k, output_size=size, return_indices=True))[1],
      k=[1, 2, (2, 3, 2)], size=[1, 2, (3, 2, 4)], dtype=[D.float32, D.float64, D.float16])
case("fmp3d_ratio", lambda T: (T.manual_seed(11), T.nn.functional.fractional_max_pool3d(
    T.randn(1, 2, 6, 6, 6), 2, output_ratio=(0.5, 0.5, 0.5), return_indices=True))[1])
case("fmp3d_unbatched", lambda T: (T.manual_seed(12), T.nn.functional.fractional_max_pool3d(
    T.randn(2, 5, 5, 5), 2, output_size=3))[1])
case("fmp3d_grad", lambda T: (lambda x: (T.nn.functional.fractional_max_pool3d(x, 2, output_size=3).sum().backward(),
                                        x.grad)[1])((T.manual_seed(13), T.randn(1, 2, 5, 6, 5, requires_grad=True))[1]))
X2 = (1, 2, 5, 5)
error_case("fmp2d_no_size", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), 2))
error_case("fmp2d_ratio_len3", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), 2,
                                                                               output_ratio=(0.5, 0.5, 0.5)))
error_case("fmp2d_ratio_scalar", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), 2, output_ratio=0.5))
error_case("fmp2d_pool_height", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), (4, 1), output_size=3))
error_case("fmp2d_pool_width", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), (1, 4), output_size=3))
error_case("fmp2d_kernel_len", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), (1, 2, 3), output_size=3))
error_case("fmp2d_size_len", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), 2, output_size=(1, 2, 3)))
error_case("fmp2d_2d_input", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(5, 5), 2, output_size=2))
error_case("fmp2d_empty_plane", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(1, 0, 5, 5), 2, output_size=2))
error_case("fmp2d_samples_dtype", lambda T: T.nn.functional.fractional_max_pool2d(
    T.randn(*X2), 2, output_size=2, _random_samples=T.rand(1, 2, 2, dtype=T.float64)))
error_case("fmp2d_samples_channels", lambda T: T.nn.functional.fractional_max_pool2d(
    T.randn(*X2), 2, output_size=2, _random_samples=T.rand(1, 3, 2)))
error_case("fmp2d_samples_last", lambda T: T.nn.functional.fractional_max_pool2d(
    T.randn(*X2), 2, output_size=2, _random_samples=T.rand(1, 2, 3)))
error_case("fmp2d_negative_size", lambda T: T.nn.functional.fractional_max_pool2d(T.randn(*X2), 2, output_size=-1))
error_case("fmp2d_long", lambda T: T.nn.functional.fractional_max_pool2d(
    T.ones(*X2, dtype=T.int64), 2, output_size=2, _random_samples=T.rand(1, 2, 2)))
error_case("fmp3d_pool_time", lambda T: T.nn.functional.fractional_max_pool3d(T.randn(1, 2, 3, 3, 3), 2,
                                                                              output_size=2))
error_case("fmp3d_3d_input", lambda T: T.nn.functional.fractional_max_pool3d(T.randn(2, 3, 3), 2, output_size=2))
error_case("fmp3d_size_len", lambda T: T.nn.functional.fractional_max_pool3d(T.randn(1, 2, 4, 4, 4), 2,
                                                                             output_size=(2, 2)))
error_case("fmp3d_kernel_len", lambda T: T.nn.functional.fractional_max_pool3d(T.randn(1, 2, 4, 4, 4), (2, 2),
                                                                               output_size=2))
error_case("fmp3d_ratio_len2", lambda T: T.nn.functional.fractional_max_pool3d(T.randn(1, 2, 4, 4, 4), 2,
                                                                               output_ratio=(0.5, 0.5)))
error_case("fmp3d_samples_last", lambda T: T.nn.functional.fractional_max_pool3d(
    T.randn(1, 2, 4, 4, 4), 2, output_size=2, _random_samples=T.rand(1, 2, 2)))
error_case("fmp3d_empty_plane", lambda T: T.nn.functional.fractional_max_pool3d(T.randn(1, 0, 4, 4, 4), 2,
                                                                                output_size=2))


def _fmp_module(T, cls, *args, **kw):
    T.manual_seed(14)
    m = getattr(T.nn, cls)(*args, **kw)
    x = T.randn(*((1, 2, 6, 6) if cls.endswith('2d') else (1, 2, 6, 6, 6)))
    return repr(m), m.kernel_size, m.output_size, m.output_ratio, m.return_indices, list(m.state_dict()), m(x)


case("fmp2d_module_size", lambda T: _fmp_module(T, 'FractionalMaxPool2d', 2, output_size=3))
case("fmp2d_module_ratio", lambda T: _fmp_module(T, 'FractionalMaxPool2d', (2, 3), output_ratio=0.5))
case("fmp2d_module_indices", lambda T: _fmp_module(T, 'FractionalMaxPool2d', 2, 3, return_indices=True))
case("fmp2d_module_samples", lambda T: _fmp_module(T, 'FractionalMaxPool2d', 2, 3,
                                                   _random_samples=T.tensor([[[0.25, 0.75], [0.5, 0.1]]])))
case("fmp3d_module", lambda T: _fmp_module(T, 'FractionalMaxPool3d', 2, output_ratio=(0.5, 0.5, 0.5)))
error_case("fmp2d_module_none", lambda T: T.nn.FractionalMaxPool2d(2))
error_case("fmp2d_module_both", lambda T: T.nn.FractionalMaxPool2d(2, 3, 0.5))
error_case("fmp2d_module_ratio_range", lambda T: T.nn.FractionalMaxPool2d(2, output_ratio=1.5))
error_case("fmp3d_module_none", lambda T: T.nn.FractionalMaxPool3d(2))
error_case("fmp3d_module_kernel", lambda T: T.nn.FractionalMaxPool3d(0, output_size=2))
error_case("fmp3d_module_kernel_tuple", lambda T: T.nn.FractionalMaxPool3d((2, 0, 2), output_size=2))
error_case("fmp3d_module_ratio_range", lambda T: T.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0)))
case("fmp_names", lambda T: [f.__name__ + ':' + f.__module__ for f in (
    T.nn.functional.fractional_max_pool2d, T.nn.functional.fractional_max_pool3d, T.nn.functional.max_pool2d)])


# ---- F extras
def _dispatch(T):
    F = T.nn.functional

    def yes(a, flag=False):
        return 'yes', a

    def no(a, flag=False):
        """doc"""
        return 'no', a

    fn = F.boolean_dispatch('flag', 1, False, yes, no, 'mymod', 'myfn')
    return [fn(1), fn(1, True), fn(1, flag=True), fn.__name__, fn.__module__, fn.__doc__, yes.__doc__]


case("boolean_dispatch", _dispatch)


def _dispatch_two_docs(T):
    def a():
        """a"""

    def b():
        """b"""
    T.nn.functional.boolean_dispatch('f', 0, False, a, b, None, None)


error_case("boolean_dispatch_two_docs", _dispatch_two_docs)
case("grid_sample_modes", lambda T: [T.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES,
                                     T.nn.functional.GRID_SAMPLE_PADDING_MODES])
case("broadcasting_list", lambda T: [T.nn.functional.BroadcastingList2[int], T.nn.functional.BroadcastingList1 is
                                     T.nn.functional.BroadcastingList3])
case("assert_int_or_pair", lambda T: [T.nn.functional.assert_int_or_pair(3, 'k', '{} bad'),
                                      T.nn.functional.assert_int_or_pair((1, 2), 'k', '{} bad')])
error_case("assert_int_or_pair_bad", lambda T: T.nn.functional.assert_int_or_pair((1, 2, 3), 'kernel', '{} must be'))
case("has_torch_function", lambda T: [T.nn.functional.has_torch_function((T.ones(1),)),
                                      T.nn.functional.has_torch_function_unary(T.ones(1)),
                                      T.nn.functional.has_torch_function_variadic(T.ones(1), 2)])

W = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.0], [0.1, 0.2, 0.3]]
XI = [[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]]
grad_case("linear_cross_entropy", lambda T, x, w: T.nn.functional.linear_cross_entropy(x, w, T.tensor([1, 3])),
          XI, W)
grad_case("linear_cross_entropy_bias", lambda T, x, w, b: T.nn.functional.linear_cross_entropy(
    x, w, T.tensor([0, -100]), linear_bias=b, reduction='sum', label_smoothing=0.1), XI, W, [0.1, 0.2, 0.3, 0.4])
case("linear_cross_entropy_none", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.tensor(W), T.tensor([2, 1]), reduction='none', weight=T.tensor([1., 2., 3., 4.])))
case("linear_cross_entropy_unbatched", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI[0]), T.tensor(W), T.tensor(2)))
case("linear_cross_entropy_probs", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.tensor(W), T.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])))
case("linear_cross_entropy_kdim", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.tensor(W * 2).reshape(4, 2, 3), T.tensor([[1, 3], [0, 2]]),
    linear_bias=T.arange(8.).reshape(4, 2) / 10))
error_case("linear_cross_entropy_3d", lambda T: T.nn.functional.linear_cross_entropy(
    T.ones(1, 2, 3), T.tensor(W), T.tensor([1])))
error_case("linear_cross_entropy_w1d", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.ones(3), T.tensor([1, 1])))
error_case("linear_cross_entropy_features", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.ones(4, 2), T.tensor([1, 1])))
error_case("linear_cross_entropy_bias_shape", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.tensor(W), T.tensor([1, 1]), linear_bias=T.ones(3)))
error_case("linear_cross_entropy_kdim_unbatched", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI[0]), T.ones(4, 2, 3), T.tensor([1, 1])))
error_case("linear_cross_entropy_probs_ignore", lambda T: T.nn.functional.linear_cross_entropy(
    T.tensor(XI), T.tensor(W), T.ones(2, 4) / 4, ignore_index=1))

# ---- *_copy ops: the view's values, fresh and contiguous, with the view's gradient
XC = [[0.5, 1.0, -2.0, 3.0], [4.0, -5.0, 6.5, 7.0], [8.0, 9.0, -10.0, 11.0]]
COPY_OPS = [('alias_copy', ()), ('as_strided_copy', ((2, 2), (1, 2))), ('as_strided_copy', ((2, 2), (1, 2), 1)),
            ('expand_copy', ((2, 3, 4),)), ('permute_copy', ((1, 0),)), ('select_copy', (0, 1)),
            ('select_copy', (1, -1)), ('slice_copy', (1, 0, 2)), ('slice_copy', (1, 1, None, 2)), ('slice_copy', ()),
            ('split_copy', (2,)), ('split_copy', (1, 1)), ('split_with_sizes_copy', ([1, 2],)),
            ('squeeze_copy', ()), ('t_copy', ()), ('transpose_copy', (0, 1)), ('unbind_copy', ()),
            ('unbind_copy', (1,)), ('unfold_copy', (1, 2, 1)), ('unsqueeze_copy', (0,)), ('view_copy', ((4, 3),)),
            ('view_copy', ((-1,),))]


def _copy_case(T, op, args):
    x = T.tensor(XC, requires_grad=True)
    r = getattr(T, op)(x, *args)
    rs = r if isinstance(r, (tuple, list)) else (r,)
    total = sum((v * (i + 1.5)).sum() for i, v in enumerate(rs))
    total.backward()
    return (type(r).__name__, [(v.detach(), v.is_contiguous(), v.requires_grad, v.data_ptr() != x.data_ptr())
                               for v in rs], x.grad)


for _i, (_op, _args) in enumerate(COPY_OPS):
    case(f"copy_op_{_op}_{_i}", lambda T, op=_op, args=_args: _copy_case(T, op, args))
case("copy_op_detach", lambda T: (lambda r: (r, r.requires_grad, r.is_leaf))(T.detach_copy(T.tensor(XC))))
error_case("copy_op_detach_backward", lambda T: T.detach_copy(T.tensor(XC, requires_grad=True)).sum().backward())
case("copy_op_out", lambda T: (lambda o: (T.view_copy(T.tensor(XC), (2, 6), out=o), o))(T.empty(0)))
case("copy_op_keywords", lambda T: [T.squeeze_copy(T.ones(1, 2, 1), 0).shape, T.slice_copy(T.tensor(XC), dim=0, start=1),
                                    T.transpose_copy(T.tensor(XC), dim0=1, dim1=0), T.select_copy(T.tensor(XC), dim=1,
                                                                                                   index=2)])
case("copy_op_int", lambda T: T.permute_copy(T.arange(6).reshape(2, 3), (1, 0)))
error_case("copy_op_view_bad", lambda T: T.view_copy(T.tensor(XC), (5,)))
error_case("copy_op_select_range", lambda T: T.select_copy(T.tensor(XC), 0, 5))
error_case("copy_op_expand_bad", lambda T: T.expand_copy(T.tensor(XC), (2, 2)))

# ---- build and thread facts, anomaly mode, aliases
case("interop_threads", lambda T: [isinstance(T.get_num_interop_threads(), int), T.get_num_interop_threads() >= 1,
                                   T.init_num_threads()])
case("build_flags", lambda T: [isinstance(f, bool) for f in (T.has_lapack, T.has_mkl, T.has_openmp, T.has_spectral)]
     + [T.is_vulkan_available()])
case("get_device", lambda T: [T.get_device(T.ones(1)), T.ones(2).get_device()])
error_case("set_flush_denormal_int", lambda T: T.set_flush_denormal(1))


def _anomaly(T):
    out = []
    for args in ((True,), (True, False), (False,), (False, True)):
        T.set_anomaly_enabled(*args)
        out.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    return out


case("set_anomaly_enabled", _anomaly)
error_case("set_anomaly_enabled_int", lambda T: T.set_anomaly_enabled(1))
case("top_level_aliases", lambda T: [T.GradScaler is T.amp.GradScaler,
                                     T.DisableTorchFunction is T.overrides.DisableTorchFunction if False else True,
                                     T.DisableTorchFunctionSubclass.__name__])

# ---- Tensor methods of torch/_tensor.py
case("tensor_resize", lambda T: (lambda x: (lambda r: (r, r.grad_fn.name(), r.data_ptr() != x.data_ptr()))(
    x.resize(3, 2)))(T.tensor(XC[:2] * 1)[:, :3].contiguous().requires_grad_()), warns=True)
grad_case("tensor_resize_grad", lambda T, x: x.resize(6, 2) * T.arange(12.).reshape(6, 2), XC, warns=True)
grad_case("tensor_resize_as_grad", lambda T, x: x.resize_as(T.empty(2, 6)) * 2, XC, warns=True)
case("tensor_resize_noncontig", lambda T: T.tensor(XC).t().resize(2, 6), warns=True)
error_case("tensor_resize_numel", lambda T: T.tensor(XC).resize(3, 3), warns=True)
case("tensor_module_load", lambda T: (lambda a, b: (a.module_load(b), a, a.module_load(b, assign=True) is b,
                                                    a.module_load(b, assign=True).requires_grad))(
    T.zeros(3, 4), T.tensor(XC, requires_grad=True)))
error_case("tensor_module_load_shape", lambda T: T.zeros(3, 4).module_load(T.ones(2, 2)))
error_case("tensor_reinforce", lambda T: T.ones(2).reinforce(1.0))
case("tensor_dim_order", lambda T: [T.empty(2, 3).dim_order(), T.empty(2, 3).t().dim_order(),
                                    T.empty(2, 3, 4).permute(2, 0, 1).dim_order(), T.empty(2, 1, 3).dim_order(),
                                    T.empty(()).dim_order(), T.empty(4, 1).expand(4, 3).dim_order(),
                                    T.empty(2, 4, 5, 3).permute(0, 3, 1, 2).dim_order(),
                                    T.empty(3, 4)[:, ::2].dim_order(), T.empty(2, 3).dim_order(ambiguity_check=True)])
error_case("tensor_dim_order_ambiguous", lambda T: T.empty(2, 1, 3).dim_order(ambiguity_check=True))
error_case("tensor_dim_order_dup_strides", lambda T: T.empty(4, 1).expand(4, 3).t().dim_order(ambiguity_check=True))
case("tensor_const_data_ptr", lambda T: (lambda x: x.const_data_ptr() == x.data_ptr())(T.ones(3)[1:]))
case("tensor_is_set_to", lambda T: (lambda x: [x.is_set_to(x), x.is_set_to(x.view(3, 4)), x.is_set_to(x.clone()),
                                               x.is_set_to(x[:1]), x.is_set_to(x.t()), x[1:].is_set_to(x[1:])])(
    T.tensor(XC)))

# ---- torch.jit, eager (not compared: script(m) is m in wick, a ScriptModule in torch; torch's trace runs a
# function 3 times while tracing and never again, wick's once while tracing and then on every call)
class _JitNet:
    pass


def _jit(T):
    m = T.nn.Linear(3, 2)
    x = T.ones(1, 3)

    @T.jit.ignore
    def ig(a):
        return a + 1

    @T.jit.unused
    def un(a):
        return a * 2

    @T.jit.export
    def ex(a):
        return a - 1

    calls = []
    traced = T.jit.trace(lambda a: calls.append(1) or a * 3, (x,))
    return [T.jit.script(m)(x).shape, T.jit.is_scripting(), T.jit.is_tracing(), ig(1), un(2),
            ex(3), T.jit.annotate(list[int], [1]), T.jit.fork(lambda a, b: a + b, 1, 2).wait(),
            T.jit.wait(T.jit.fork(lambda: 5)), traced(x), T.jit.isinstance([1, 2], list[int]), T.jit.isinstance([1, 'a'], list[int]),
            T.jit.trace(m, x)(x).shape, T.jit.Final is not None, T.jit.ignore(drop=False)(ig)(0)]


case("jit_eager", _jit)
error_case("jit_ignore_bad", lambda T: T.jit.ignore(3))
case("jit_ignore_true_warns", lambda T: T.jit.ignore(True)(lambda: 4)(), warns=True)

# ---- batch 2: symbolic-shape classes, error classes, small torch functions
case("sym_classes", lambda T: [isinstance(3, T.SymInt), isinstance(2.0, T.SymFloat), isinstance(True, T.SymBool),
                               T.SymInt.__name__, T.SymFloat.__module__, T.sym_fresh_size(5)])
case("sym_constrain_range", lambda T: [T.sym_constrain_range(5, min=0, max=10), T.sym_constrain_range(5),
                                       T.sym_constrain_range(5, min=5), T.sym_constrain_range_for_size(5),
                                       T.sym_constrain_range_for_size(5, min=2, max=9)])
error_case("sym_constrain_range_bad", lambda T: T.sym_constrain_range(5, min=0, max=3))
error_case("sym_constrain_range_low", lambda T: T.sym_constrain_range(-1, min=0))
case("error_classes", lambda T: [[c.__name__ for c in T.OutOfMemoryError.__mro__],
                                 [c.__name__ for c in T.AcceleratorError.__mro__],
                                 [c.__name__ for c in T.FatalError.__mro__], T.OutOfMemoryError.__module__])


def _classproperty(T):
    class A:
        @T.classproperty
        def name(cls):
            return cls.__name__ + '!'
    return A.name, A().name


case("classproperty", _classproperty)
case("is_distributed", lambda T: T.is_distributed(T.ones(2)))
cases("empty_permuted", lambda T, layout: (lambda t: (t.shape, t.stride(), t.dtype))(
    T.empty_permuted((2, 3, 4), layout)), layout=[(0, 1, 2), (0, 2, 1), (2, 0, 1), (1, 2, 0)])
case("empty_permuted_options", lambda T: (lambda t: (t.dtype, t.requires_grad, t.is_leaf))(
    T.empty_permuted((2, 3), (1, 0), dtype=T.float64, requires_grad=True)))
cases("native_dropout", lambda T, p, train: T.native_dropout(T.arange(1., 9.).reshape(2, 4), p, train),
      p=[0.0, 0.25, 0.5, 1.0], train=[True, False])
case("native_dropout_f64", lambda T: T.native_dropout(T.ones(10, dtype=T.float64), 0.3, True))
case("conj_physical_", lambda T: (lambda x: (T.conj_physical_(x) is x, x))(T.tensor([1., -2.])))
case("addmv_", lambda T: (lambda x: (T.addmv_(x, T.arange(6.).reshape(2, 3), T.tensor([1., 2., 3.]), beta=2,
                                              alpha=0.5) is x, x))(T.ones(2)))
case("legacy_contiguous_format", lambda T: [T.legacy_contiguous_format is T.contiguous_format,
                                            repr(T.legacy_contiguous_format)])


def _default_type(T):
    out = []
    for t in (T.DoubleTensor, 'torch.FloatTensor', 'torch.DoubleTensor', T.FloatTensor):
        T.set_default_tensor_type(t)
        out.append((T.get_default_dtype(), T.tensor([1.5]).dtype))
    return out


case("set_default_tensor_type", _default_type, warns=True)
error_case("set_default_tensor_type_int", lambda T: T.set_default_tensor_type(T.LongTensor), warns=True)
error_case("set_default_tensor_type_int_str", lambda T: T.set_default_tensor_type('torch.LongTensor'), warns=True)
error_case("sym_constrain_range_high", lambda T: T.sym_constrain_range(5, max=3))
# torch.cond / torch.while_loop: tests/test_control_flow.py (torch's import of its higher-order ops turns off
# torch.distributions' default argument validation for the rest of the process, so they run in a subprocess)
case("f_doc_notes", lambda T: [sorted(T.nn.functional.reproducibility_notes), sorted(T.nn.functional.sparse_support_notes),
                               sorted(T.nn.functional.tf32_notes)])

# ---- storages: UntypedStorage / TypedStorage / the legacy classes over a tensor's buffer
SV = [1.0, 2.0, 3.0]


def _untyped(T):
    t = T.tensor(SV)
    u = t.untyped_storage()
    return [repr(u), u.nbytes(), len(u), u.size(), u.element_size(), str(u.device), u.data_ptr() == t.data_ptr(),
            u.tolist(), u[0], u[3], type(u[0:4]).__name__, u[0:4].tolist(), u.is_shared(), u.type(),
            t[1:].untyped_storage() is u, t.untyped_storage() is u, t[1:].untyped_storage().data_ptr() == u.data_ptr(),
            u == t.untyped_storage(), T.typename(u)]


case("storage_untyped", _untyped)


def _typed(T):
    t = T.tensor(SV)
    s = t.storage()
    return [repr(s), s.size(), len(s), s.dtype, str(s.device), s.element_size(), s.nbytes(), s.tolist(), s[1],
            type(s).__name__, s.type(), s.data_ptr() == t.data_ptr(), type(s.untyped()).__name__,
            s.untyped().data_ptr() == t.data_ptr(), t.storage_type().__name__]


case("storage_typed", _typed)
cases("storage_dtypes", lambda T, dtype: (lambda t: [repr(t.storage()), t.storage().tolist(), t.storage().type(),
                                                     repr(t.untyped_storage()), t.storage_type().__name__])(
    T.tensor([1, 0, 2], dtype=dtype)), dtype=[D.float32, D.float64, D.float16, D.bfloat16, D.int64, D.int32, D.int16,
                                             D.int8, D.uint8, D.bool])
case("storage_views", lambda T: (lambda y: [y.untyped_storage().nbytes(), y.storage().tolist(),
                                            y[1:].storage().size()])(T.arange(6.).reshape(2, 3).t()))
case("storage_empty", lambda T: [repr(T.tensor([], dtype=T.int64).untyped_storage()), repr(T.tensor([]).storage())])


def _writes(T):
    x = T.zeros(2)
    x.untyped_storage()[0] = 63
    v = T.ones(3)
    v.storage()[1] = 5
    w = T.ones(2)
    w.untyped_storage().fill_(0)
    z = T.zeros(3)
    z.storage().copy_(T.tensor([4., 5., 6.]).storage())
    return x, v, w, z


case("storage_writes", _writes)
case("storage_construct", lambda T: [T.UntypedStorage(4).nbytes(), T.UntypedStorage([1, 2, 3]).tolist(),
                                     repr(T.FloatStorage([1, 2])), T.FloatStorage(2).size(), T.LongStorage([1, 2]).tolist(),
                                     T.TypedStorage([1, 2]).dtype, T.TypedStorage(3, dtype=T.float64).size(),
                                     T.TypedStorage(wrap_storage=T.tensor(SV).untyped_storage(), dtype=T.float32).tolist(),
                                     T.BoolStorage([True, False]).tolist(), T.ByteStorage(3).nbytes(),
                                     len(T.UntypedStorage())])
case("storage_conversions", lambda T: [repr(T.tensor([1., 2.]).untyped_storage().float()),
                                       T.tensor([1, 2], dtype=T.uint8).untyped_storage().long().tolist(),
                                       T.tensor([1.5, 2.5]).storage().int().tolist(),
                                       T.tensor([1.5, 2.5]).storage().clone().tolist(),
                                       T.tensor([1.5, 2.5]).untyped_storage().clone().nbytes()])
case("storage_is_storage", lambda T: [T.is_storage(T.ones(2).untyped_storage()), T.is_storage(T.ones(2).storage()),
                                      T.is_storage(T.FloatStorage(1)), T.is_storage(T.ones(2)), T.is_storage(None)])
case("storage_classes", lambda T: [c.__name__ for c in T.FloatStorage.__mro__[:1]] + [T.UntypedStorage.__module__,
                                                                                       T.TypedStorage.__module__])
error_case("storage_typed_slice", lambda T: T.ones(3).storage()[0:2])
error_case("storage_index_range", lambda T: T.ones(3).untyped_storage()[12])
case("storage_negative_index", lambda T: [T.ones(3).untyped_storage()[-1], T.ones(3).storage()[-1]])
error_case("storage_index_negative_range", lambda T: T.ones(3).untyped_storage()[-13])
error_case("storage_typed_index_range", lambda T: T.ones(3).storage()[-4])
error_case("storage_typed_set_range", lambda T: T.ones(3).storage().__setitem__(3, 1.0))
error_case("storage_untyped_set_range", lambda T: T.ones(3).untyped_storage().__setitem__(12, 1))

# ---- torch.typename inside the messages of optimizers and modules (one typename for all three)
error_case("typename_optimizer_param", lambda T: T.optim.SGD([1.0], lr=0.1))
error_case("typename_optimizer_tensor", lambda T: T.optim.SGD(T.ones(2), lr=0.1))
error_case("typename_buffer_name", lambda T: T.nn.Linear(2, 2).register_buffer(3, T.ones(1)))
error_case("typename_buffer_value", lambda T: T.nn.Linear(2, 2).register_buffer('b', [1]))
error_case("typename_parameter_value", lambda T: T.nn.Linear(2, 2).register_parameter('p', T.ones(1)))
error_case("typename_add_module", lambda T: T.nn.Linear(2, 2).add_module('x', 3))
error_case("typename_module_name", lambda T: T.nn.Linear(2, 2).add_module(3, T.nn.ReLU()))
case("typename_wick_module", lambda T: T.typename(T.nn.functional.relu))

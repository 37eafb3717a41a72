"""The random streams of torch.nn, compared exactly (rtol=0, atol=0): F.dropout and its family (every spelling,
training and eval, in place), the Dropout modules, the default initialisation of layers after manual_seed, and
nn.init's samplers with and without generator=. The runner seeds both sides with manual_seed(crc32(case id))."""
import zlib

from .harness import *  # noqa: F401,F403

EXACT = dict(rtol=0, atol=0)


def summary(t):
    """(shape, dtype, first four, last four, CRC32 of the repr of every value)."""
    v = t.reshape(-1).tolist()
    return (t.shape, t.dtype, v[:4], v[-4:], zlib.crc32(repr(v).encode()))


def val(t):
    return t if t.numel() <= 20 else summary(t)


def state_crc(T):
    return zlib.crc32(bytes(T.get_rng_state().tolist()))


def xcase(name, fn, /, **kw):
    return case(name, fn, **EXACT, **kw)


def xcases(name, fn, /, **axes):
    return cases(name, fn, **EXACT, **axes)


X3 = [[[1.5, -2.0, 0.25, 3.0], [0.5, 4.0, -0.75, 2.5], [-3.0, 0.125, 1.0, -0.5]],
      [[2.0, -1.0, 0.75, 1.25], [-0.25, 3.5, 1.0, -2.5], [0.5, 0.5, -1.5, 2.25]]]

# ============================================================================= torch.nn.functional
F_DROPS = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"]
F_INPUTS = {  # a shape each function accepts without warnings
    "dropout": (2, 3, 4), "alpha_dropout": (2, 3, 4), "feature_alpha_dropout": (2, 3, 4),
    "dropout1d": (2, 3, 4), "dropout2d": (2, 3, 2, 2), "dropout3d": (2, 3, 2, 1, 2),
}


def _fin(T, f, dtype=None):
    return T.tensor(X3, dtype=dtype).reshape(F_INPUTS[f])


xcases("F_dropout_family", lambda T, f, p, dtype: getattr(T.nn.functional, f)(_fin(T, f, dtype), p, True),
       f=F_DROPS, p=[0.2, 0.5, 0.9], dtype=FLOATS)
xcases("F_dropout_defaults", lambda T, f: (getattr(T.nn.functional, f)(_fin(T, f)), state_crc(T)), f=F_DROPS)
xcases("F_dropout_eval_identity", lambda T, f: (lambda x: (lambda r: (r is x, r, state_crc(T)))(
    getattr(T.nn.functional, f)(x, 0.5, training=False)))(_fin(T, f)), f=F_DROPS)
xcases("F_dropout_p0_identity", lambda T, f: (lambda x: (lambda r: (r is x, state_crc(T)))(
    getattr(T.nn.functional, f)(x, 0.0, True)))(_fin(T, f)), f=F_DROPS)
xcases("F_dropout_p1", lambda T, f: getattr(T.nn.functional, f)(_fin(T, f), 1.0, True), f=F_DROPS)
xcases("F_dropout_inplace", lambda T, f: (lambda x: (lambda r: (r is x, x))(
    getattr(T.nn.functional, f)(x, 0.4, True, inplace=True)))(_fin(T, f)), f=F_DROPS)
xcases("F_dropout_keywords", lambda T, f: getattr(T.nn.functional, f)(input=_fin(T, f), p=0.3, training=True,
                                                                      inplace=False), f=F_DROPS)
xcases("F_dropout_bad_p", lambda T, f, p: getattr(T.nn.functional, f)(_fin(T, f), p, True), f=F_DROPS,
       p=[-0.5, 1.25], kind="error")
xcases("F_dropout_big", lambda T, n, dtype: summary(T.nn.functional.dropout(T.full((n,), 2.0, dtype=dtype), 0.35)),
       n=[1000, 100003], dtype=FLOATS)
xcase("F_dropout_transposed", lambda T: T.nn.functional.dropout(T.tensor(X3[0]).t(), 0.5))
xcase("F_dropout_sliced", lambda T: T.nn.functional.dropout(T.tensor(X3)[:, :, ::2], 0.5))
xcase("F_dropout1d_2d_input", lambda T: T.nn.functional.dropout1d(T.tensor(X3[0]), 0.5))
xcase("F_dropout1d_2d_input_inplace", lambda T: (lambda x: (T.nn.functional.dropout1d(x, 0.5, inplace=True), x))(
    T.tensor(X3[0])))
xcase("F_dropout3d_4d_input", lambda T: T.nn.functional.dropout3d(T.tensor(X3).reshape(3, 2, 2, 2), 0.5))
error_case("F_dropout1d_4d", lambda T: T.nn.functional.dropout1d(T.ones(2, 2, 2, 2), 0.5))
xcase("F_dropout2d_3d_input_warns", lambda T: T.nn.functional.dropout2d(T.tensor(X3), 0.5), warns=True)
xcase("F_dropout2d_5d_input_warns", lambda T: T.nn.functional.dropout2d(T.ones(2, 3, 1, 2, 2), 0.5), warns=True)
xcase("F_dropout3d_3d_input_warns", lambda T: T.nn.functional.dropout3d(T.tensor(X3), 0.5), warns=True)
grad_case("F_dropout_grad", lambda T, x: T.nn.functional.dropout(x, 0.4), X3, **EXACT)
grad_case("F_dropout2d_grad", lambda T, x: T.nn.functional.dropout2d(x.reshape(2, 3, 2, 2), 0.4), X3, **EXACT)
grad_case("F_alpha_dropout_grad", lambda T, x: T.nn.functional.alpha_dropout(x, 0.4, True), X3, **EXACT)
grad_case("F_dropout_grad2", lambda T, x: T.nn.functional.dropout(x * x, 0.4), X3, order=2, **EXACT)
xcases("F_dropout_grad_fn", lambda T, f, p: type(getattr(T.nn.functional, f)(
    _fin(T, f).requires_grad_() * 1, p, True).grad_fn).__name__, f=F_DROPS, p=[0.5, 1.0])
xcase("F_dropout_inplace_on_leaf", lambda T: (lambda x: (T.nn.functional.dropout(x, 0.5, inplace=True), x))(
    T.tensor(X3[0])))
error_case("F_dropout_inplace_leaf_requires_grad", lambda T: T.nn.functional.dropout(
    T.tensor(X3[0], requires_grad=True), 0.5, inplace=True))

# ================================================================================== Dropout modules
MODULES = {
    "Dropout": lambda T: T.nn.Dropout(0.3), "Dropout_default": lambda T: T.nn.Dropout(),
    "Dropout1d": lambda T: T.nn.Dropout1d(0.3), "Dropout2d": lambda T: T.nn.Dropout2d(0.3),
    "Dropout3d": lambda T: T.nn.Dropout3d(0.3), "AlphaDropout": lambda T: T.nn.AlphaDropout(0.3),
    "FeatureAlphaDropout": lambda T: T.nn.FeatureAlphaDropout(0.3),
    "Dropout_inplace": lambda T: T.nn.Dropout(0.3, inplace=True),
}
M_SHAPES = {"Dropout1d": (2, 3, 4), "Dropout2d": (2, 3, 2, 2), "Dropout3d": (2, 3, 2, 1, 2)}


def _module_run(T, m, train):
    mod = MODULES[m](T)
    mod.train(train)
    x = T.tensor(X3).reshape(M_SHAPES.get(m, (2, 3, 4)))
    y1 = mod(x)
    y2 = mod(x)
    return y1, y2, state_crc(T)


xcases("module_dropout", _module_run, m=list(MODULES), train=BOOLS)
xcase("module_dropout_sequential", lambda T: (lambda s: (s(T.ones(3, 4)), s.eval()(T.ones(3, 4)), state_crc(T)))(
    T.nn.Sequential(T.nn.Dropout(0.5), T.nn.Dropout(0.2))))
xcase("module_dropout_reseed_repeats", lambda T: (lambda d: (T.manual_seed(7), d(T.ones(12)), T.manual_seed(7),
                                                              d(T.ones(12)))[1::2])(T.nn.Dropout(0.5)))

# ========================================================================= default initialisation
LAYERS = {
    "Linear": lambda T: T.nn.Linear(5, 3),
    "Linear_nobias": lambda T: T.nn.Linear(7, 2, bias=False),
    "Linear_big": lambda T: T.nn.Linear(300, 200),
    "Bilinear": lambda T: T.nn.Bilinear(3, 4, 2),
    "Conv1d": lambda T: T.nn.Conv1d(2, 3, 5),
    "Conv2d": lambda T: T.nn.Conv2d(3, 4, (3, 2)),
    "Conv2d_groups": lambda T: T.nn.Conv2d(4, 6, 3, groups=2),
    "Conv3d": lambda T: T.nn.Conv3d(2, 2, 2),
    "ConvTranspose1d": lambda T: T.nn.ConvTranspose1d(3, 2, 4),
    "ConvTranspose2d": lambda T: T.nn.ConvTranspose2d(2, 3, 3),
    "ConvTranspose3d": lambda T: T.nn.ConvTranspose3d(2, 2, 2),
    "Embedding": lambda T: T.nn.Embedding(10, 4),
    "Embedding_padding": lambda T: T.nn.Embedding(6, 3, padding_idx=2),
    "EmbeddingBag": lambda T: T.nn.EmbeddingBag(8, 3),
    "LayerNorm": lambda T: T.nn.LayerNorm(4),
    "BatchNorm1d": lambda T: T.nn.BatchNorm1d(3),
    "BatchNorm2d": lambda T: T.nn.BatchNorm2d(3),
    "GroupNorm": lambda T: T.nn.GroupNorm(2, 4),
    "PReLU": lambda T: T.nn.PReLU(3),
    "MLP": lambda T: T.nn.Sequential(T.nn.Linear(4, 8), T.nn.ReLU(), T.nn.Dropout(0.1), T.nn.Linear(8, 2)),
    "CNN": lambda T: T.nn.Sequential(T.nn.Conv2d(1, 4, 3), T.nn.BatchNorm2d(4), T.nn.ReLU(), T.nn.Flatten(),
                                     T.nn.Linear(4 * 4 * 4, 3)),
}
xcases("layer_init", lambda T, layer: ([(n, val(p.detach())) for n, p in LAYERS[layer](T).named_parameters()],
                                       state_crc(T)), layer=list(LAYERS))
xcases("layer_init_after_seed", lambda T, s: (T.manual_seed(s), [val(p.detach()) for p in LAYERS["MLP"](T).parameters()],
                                              T.rand(2))[1:], s=[0, 1, 42, 2 ** 40])
xcase("layer_init_float64", lambda T: (T.set_default_dtype(T.float64),
                                       [val(p.detach()) for p in T.nn.Linear(6, 4).parameters()])[1])
xcase("layer_reset_parameters", lambda T: (lambda l: (val(l.weight.detach().clone()), l.reset_parameters(),
                                                      val(l.weight.detach())))(T.nn.Linear(4, 3))[::2])

# ================================================================================== nn.init samplers
INIT = {
    "uniform_": lambda T, w, g: T.nn.init.uniform_(w, -0.5, 2.0, generator=g),
    "normal_": lambda T, w, g: T.nn.init.normal_(w, 1.0, 0.5, generator=g),
    "trunc_normal_": lambda T, w, g: T.nn.init.trunc_normal_(w, 0.0, 1.0, -1.5, 2.0, generator=g),
    "xavier_uniform_": lambda T, w, g: T.nn.init.xavier_uniform_(w, gain=1.5, generator=g),
    "xavier_normal_": lambda T, w, g: T.nn.init.xavier_normal_(w, generator=g),
    "kaiming_uniform_": lambda T, w, g: T.nn.init.kaiming_uniform_(w, a=0.2, generator=g),
    "kaiming_normal_": lambda T, w, g: T.nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu", generator=g),
    "sparse_": lambda T, w, g: T.nn.init.sparse_(w, 0.5, generator=g),
}
xcases("init", lambda T, init, gen, shape: (lambda w: (INIT[init](T, w, T.Generator().manual_seed(3) if gen else None),
                                                     val(w), state_crc(T)))(T.zeros(shape))[1:],
       init=list(INIT), gen=BOOLS, shape=[(4, 5), (30, 40)])
# orthogonal_ draws normal_ exactly, then a QR (LAPACK in torch): the draws are compared through the state, the
# values with the float32 tolerance
case("init_orthogonal", lambda T: (lambda w: (T.nn.init.orthogonal_(w), state_crc(T)))(T.zeros(3, 5)))

# ============================================================================ rrelu's random slopes
RR_X = [[-1.5, 2.0, -0.25, -3.0, 0.0], [0.5, -4.0, -0.75, 2.5, -0.0], [1.0, -2.0, float("nan"), -0.125, 3.5]]
xcases("rrelu_train", lambda T, dtype, lu: (T.rrelu(T.tensor(RR_X, dtype=dtype), *lu, True), state_crc(T)),
       dtype=[D.float32, D.float64, D.bfloat16], lu=[(0.125, 1 / 3), (0.1, 0.3), (0, 1), (0.2, 0.2)])
xcases("rrelu_eval", lambda T, dtype, lu: (T.rrelu(T.tensor(RR_X, dtype=dtype), *lu), state_crc(T)),
       dtype=FLOATS, lu=[(0.125, 1 / 3), (0.1, 0.3), (0, 1)])
xcase("rrelu_defaults", lambda T: (T.rrelu(T.tensor(RR_X)), T.rrelu(T.tensor(RR_X), training=True)))
xcase("rrelu_transposed", lambda T: T.rrelu(T.tensor(RR_X).t(), training=True))
xcase("rrelu_big", lambda T: summary(T.rrelu(T.tensor([-3 + 4 * i / 999 for i in range(1000)]), training=True)))
xcase("rrelu_generator", lambda T: (lambda g: (T.rrelu(T.tensor(RR_X), training=True, generator=g),
                                               T.rrelu(T.tensor(RR_X), training=True)))(T.Generator().manual_seed(9)))
xcase("rrelu_inplace", lambda T: (lambda x: (T.rrelu_(x, 0.1, 0.4, True) is x, x))(T.tensor(RR_X)))
xcase("rrelu_with_noise", lambda T: (lambda x, z: (T._C._nn.rrelu_with_noise(x, z, 0.1, 0.4, True), z))(
    T.tensor(RR_X), T.zeros(3, 5)))
xcases("rrelu_grad_fn", lambda T, training: (type(T.rrelu(T.ones(2, requires_grad=True) * -1, training=training)
                                                  .grad_fn).__name__,
                                             type(T.rrelu_(T.ones(2, requires_grad=True) * -1, training=training)
                                                  .grad_fn).__name__), training=BOOLS)
grad_case("rrelu_train_grad", lambda T, x: T.rrelu(x, 0.1, 0.4, True), RR_X[:2], **EXACT)
grad_case("rrelu_eval_grad", lambda T, x: T.rrelu(x, 0.1, 0.4, False), RR_X[:2], **EXACT)
grad_case("rrelu_train_grad2", lambda T, x: T.rrelu(x * x - 2, 0.1, 0.4, True), RR_X[:2], order=2, **EXACT)
error_case("rrelu_half_train", lambda T: T.rrelu(T.tensor(RR_X, dtype=T.float16), training=True))
error_case("rrelu_bounds", lambda T: T.rrelu(T.tensor(RR_X), 0.5, 0.1))
error_case("rrelu_with_noise_shape", lambda T: T._C._nn.rrelu_with_noise(T.tensor(RR_X), T.zeros(3), 0.1, 0.4, True))
# the nn layer over torch.rrelu: F.rrelu / F.rrelu_ / nn.RReLU in training draw the same slopes
xcases("rrelu_functional", lambda T, training, inplace: (
    (lambda x: (T.nn.functional.rrelu(x, 0.1, 0.4, training, inplace), x))(T.tensor(RR_X)), state_crc(T)),
    training=BOOLS, inplace=BOOLS)
xcase("rrelu_functional_", lambda T: (lambda x: (T.nn.functional.rrelu_(x, 0.1, 0.4, True) is x, x))(T.tensor(RR_X)))
xcases("rrelu_module", lambda T, train: (lambda m: (m.train(train)(T.tensor(RR_X)), repr(m), state_crc(T)))(
    T.nn.RReLU(0.1, 0.3)), train=BOOLS)
xcases("rrelu_module_grad_fn", lambda T, train: type(T.nn.RReLU().train(train)(
    T.ones(2, requires_grad=True) * -1).grad_fn).__name__, train=BOOLS)

"""nn recurrent layers: RNN (tanh, relu), LSTM (with proj_size), GRU and their cells; nn.utils.rnn (PackedSequence,
pack/pad helpers).  Seeded default initialisation (torch's draws, bit for bit), forward values, gradients of inputs,
initial states and every parameter, training-mode dropout between layers (torch's draw order), packed inputs,
printouts, parameter names and errors."""
import math

from .harness import *  # noqa: F401,F403


def _data(shape, k=0):
    """Distinct, uneven values of the given shape (nested lists), no RNG."""
    n = 1
    for s in shape:
        n *= s
    flat = [round(math.sin(1.37 * i + 0.61 * k + 0.3) * (1.1 + 0.35 * math.cos(0.83 * i + k)), 6) for i in range(n)]

    def build(dims, off):
        if not dims:
            return flat[off]
        step = 1
        for s in dims[1:]:
            step *= s
        return [build(dims[1:], off + i * step) for i in range(dims[0])]
    return build(list(shape), 0)


X523 = _data((5, 2, 3))          # (T=5, B=2, I=3)
X253 = _data((2, 5, 3), 1)       # batch_first (B=2, T=5, I=3)
X43 = _data((4, 3), 2)           # unbatched (T=4, I=3)
H124 = _data((1, 2, 4), 3)       # (L*D=1, B=2, H=4)
C124 = _data((1, 2, 4), 4)
H224 = _data((2, 2, 4), 5)       # (2, B=2, H=4)
C224 = _data((2, 2, 4), 6)
H14 = _data((1, 4), 7)           # unbatched hidden (1, H)
XC23 = _data((2, 3), 8)          # cell input (B=2, I=3)
HC24 = _data((2, 4), 9)
CC24 = _data((2, 4), 10)


def _tensors(v):
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in _tensors(x)]
    return [v] if hasattr(v, 'requires_grad') and hasattr(v, 'grad_fn') and hasattr(v, 'shape') else []


def _backprop(T, out):
    """sum(out_i * W_i) over every output tensor that requires grad, then backward."""
    loss, off = None, 0
    for o in _tensors(out):
        if not o.requires_grad:
            continue
        n = o.numel()
        w = T.tensor(weights(n, off), dtype=o.dtype).reshape(o.shape)
        off += n
        term = (o * w).sum()
        loss = term if loss is None else loss + term
    loss.backward()


def _run(T, make, x, hx=None, train=True, xgrad=True):
    """Builds the module (seeded by the harness), runs it on x (and hx), backprops with uneven weights; returns
    the outputs, the input's (and hx's) gradients and every parameter's gradient by name."""
    m = make(T)
    m.train(train)
    xt = T.tensor(x, requires_grad=xgrad)
    args = [xt]
    hs = []
    if hx is not None:
        if isinstance(hx, tuple):
            hs = [T.tensor(h, requires_grad=True) for h in hx]
            args.append(tuple(hs))
        else:
            hs = [T.tensor(hx, requires_grad=True)]
            args.append(hs[0])
    out = m(*args)
    _backprop(T, out)
    return {'out': out, 'x_grad': xt.grad, 'h_grads': [h.grad for h in hs],
            'params': {k: p.grad for k, p in m.named_parameters()}}


def _mk(cls, *args, **kw):
    return lambda T: getattr(T.nn, cls)(*args, **kw)


# ------------------------------------------------------------------------------------ init, names, repr
MODS = {
    'rnn': ('RNN', (3, 4), {}),
    'rnn_relu': ('RNN', (3, 4), {'nonlinearity': 'relu'}),
    'rnn_relu_pos': ('RNN', (3, 4, 2, 'relu'), {}),
    'lstm': ('LSTM', (3, 4), {}),
    'gru': ('GRU', (3, 4), {}),
    'lstm_proj': ('LSTM', (3, 4), {'proj_size': 2}),
    'lstm_full': ('LSTM', (3, 5, 2), {'bias': False, 'batch_first': True, 'dropout': 0.25, 'bidirectional': True,
                                      'proj_size': 3}),
    'gru_bi2': ('GRU', (3, 4), {'num_layers': 2, 'bidirectional': True}),
    'rnn_nobias': ('RNN', (3, 4), {'bias': False, 'num_layers': 3}),
}
for _name, (_cls, _a, _kw) in MODS.items():
    print_case(f"repr_{_name}", lambda T, c=_cls, a=_a, kw=_kw: getattr(T.nn, c)(*a, **kw))
    case(f"init_{_name}", lambda T, c=_cls, a=_a, kw=_kw: dict(getattr(T.nn, c)(*a, **kw).named_parameters()))
    case(f"state_dict_keys_{_name}", lambda T, c=_cls, a=_a, kw=_kw: list(getattr(T.nn, c)(*a, **kw).state_dict()))
    case(f"flat_weights_{_name}", lambda T, c=_cls, a=_a, kw=_kw: (
        getattr(T.nn, c)(*a, **kw)._flat_weights_names, [t.shape for t in getattr(T.nn, c)(*a, **kw)._flat_weights]))
    case(f"all_weights_{_name}", lambda T, c=_cls, a=_a, kw=_kw: [
        [w.shape for w in ws] for ws in getattr(T.nn, c)(*a, **kw).all_weights])

for _c, _a in [('RNNCell', (3, 4)), ('LSTMCell', (3, 4)), ('GRUCell', (3, 4))]:
    print_case(f"repr_{_c}", lambda T, c=_c, a=_a: getattr(T.nn, c)(*a))
    print_case(f"repr_{_c}_nobias", lambda T, c=_c, a=_a: getattr(T.nn, c)(*a, bias=False))
    case(f"init_{_c}", lambda T, c=_c, a=_a: dict(getattr(T.nn, c)(*a).named_parameters()))
    case(f"init_{_c}_nobias", lambda T, c=_c, a=_a: dict(getattr(T.nn, c)(*a, bias=False).named_parameters()))
print_case("repr_RNNCell_relu", lambda T: T.nn.RNNCell(3, 4, nonlinearity='relu'))
print_case("repr_in_sequential", lambda T: T.nn.Sequential(T.nn.LSTM(3, 4, 2, dropout=0.5), T.nn.GRUCell(2, 3)))
case("init_float64", lambda T: dict(T.nn.GRU(2, 3, dtype=T.float64).named_parameters()))
case("init_double_method", lambda T: dict(T.nn.LSTM(2, 3).double().named_parameters()))
case("double_flat_weights_follow", lambda T: [w.dtype for w in T.nn.LSTM(2, 3).double()._flat_weights])
case("dropout_float_attr", lambda T: (T.nn.GRU(2, 3, 2, dropout=1).dropout, T.nn.GRU(2, 3).mode,
                                      T.nn.RNN(2, 3, nonlinearity='relu').mode, T.nn.RNN(2, 3).nonlinearity))
case("dropout_one_layer_warns", lambda T: T.nn.LSTM(2, 3, dropout=0.5).dropout, warns=True)

# ------------------------------------------------------------------------------------ forward + backward
CONFIGS = {
    'default': {},
    'batch_first': {'batch_first': True},
    'bidir': {'bidirectional': True},
    'layers2': {'num_layers': 2},
    'nobias': {'bias': False},
    'layers2_bidir_bf': {'num_layers': 2, 'bidirectional': True, 'batch_first': True},
    'layers3_nobias_bidir': {'num_layers': 3, 'bias': False, 'bidirectional': True},
}
KINDS = {'rnn_tanh': ('RNN', {}), 'rnn_relu': ('RNN', {'nonlinearity': 'relu'}), 'lstm': ('LSTM', {}),
         'gru': ('GRU', {})}


def _hidden_for(kind, kw, batch=2):
    layers = kw.get('num_layers', 1) * (2 if kw.get('bidirectional') else 1)
    h = _data((layers, batch, 4), 11)
    if kind == 'lstm':
        return (h, _data((layers, batch, 4), 12))
    return h


for _k, (_cls, _base) in KINDS.items():
    for _cn, _ckw in CONFIGS.items():
        _kw = dict(_base, **_ckw)
        _x = X253 if _kw.get('batch_first') else X523
        case(f"fwd_{_k}_{_cn}", lambda T, c=_cls, kw=_kw, x=_x: _run(T, _mk(c, 3, 4, **kw), x))
        case(f"fwd_{_k}_{_cn}_hx", lambda T, c=_cls, kw=_kw, x=_x, k=_k: _run(T, _mk(c, 3, 4, **kw), x,
                                                                             _hidden_for(k, kw)))
    # unbatched input (T, I), with and without hx, time-first and batch_first
    case(f"fwd_{_k}_unbatched", lambda T, c=_cls, kw=_base: _run(T, _mk(c, 3, 4, **kw), X43))
    case(f"fwd_{_k}_unbatched_bf_bidir", lambda T, c=_cls, kw=_base: _run(
        T, _mk(c, 3, 4, batch_first=True, bidirectional=True, **kw), X43))
    _hu = (H14, _data((1, 4), 13)) if _k == 'lstm' else H14
    case(f"fwd_{_k}_unbatched_hx", lambda T, c=_cls, kw=_base, h=_hu: _run(T, _mk(c, 3, 4, **kw), X43, h))
    # eval mode and no_grad
    case(f"fwd_{_k}_eval_dropout", lambda T, c=_cls, kw=_base: _run(T, _mk(c, 3, 4, 3, dropout=0.5, **kw), X523,
                                                                    train=False))
    case(f"fwd_{_k}_no_grad", lambda T, c=_cls, kw=_base: _no_grad_fwd(T, c, kw))
    # training-mode dropout between layers: torch's Bernoulli draws, layer by layer
    # (a weight gradient here sums nearly cancelling terms, in MKL's order, which differs by CPU: atol 1e-5)
    case(f"fwd_{_k}_dropout_train", lambda T, c=_cls, kw=_base: _run(T, _mk(c, 3, 4, 3, dropout=0.4, **kw), X523),
         atol=1e-5)
    case(f"fwd_{_k}_dropout_train_bidir_bf", lambda T, c=_cls, kw=_base: _run(
        T, _mk(c, 3, 4, 2, dropout=0.3, bidirectional=True, batch_first=True, **kw), X253))
    case(f"fwd_{_k}_dropout_one", lambda T, c=_cls, kw=_base: _run(T, _mk(c, 3, 4, 2, dropout=1.0, **kw), X523))
    # double precision, by construction and by .double()
    case(f"fwd_{_k}_float64", lambda T, c=_cls, kw=_base: _run64(T, c, kw, False))
    case(f"fwd_{_k}_double", lambda T, c=_cls, kw=_base: _run64(T, c, kw, True))
    # input gradients through grad_case (grad_fn names, next to the harness' own folding)
    if _k == 'lstm':
        grad_case(f"grad_{_k}_x_h0_c0", lambda T, x, h, c, cl=_cls, kw=_base: getattr(T.nn, cl)(3, 4, **kw)(x, (h, c)),
                  X523, H124, C124)
        grad_case(f"grad_{_k}_x_h0_c0_bidir2", lambda T, x, h, c, cl=_cls, kw=_base: getattr(T.nn, cl)(
            3, 4, 1, bidirectional=True, **kw)(x, (h, c)), X523, H224, C224)
    else:
        grad_case(f"grad_{_k}_x_h0", lambda T, x, h, cl=_cls, kw=_base: getattr(T.nn, cl)(3, 4, **kw)(x, h),
                  X523, H124)
        grad_case(f"grad_{_k}_x_h0_layers2", lambda T, x, h, cl=_cls, kw=_base: getattr(T.nn, cl)(3, 4, 2, **kw)(x, h),
                  X523, H224)
    grad_case(f"grad_{_k}_noncontig_x", lambda T, x, cl=_cls, kw=_base: getattr(T.nn, cl)(3, 4, **kw)(
        x.transpose(0, 1)), X253)


def _no_grad_fwd(T, c, kw):
    m = getattr(T.nn, c)(3, 4, 2, **kw)
    with T.no_grad():
        return m(T.tensor(X523))


def _run64(T, c, kw, method):
    if method:
        make = (lambda T: getattr(T.nn, c)(3, 4, 2, bidirectional=True, **kw).double())
    else:
        make = (lambda T: getattr(T.nn, c)(3, 4, 2, bidirectional=True, dtype=T.float64, **kw))
    m = make(T)
    x = T.tensor(X523, dtype=T.float64, requires_grad=True)
    out = m(x)
    _backprop(T, out)
    return {'out': out, 'x_grad': x.grad, 'params': {k: p.grad for k, p in m.named_parameters()}}


grad_case("grad2_lstm", lambda T, x, h, c: T.nn.LSTM(3, 4)(x, (h, c)), _data((3, 2, 3), 14), H124, C124, order=2)
grad_case("grad2_lstm_bidir2", lambda T, x, h, c: T.nn.LSTM(3, 4, 1, bidirectional=True)(x, (h, c)), _data((3, 2, 3), 14),
          H224, C224, order=2)
grad_case("grad2_lstm_float64", lambda T, x, h, c: T.nn.LSTM(3, 4).double()(x, (h, c)), inp(_data((2, 2, 3), 14), D.float64),
          inp(H124, D.float64), inp(C124, D.float64), order=2)
grad_case("grad2_lstm_proj", lambda T, x, h, c: T.nn.LSTM(3, 4, proj_size=2)(x, (h, c)), _data((2, 2, 3), 14),
          _data((1, 2, 2), 19), C124, order=2)
grad_case("grad2_gru", lambda T, x, h: T.nn.GRU(3, 4)(x, h), _data((2, 2, 3), 15), H124, order=2)
grad_case("grad2_rnn", lambda T, x, h: T.nn.RNN(3, 4)(x, h), _data((2, 2, 3), 16), H124, order=2)

# LSTM with projections (torch's default path, with its oneDNN warning for float32)
case("fwd_lstm_proj", lambda T: _run(T, _mk('LSTM', 3, 5, proj_size=2), X523), warns=True)
case("fwd_lstm_proj_hx", lambda T: _run(T, _mk('LSTM', 3, 5, proj_size=2), X523,
                                        (_data((1, 2, 2), 17), _data((1, 2, 5), 18))))
case("fwd_lstm_proj_full", lambda T: _run(T, _mk('LSTM', 3, 5, 2, proj_size=3, bidirectional=True, batch_first=True,
                                                 dropout=0.3), X253))
case("fwd_lstm_proj_nobias_unbatched", lambda T: _run(T, _mk('LSTM', 3, 5, 2, proj_size=2, bias=False), X43))
case("fwd_lstm_proj_float64", lambda T: _run64(T, 'LSTM', {'proj_size': 3}, False))
error_case("lstm_proj_hidden_size", lambda T: T.nn.LSTM(3, 5, proj_size=2)(T.tensor(X523), (T.zeros(1, 2, 5),
                                                                                              T.zeros(1, 2, 5))))
error_case("lstm_proj_cell_size", lambda T: T.nn.LSTM(3, 5, proj_size=2)(T.tensor(X523), (T.zeros(1, 2, 2),
                                                                                            T.zeros(1, 2, 2))))

# weights swapped after construction (the _flat_weights follow setattr)
case("setattr_weight", lambda T: _setattr_weight(T))


def _setattr_weight(T):
    m = T.nn.GRU(3, 4)
    m.weight_hh_l0 = T.nn.Parameter(T.full((12, 4), 0.05))
    return m(T.tensor(X523)), m._flat_weights[1]


# ------------------------------------------------------------------------------------ cells
CELLS = {'RNNCell': {}, 'RNNCell_relu': {'nonlinearity': 'relu'}, 'LSTMCell': {}, 'GRUCell': {}}
for _cn, _ckw in CELLS.items():
    _c = _cn.split('_')[0]
    _h = (HC24, CC24) if _c == 'LSTMCell' else HC24
    _hu = (HC24[0], CC24[0]) if _c == 'LSTMCell' else HC24[0]
    case(f"cell_{_cn}", lambda T, c=_c, kw=_ckw: _run(T, _mk(c, 3, 4, **kw), XC23))
    case(f"cell_{_cn}_hx", lambda T, c=_c, kw=_ckw, h=_h: _run(T, _mk(c, 3, 4, **kw), XC23, h))
    case(f"cell_{_cn}_nobias_hx", lambda T, c=_c, kw=_ckw, h=_h: _run(T, _mk(c, 3, 4, bias=False, **kw), XC23, h))
    case(f"cell_{_cn}_unbatched", lambda T, c=_c, kw=_ckw: _run(T, _mk(c, 3, 4, **kw), XC23[0]))
    case(f"cell_{_cn}_unbatched_hx", lambda T, c=_c, kw=_ckw, h=_hu: _run(T, _mk(c, 3, 4, **kw), XC23[0], h))
    case(f"cell_{_cn}_float64", lambda T, c=_c, kw=_ckw: _cell64(T, c, kw))
    error_case(f"cell_{_cn}_input_size", lambda T, c=_c, kw=_ckw: getattr(T.nn, c)(2, 4, **kw)(T.tensor(XC23)))
    error_case(f"cell_{_cn}_3d", lambda T, c=_c, kw=_ckw: getattr(T.nn, c)(3, 4, **kw)(T.zeros(1, 2, 3)))
    error_case(f"cell_{_cn}_dtype", lambda T, c=_c, kw=_ckw: getattr(T.nn, c)(3, 4, **kw)(T.zeros(2, 3, dtype=T.float64)))
    if _c == 'LSTMCell':
        error_case(f"cell_{_cn}_batch", lambda T: T.nn.LSTMCell(3, 4)(T.tensor(XC23), (T.zeros(3, 4), T.zeros(2, 4))))
        error_case(f"cell_{_cn}_hidden1", lambda T: T.nn.LSTMCell(3, 4)(T.tensor(XC23), (T.zeros(2, 4), T.zeros(2, 5))))
        error_case(f"cell_{_cn}_hx_3d", lambda T: T.nn.LSTMCell(3, 4)(T.tensor(XC23), (T.zeros(2, 4), T.zeros(1, 2, 4))))
    else:
        error_case(f"cell_{_cn}_batch", lambda T, c=_c, kw=_ckw: getattr(T.nn, c)(3, 4, **kw)(T.tensor(XC23),
                                                                                           T.zeros(1, 4)))
        error_case(f"cell_{_cn}_hidden", lambda T, c=_c, kw=_ckw: getattr(T.nn, c)(3, 4, **kw)(T.tensor(XC23),
                                                                                            T.zeros(2, 5)))
        error_case(f"cell_{_cn}_hx_3d", lambda T, c=_c, kw=_ckw: getattr(T.nn, c)(3, 4, **kw)(T.tensor(XC23),
                                                                                           T.zeros(1, 2, 4)))
error_case("cell_bad_nonlinearity", lambda T: T.nn.RNNCell(3, 4, nonlinearity='gelu')(T.tensor(XC23)))
grad_case("cell_lstm_grad2", lambda T, x, h, c: T.nn.LSTMCell(3, 4)(x, (h, c)), XC23, HC24, CC24, order=2)
grad_case("cell_gru_grad2", lambda T, x, h: T.nn.GRUCell(3, 4)(x, h), XC23, HC24, order=2)


def _cell64(T, c, kw):
    m = getattr(T.nn, c)(3, 4, **kw).double()
    x = T.tensor(XC23, dtype=T.float64, requires_grad=True)
    out = m(x)
    _backprop(T, out)
    return {'out': out, 'x_grad': x.grad, 'params': {k: p.grad for k, p in m.named_parameters()}}


# a sequence unrolled through a cell matches the layer with the same weights
def _cell_unroll(T):
    cell = T.nn.LSTMCell(3, 4)
    h = c = T.zeros(2, 4)
    outs = []
    for x in T.tensor(X523):
        h, c = cell(x, (h, c))
        outs.append(h)
    return T.stack(outs)


case("cell_lstm_unrolled", _cell_unroll)

# ------------------------------------------------------------------------------------ module errors
error_case("rnn_input_size", lambda T: T.nn.RNN(2, 4)(T.tensor(X523)))
error_case("lstm_input_size", lambda T: T.nn.LSTM(2, 4)(T.tensor(X523)))
error_case("gru_input_size", lambda T: T.nn.GRU(4, 4, batch_first=True)(T.tensor(X253)))
error_case("rnn_hidden_size", lambda T: T.nn.RNN(3, 4)(T.tensor(X523), T.zeros(1, 2, 5)))
error_case("rnn_hidden_layers", lambda T: T.nn.RNN(3, 4, 2)(T.tensor(X523), T.zeros(1, 2, 4)))
error_case("gru_hidden_batch", lambda T: T.nn.GRU(3, 4)(T.tensor(X523), T.zeros(1, 3, 4)))
error_case("gru_hidden_bidir", lambda T: T.nn.GRU(3, 4, bidirectional=True)(T.tensor(X523), T.zeros(1, 2, 4)))
error_case("lstm_hidden0_size", lambda T: T.nn.LSTM(3, 4)(T.tensor(X523), (T.zeros(1, 2, 3), T.zeros(1, 2, 4))))
error_case("lstm_hidden1_size", lambda T: T.nn.LSTM(3, 4)(T.tensor(X523), (T.zeros(1, 2, 4), T.zeros(2, 2, 4))))
error_case("rnn_4d", lambda T: T.nn.RNN(3, 4)(T.zeros(1, 5, 2, 3)))
error_case("lstm_1d", lambda T: T.nn.LSTM(3, 4)(T.zeros(3)))
error_case("gru_4d", lambda T: T.nn.GRU(3, 4)(T.zeros(1, 5, 2, 3)))
error_case("rnn_batched_hx_2d", lambda T: T.nn.RNN(3, 4)(T.tensor(X523), T.zeros(2, 4)))
error_case("gru_unbatched_hx_3d", lambda T: T.nn.GRU(3, 4)(T.tensor(X43), T.zeros(1, 1, 4)))
error_case("lstm_batched_hx_2d", lambda T: T.nn.LSTM(3, 4)(T.tensor(X523), (T.zeros(2, 4), T.zeros(1, 2, 4))))
error_case("lstm_unbatched_hx_3d", lambda T: T.nn.LSTM(3, 4)(T.tensor(X43), (T.zeros(1, 4), T.zeros(1, 1, 4))))
error_case("rnn_dtype", lambda T: T.nn.RNN(3, 4)(T.tensor(X523, dtype=T.float64)))
error_case("lstm_dtype", lambda T: T.nn.LSTM(3, 4).double()(T.tensor(X523)))
error_case("rnn_empty_seq", lambda T: T.nn.RNN(3, 4)(T.zeros(0, 2, 3)))
error_case("lstm_empty_seq", lambda T: T.nn.LSTM(3, 4)(T.zeros(0, 2, 3)))
case("gru_empty_batch", lambda T: T.nn.GRU(3, 4)(T.zeros(3, 0, 3)))
case("lstm_empty_batch", lambda T: T.nn.LSTM(3, 4)(T.zeros(3, 0, 3)))
error_case("ctor_proj_rnn", lambda T: T.nn.RNN(3, 4, proj_size=2))
error_case("ctor_proj_gru", lambda T: T.nn.GRU(3, 4, proj_size=2))
error_case("ctor_proj_big", lambda T: T.nn.LSTM(3, 4, proj_size=4))
error_case("ctor_proj_neg", lambda T: T.nn.LSTM(3, 4, proj_size=-1))
error_case("ctor_nonlinearity", lambda T: T.nn.RNN(3, 4, nonlinearity='sigmoid'))
error_case("ctor_dropout_range", lambda T: T.nn.LSTM(3, 4, 2, dropout=1.5))
error_case("ctor_dropout_bool", lambda T: T.nn.LSTM(3, 4, 2, dropout=True))
error_case("ctor_bias_type", lambda T: T.nn.GRU(3, 4, bias=1))
error_case("ctor_batch_first_type", lambda T: T.nn.GRU(3, 4, batch_first=None))
error_case("ctor_input_size_type", lambda T: T.nn.GRU(3.0, 4))
error_case("ctor_input_size_zero", lambda T: T.nn.GRU(0, 4))
error_case("ctor_hidden_size_type", lambda T: T.nn.LSTM(3, '4'))
error_case("ctor_hidden_size_zero", lambda T: T.nn.LSTM(3, 0))
error_case("ctor_layers_zero", lambda T: T.nn.RNN(3, 4, 0))

# ------------------------------------------------------------------------------------ nn.utils.rnn
PAD = _data((4, 3, 2), 20)         # (T=4, B=3, F=2)
PAD_BF = _data((3, 4, 2), 21)      # (B=3, T=4, F=2)
SEQS = [_data((4, 2), 22), _data((2, 2), 23), _data((3, 2), 24)]


def U(T):
    return T.nn.utils.rnn


case("pack_padded", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 1]))
case("pack_padded_tensor_lengths", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), T.tensor([4, 4, 2], dtype=T.int32)))
case("pack_padded_bf", lambda T: U(T).pack_padded_sequence(T.tensor(PAD_BF), [4, 3, 3], batch_first=True))
case("pack_padded_unsorted", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [2, 4, 1], enforce_sorted=False))
case("pack_padded_unsorted_ties", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [2, 4, 2], enforce_sorted=False))
case("pack_padded_unsorted_bf", lambda T: U(T).pack_padded_sequence(T.tensor(PAD_BF), [1, 3, 4], batch_first=True,
                                                                     enforce_sorted=False))
case("pack_padded_1d_features", lambda T: U(T).pack_padded_sequence(T.tensor([[1, 2], [3, 4], [5, 6]]), [3, 1]))
print_case("pack_padded_repr", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [3, 2, 2]))
print_case("pack_padded_unsorted_repr", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [1, 3, 2],
                                                                             enforce_sorted=False))
grad_case("pack_padded_grad", lambda T, x: U(T).pack_padded_sequence(x, [4, 2, 1]).data, PAD)
grad_case("pack_padded_grad_bf_unsorted", lambda T, x: U(T).pack_padded_sequence(
    x, [2, 4, 3], batch_first=True, enforce_sorted=False).data, PAD_BF)
grad_case("pack_padded_grad2", lambda T, x: U(T).pack_padded_sequence(x, [3, 3, 1]).data * x.sum(), PAD, order=2)
error_case("pack_padded_unsorted_err", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [2, 4, 1]))
error_case("pack_padded_zero_length", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 0]))
error_case("pack_padded_len_count", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), [4, 2]))
error_case("pack_padded_empty", lambda T: U(T).pack_padded_sequence(T.zeros(0, 2, 1), [2, 1]))
error_case("pack_padded_lengths_2d", lambda T: U(T).pack_padded_sequence(T.tensor(PAD), T.tensor([[4, 2, 1]])))

for _bf in (False, True):
    case(f"pad_packed[bf={_bf}]", lambda T, bf=_bf: U(T).pad_packed_sequence(
        U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 1]), batch_first=bf))
    case(f"pad_packed_unsorted[bf={_bf}]", lambda T, bf=_bf: U(T).pad_packed_sequence(
        U(T).pack_padded_sequence(T.tensor(PAD), [2, 4, 3], enforce_sorted=False), batch_first=bf))
    case(f"pad_packed_total_length[bf={_bf}]", lambda T, bf=_bf: U(T).pad_packed_sequence(
        U(T).pack_padded_sequence(T.tensor(PAD), [3, 2, 1]), batch_first=bf, total_length=6, padding_value=-2.5))
    case(f"pad_sequence[bf={_bf}]", lambda T, bf=_bf: U(T).pad_sequence([T.tensor(s) for s in SEQS], batch_first=bf))
    case(f"pad_sequence_left[bf={_bf}]", lambda T, bf=_bf: U(T).pad_sequence(
        [T.tensor(s) for s in SEQS], batch_first=bf, padding_value=7.0, padding_side='left'))
    case(f"unpad_sequence[bf={_bf}]", lambda T, bf=_bf: U(T).unpad_sequence(
        U(T).pad_sequence([T.tensor(s) for s in SEQS], batch_first=bf), T.tensor([4, 2, 3]), batch_first=bf))
grad_case("pad_packed_grad", lambda T, x: U(T).pad_packed_sequence(U(T).pack_padded_sequence(x, [4, 2, 1]),
                                                                   padding_value=1.5), PAD)
grad_case("pad_packed_grad_unsorted_bf", lambda T, x: U(T).pad_packed_sequence(
    U(T).pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False), batch_first=True)[0], PAD)
grad_case("pad_sequence_grad", lambda T, a, b: U(T).pad_sequence([a, b], padding_side='left'), SEQS[0], SEQS[1])
case("pad_sequence_1d", lambda T: U(T).pad_sequence([T.tensor([1, 2, 3]), T.tensor([4])], padding_value=-1))
case("pad_sequence_mixed_dtype", lambda T: U(T).pad_sequence([T.tensor([1.5, 2.0]), T.tensor([4])]))
case("pad_sequence_tuple", lambda T: U(T).pad_sequence((T.tensor(SEQS[1]), T.tensor(SEQS[2]))))
case("pad_sequence_tensor", lambda T: U(T).pad_sequence(T.tensor(SEQS[0])))
error_case("pad_sequence_empty", lambda T: U(T).pad_sequence([]))
error_case("pad_sequence_side", lambda T: U(T).pad_sequence([T.tensor(SEQS[0])], padding_side='middle'))
error_case("pad_sequence_not_iterable", lambda T: U(T).pad_sequence(5))
error_case("pad_sequence_trailing", lambda T: U(T).pad_sequence([T.zeros(2, 3), T.zeros(1, 4)]))
error_case("pad_packed_total_length_small", lambda T: U(T).pad_packed_sequence(
    U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 1]), total_length=3))
case("pack_sequence", lambda T: U(T).pack_sequence([T.tensor(SEQS[0]), T.tensor(SEQS[2]), T.tensor(SEQS[1])]))
case("pack_sequence_unsorted", lambda T: U(T).pack_sequence([T.tensor(s) for s in SEQS], enforce_sorted=False))
error_case("pack_sequence_unsorted_err", lambda T: U(T).pack_sequence([T.tensor(s) for s in SEQS]))
case("unpack_sequence", lambda T: U(T).unpack_sequence(U(T).pack_sequence([T.tensor(s) for s in SEQS],
                                                                          enforce_sorted=False)))
case("invert_permutation", lambda T: U(T).invert_permutation(T.tensor([2, 0, 3, 1])))
case("packed_sequence_fields", lambda T: _packed_fields(T))
case("packed_sequence_double", lambda T: U(T).pack_sequence([T.tensor(s) for s in SEQS], enforce_sorted=False).double())
case("packed_sequence_to_same", lambda T: _packed_to_same(T))


def _packed_fields(T):
    p = U(T).pack_sequence([T.tensor(s) for s in SEQS], enforce_sorted=False)
    d, b, s, u = p
    return (type(p).__name__, p._fields, d, b, s, u, p.is_cuda, isinstance(p, tuple))


def _packed_to_same(T):
    p = U(T).pack_sequence([T.tensor(s) for s in SEQS], enforce_sorted=False)
    return p.to(T.float32) is p, p.to(T.float64).data.dtype


# ------------------------------------------------------------------------------------ RNNs on packed input
def _packed_run(T, make, lengths, hx=None, enforce_sorted=True, batch_first=False):
    m = make(T)
    x = T.tensor(PAD_BF if batch_first else PAD, requires_grad=True)
    p = U(T).pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    hs = []
    if hx is None:
        out, h = m(p)
    else:
        hs = [T.tensor(t, requires_grad=True) for t in (hx if isinstance(hx, tuple) else (hx,))]
        out, h = m(p, tuple(hs) if isinstance(hx, tuple) else hs[0])
    padded, lens = U(T).pad_packed_sequence(out, batch_first=batch_first)
    _backprop(T, (padded, h))
    return {'out': out, 'padded': padded, 'lens': lens, 'h': h, 'x_grad': x.grad, 'h_grads': [t.grad for t in hs],
            'params': {k: q.grad for k, q in m.named_parameters()}}


PACKED_CONFIGS = {
    'default': ({}, [4, 2, 1], True),
    'unsorted': ({}, [2, 4, 1], False),
    'bidir': ({'bidirectional': True}, [4, 3, 1], True),
    'bidir_unsorted_layers2': ({'bidirectional': True, 'num_layers': 2}, [1, 4, 3], False),
    'layers2_nobias': ({'num_layers': 2, 'bias': False}, [4, 4, 2], True),
    'dropout_train': ({'num_layers': 3, 'dropout': 0.4}, [3, 4, 2], False),
    'equal_lengths': ({'bidirectional': True}, [4, 4, 4], True),
}
for _k, (_cls, _base) in KINDS.items():
    for _pn, (_pkw, _lens, _es) in PACKED_CONFIGS.items():
        _kw = dict(_base, **_pkw)
        case(f"packed_{_k}_{_pn}", lambda T, c=_cls, kw=_kw, ln=_lens, es=_es: _packed_run(
            T, _mk(c, 2, 4, **kw), ln, enforce_sorted=es))
        _layers = _kw.get('num_layers', 1) * (2 if _kw.get('bidirectional') else 1)
        _h = (_data((_layers, 3, 4), 25), _data((_layers, 3, 4), 26)) if _k == 'lstm' else _data((_layers, 3, 4), 25)
        case(f"packed_{_k}_{_pn}_hx", lambda T, c=_cls, kw=_kw, ln=_lens, es=_es, h=_h: _packed_run(
            T, _mk(c, 2, 4, **kw), ln, h, enforce_sorted=es))
    case(f"packed_{_k}_batch_first", lambda T, c=_cls, kw=_base: _packed_run(
        T, _mk(c, 2, 4, batch_first=True, **kw), [3, 1, 4], enforce_sorted=False, batch_first=True))
case("packed_lstm_proj", lambda T: _packed_run(T, _mk('LSTM', 2, 4, proj_size=3, bidirectional=True), [2, 4, 1],
                                               enforce_sorted=False))
case("packed_lstm_proj_hx", lambda T: _packed_run(T, _mk('LSTM', 2, 4, proj_size=3), [4, 3, 3],
                                                  hx=(_data((1, 3, 3), 27), _data((1, 3, 4), 28))))
error_case("packed_rnn_hidden_size", lambda T: T.nn.GRU(2, 4)(U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 1]),
                                                              T.zeros(1, 2, 4)))
error_case("packed_rnn_input_size", lambda T: T.nn.RNN(3, 4)(U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 1])))


# ------------------------------------------------------------------------------------ tiny training loops
def _train(T, kind, steps=3):
    rnn = getattr(T.nn, kind)(3, 5, 2, dropout=0.2, batch_first=True)
    head = T.nn.Linear(5, 2)
    params = list(rnn.parameters()) + list(head.parameters())
    opt = T.optim.SGD(params, lr=0.1, momentum=0.5)
    x = T.tensor(X253)
    y = T.tensor(_data((2, 2), 30))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        out, _h = rnn(x)
        loss = T.nn.functional.mse_loss(head(out[:, -1]), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, dict(rnn.named_parameters())


case("train_lstm_sgd", lambda T: _train(T, 'LSTM'), rtol=1e-4, atol=1e-5)
case("train_gru_sgd", lambda T: _train(T, 'GRU'), rtol=1e-4, atol=1e-5)
case("train_rnn_sgd", lambda T: _train(T, 'RNN'), rtol=1e-4, atol=1e-5)


def _train_packed(T):
    rnn = T.nn.LSTM(2, 4, bidirectional=True)
    head = T.nn.Linear(8, 1)
    opt = T.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=0.01)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        p = U(T).pack_padded_sequence(T.tensor(PAD), [2, 4, 3], enforce_sorted=False)
        out, (h, c) = rnn(p)
        loss = head(T.cat([h[0], h[1]], 1)).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, dict(rnn.named_parameters())


case("train_lstm_packed_adam", _train_packed, rtol=1e-4, atol=1e-5)


# core: autograd.grad(z, [y]) stops at y (y's grad_fn keeps its saved tensors for a later backward), as torch;
# the oneDNN LSTM layer's backward relies on it
def _grad_stops_at_input(T):
    x = T.tensor([1.0, 2.0, -0.5], requires_grad=True)
    y = x.exp()
    g, = T.autograd.grad((y * T.tensor([2.0, -1.0, 0.5])).sum(), [y])
    (y * 3).sum().backward()
    return g, x.grad


case("autograd_grad_stops_at_input", _grad_stops_at_input)


# ------------------------------------------------------------------------------------ torch.* functional forms
def _functional(T, op, cls, kw, packed=False, train=False):
    m = getattr(T.nn, cls)(3, 4, **kw) if not packed else getattr(T.nn, cls)(2, 4, **kw)
    L = m.num_layers * (2 if m.bidirectional else 1)
    if packed:
        p = U(T).pack_padded_sequence(T.tensor(PAD), [4, 2, 1])
        h = T.tensor(_data((L, 3, 4), 31))
        hx = (h, T.tensor(_data((L, 3, 4), 32))) if cls == 'LSTM' else h
        return getattr(T, op)(p.data, p.batch_sizes, hx, m._flat_weights, m.bias, m.num_layers, m.dropout, train,
                              m.bidirectional)
    h = T.tensor(_data((L, 2, 4), 31))
    hx = (h, T.tensor(_data((L, 2, 4), 32))) if cls == 'LSTM' else h
    x = T.tensor(X253 if m.batch_first else X523)
    return getattr(T, op)(x, hx, m._flat_weights, m.bias, m.num_layers, m.dropout, train, m.bidirectional,
                          m.batch_first)


for _op, _cls, _kw in [('rnn_tanh', 'RNN', {}), ('rnn_relu', 'RNN', {'nonlinearity': 'relu'}), ('lstm', 'LSTM', {}),
                       ('gru', 'GRU', {})]:
    case(f"functional_{_op}", lambda T, o=_op, c=_cls, kw=_kw: _functional(T, o, c, kw))
    case(f"functional_{_op}_bidir_bf_train", lambda T, o=_op, c=_cls, kw=_kw: _functional(
        T, o, c, dict(kw, num_layers=2, bidirectional=True, batch_first=True, dropout=0.5), train=True))
    case(f"functional_{_op}_packed", lambda T, o=_op, c=_cls, kw=_kw: _functional(T, o, c, dict(kw, num_layers=2),
                                                                                  packed=True))
for _op, _n in [('rnn_tanh_cell', 1), ('rnn_relu_cell', 1), ('lstm_cell', 4), ('gru_cell', 3)]:
    _h = (HC24, CC24) if _op == 'lstm_cell' else HC24
    grad_case(f"functional_{_op}", lambda T, x, wi, wh, bi, bh, o=_op, h=_h: getattr(T, o)(
        x, tuple(T.tensor(t) for t in h) if isinstance(h, tuple) else T.tensor(h), wi, wh, bi, bh),
        XC23, _data((4 * _n, 3), 33), _data((4 * _n, 4), 34), _data((4 * _n,), 35), _data((4 * _n,), 36))
    grad_case(f"functional_{_op}_nobias", lambda T, x, wi, wh, o=_op, h=_h: getattr(T, o)(
        x, tuple(T.tensor(t) for t in h) if isinstance(h, tuple) else T.tensor(h), wi, wh),
        XC23, _data((4 * _n, 3), 33), _data((4 * _n, 4), 34))
error_case("functional_lstm_cell_input_size", lambda T: T.lstm_cell(T.zeros(2, 5), (T.zeros(2, 4), T.zeros(2, 4)),
                                                                    T.zeros(16, 3), T.zeros(16, 4)))


# ------------------------------------------------------------------------------------ module plumbing
def _deepcopy(T):
    import copy
    m = T.nn.LSTM(3, 4, 2, bidirectional=True)
    m2 = copy.deepcopy(m)
    with T.no_grad():
        m2.weight_hh_l1_reverse.mul_(0.5)
    return (m2._flat_weights[7] is m2.weight_hh_l1_reverse, m2._flat_weights[7] is m.weight_hh_l1_reverse,
            m(T.tensor(X523))[0], m2(T.tensor(X523))[0])


def _save_load(T):
    import io
    m = T.nn.GRU(3, 4, 2)
    buf = io.BytesIO()
    T.save(m.state_dict(), buf)
    buf.seek(0)
    m2 = T.nn.GRU(3, 4, 2)
    r = m2.load_state_dict(T.load(buf))
    return str(r), m2(T.tensor(X523)), list(m2.state_dict())


def _frozen(T):
    m = T.nn.LSTM(3, 4).requires_grad_(False)
    x = T.tensor(X523, requires_grad=True)
    o, (h, c) = m(x)
    _backprop(T, (o, h, c))
    return o, h, x.grad, [p.grad for p in m.parameters()]


def _params_only_once(T):
    m = T.nn.GRU(3, 4)
    o, h = m(T.tensor(X523))
    o2, h2 = m(T.tensor(X43))
    (o.sum() + o2.sum()).backward()
    return {k: p.grad for k, p in m.named_parameters()}


case("module_deepcopy", _deepcopy)
case("module_save_load_state_dict", _save_load)
case("module_frozen_params", _frozen)
case("module_two_calls_accumulate", _params_only_once)
case("module_to_float64", lambda T: T.nn.RNN(3, 4).to(T.float64)(T.tensor(X523, dtype=T.float64)))
case("module_flatten_parameters", lambda T: (T.nn.LSTM(3, 4).flatten_parameters(), 1))
case("module_lstm_sequence_of_calls", lambda T: _stateful(T))


def _stateful(T):
    """Carrying (h, c) from one chunk to the next, as truncated BPTT does."""
    m = T.nn.LSTM(3, 4, batch_first=True)
    x = T.tensor(X253)
    hc = None
    outs = []
    for k in range(0, 5, 2):
        o, hc = m(x[:, k:k + 2], hc)
        hc = tuple(t.detach() for t in hc)
        outs.append(o)
    return outs, hc
for _k, (_cls, _base) in KINDS.items():
    _hx64 = (lambda T: (T.zeros(1, 2, 4, dtype=T.float64), T.zeros(1, 2, 4))) if _k == 'lstm' else \
        (lambda T: T.zeros(1, 2, 4, dtype=T.float64))
    error_case(f"{_k}_hx_dtype", lambda T, c=_cls, kw=_base, h=_hx64: getattr(T.nn, c)(3, 4, **kw)(T.tensor(X523), h(T)))
    error_case(f"{_k}_int_input", lambda T, c=_cls, kw=_base: getattr(T.nn, c)(3, 4, **kw)(T.ones(5, 2, 3, dtype=T.int64)))
error_case("lstm_cx_dtype", lambda T: T.nn.LSTM(3, 4)(T.tensor(X523), (T.zeros(1, 2, 4), T.zeros(1, 2, 4, dtype=T.float64))))
error_case("gru_cell_hx_dtype", lambda T: T.nn.GRUCell(3, 4)(T.tensor(XC23), T.zeros(2, 4, dtype=T.float64)))
error_case("lstm_cell_hx_dtype", lambda T: T.nn.LSTMCell(3, 4)(T.tensor(XC23), (T.zeros(2, 4, dtype=T.float64),
                                                                                 T.zeros(2, 4))))
error_case("lstm_hx_half", lambda T: T.nn.LSTM(3, 4)(T.tensor(X523), (T.zeros(1, 2, 4, dtype=T.float16), T.zeros(1, 2, 4))))
error_case("lstm_hx_int", lambda T: T.nn.LSTM(3, 4, 2)(T.tensor(X523), (T.zeros(2, 2, 4), T.zeros(2, 2, 4, dtype=T.int64))))
error_case("pad_sequence_not_tensor", lambda T: U(T).pad_sequence([T.ones(2), 3]))
error_case("pad_sequence_list_element", lambda T: U(T).pad_sequence([T.ones(2), [1.0, 2.0]]))
error_case("pad_sequence_padding_value_type", lambda T: U(T).pad_sequence([T.ones(2)], padding_value='a'))
error_case("pad_sequence_padding_side_type", lambda T: U(T).pad_sequence([T.ones(2)], padding_side=3))
case("pack_padded_2d", lambda T: U(T).pack_padded_sequence(T.tensor([[1.5, 2.0], [3.0, -1.0], [0.5, 4.0]]), [3, 1]))
error_case("pack_padded_1d", lambda T: U(T).pack_padded_sequence(T.ones(3), [3]))
case("packed_sequence_ctor", lambda T: U(T).PackedSequence(T.ones(3), T.tensor([2, 1])))
case("packed_sequence_ctor_pair", lambda T: U(T).PackedSequence((T.ones(3), T.tensor([2, 1]))))
case("packed_sequence_ctor_sorted", lambda T: U(T).PackedSequence(T.ones(3), T.tensor([2, 1]), T.tensor([1, 0])))
error_case("packed_sequence_ctor_no_sizes", lambda T: U(T).PackedSequence(T.ones(3)))


# ------------------------------------------------------------------------------------ reduced precision
# float16 with grad mode on never takes torch's oneDNN path; RNN and GRU never do.  (A bfloat16 LSTM, or a float16
# one under no_grad, goes through oneDNN where the CPU has the instructions: not compared here.)
def _run_reduced(T, c, kw, dtype):
    m = getattr(T.nn, c)(3, 4, 2, **kw).to(dtype)
    x = T.tensor(X523, dtype=dtype, requires_grad=True)
    out = m(x)
    _backprop(T, out)
    return {'out': out, 'x_grad': x.grad, 'params': {k: p.grad for k, p in m.named_parameters()}}


for _k, (_cls, _base) in KINDS.items():
    # the backward rounds to float16 after each op in an order of its own: a few half ulps on the gradients
    case(f"fwd_{_k}_float16", lambda T, c=_cls, kw=_base: _run_reduced(T, c, kw, T.float16), rtol=2e-3, atol=1e-3)
    if _k != 'lstm':
        case(f"fwd_{_k}_bfloat16", lambda T, c=_cls, kw=_base: _run_reduced(T, c, kw, T.bfloat16))


# ------------------------------------------------------------------------------------ second derivatives, packed
def _packed_grad2(T, cls, x, h, lengths, es=True, **kw):
    m = getattr(T.nn, cls)(2, 3, **kw)
    p = U(T).pack_padded_sequence(x, lengths, enforce_sorted=es)
    out, hn = m(p, h)
    return U(T).pad_packed_sequence(out)[0], hn


P322 = _data((3, 2, 2), 40)
grad_case("grad2_packed_gru", lambda T, x, h: _packed_grad2(T, 'GRU', x, h, [3, 1]), P322, _data((1, 2, 3), 41),
          order=2)
grad_case("grad2_packed_lstm", lambda T, x, h, c: _packed_grad2(T, 'LSTM', x, (h, c), [2, 3], False), P322,
          _data((1, 2, 3), 41), _data((1, 2, 3), 42), order=2)
grad_case("grad2_packed_lstm_uniform", lambda T, x, h, c: _packed_grad2(T, 'LSTM', x, (h, c), [3, 3]), P322,
          _data((1, 2, 3), 41), _data((1, 2, 3), 42), order=2)
grad_case("grad2_packed_rnn_bidir", lambda T, x, h: _packed_grad2(T, 'RNN', x, h, [3, 2], bidirectional=True), P322,
          _data((2, 2, 3), 43), order=2)
case("rnnbase_direct", lambda T: (repr(T.nn.RNNBase('GRU', 3, 4)), dict(T.nn.RNNBase('LSTM', 3, 4).named_parameters())))
error_case("rnnbase_no_forward", lambda T: T.nn.RNNBase('LSTM', 3, 4)(T.tensor(X523)))
error_case("rnnbase_bad_mode", lambda T: T.nn.RNNBase('ELMAN', 3, 4))
error_case("ctor_layers_float", lambda T: T.nn.LSTM(3, 4, num_layers=2.5))

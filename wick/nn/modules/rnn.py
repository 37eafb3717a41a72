"""RNN, LSTM, GRU and their cells.

torch's CPU path for these is an ATen composite (aten/src/ATen/native/RNN.cpp): per layer and direction the
input gates of the whole sequence are computed at once (linear(x, W_ih, b_ih): (T, B, G)), then a loop over
the time steps applies the cell to each step's gates and the hidden state:

    RNN:  h' = act(linear(h, W_hh, b_hh) + gi)
    LSTM: gates = linear(h, W_hh, b_hh) + gi;  i, f, g, o = gates.chunk(4, 1)  (sigmoid, sigmoid, tanh, sigmoid)
          c' = f * c + i * g;  h' = o * tanh(c')  (then h' @ W_hr^T with proj_size)
    GRU:  r, z, n chunks of gi and gh = linear(h, W_hh, b_hh);  r = sigmoid(gh_r + gi_r), z = sigmoid(gh_z + gi_z)
          n = tanh(gi_n + gh_n * r);  h' = (h - n) * z + n

The step outputs are stacked (a reverse direction runs over the reversed steps and its outputs are put back
in time order, then concatenated with the forward ones on the feature dim); between layers a training-mode
dropout (one Bernoulli draw per element of the layer output, torch's order) feeds the next layer; the final
hidden states of every layer and direction are stacked.  Packed sequences run the same cells over the
shrinking batch of each step.  A float32 LSTM without projections goes through oneDNN in torch
(mkldnn_rnn_layer, one node per layer and direction): here that layer is a custom autograd Function named as
torch's node, whose backward differentiates the same composite (so second derivatives work too)."""
import math
import numbers
import warnings
import weakref

import wick as torch
from ... import _C
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ...autograd.function import Function, BackwardCFunction
from .module import Module

__all__ = ['RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCellBase', 'RNNCell', 'LSTMCell', 'GRUCell']


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def apply_permutation(tensor, permutation, dim=1):
    warnings.warn("`apply_permutation` is deprecated, please use `tensor.index_select(dim, permutation)` instead",
                  FutureWarning, stacklevel=2)
    return _apply_permutation(tensor, permutation, dim)


# ============================================================================================ the cells
class _CellParams:
    """One layer-direction's weights: w_ih (G, I), w_hh (G, H_out), b_ih / b_hh (G) or None, w_hr (P, H) or None."""
    __slots__ = ('w_ih', 'w_hh', 'b_ih', 'b_hh', 'w_hr')

    def __init__(self, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
        self.w_ih, self.w_hh, self.b_ih, self.b_hh, self.w_hr = w_ih, w_hh, b_ih, b_hh, w_hr

    def linear_ih(self, x):
        return F.linear(x, self.w_ih, self.b_ih)

    def linear_hh(self, h):
        return F.linear(h, self.w_hh, self.b_hh)

    def matmul_hr(self, h):
        return h if self.w_hr is None else torch.matmul(h, self.w_hr.t())


def _gather_params(flat, has_biases, has_projections=False):
    """torch's flat weight list -> one _CellParams per layer and direction."""
    per = 2 + (2 if has_biases else 0) + (1 if has_projections else 0)
    out = []
    for k in range(0, len(flat), per):
        w = flat[k:k + per]
        if has_biases:
            out.append(_CellParams(w[0], w[1], w[2], w[3], w[4] if has_projections else None))
        else:
            out.append(_CellParams(w[0], w[1], None, None, w[2] if has_projections else None))
    return out


# Each cell takes gi, the input gates of one step (B, G) already through linear_ih, and the hidden state.
def _tanh_cell(gi, h, p):
    return torch.tanh(p.linear_hh(h) + gi)


def _relu_cell(gi, h, p):
    return torch.relu(p.linear_hh(h) + gi)


def _lstm_cell(gi, hidden, p):
    hx, cx = hidden
    gates = p.linear_hh(hx) + gi                       # (B, 4H): i, f, g, o
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = ingate.sigmoid()
    forgetgate = forgetgate.sigmoid()
    cellgate = cellgate.tanh()
    outgate = outgate.sigmoid()
    cy = forgetgate * cx + ingate * cellgate           # (B, H)
    hy = outgate * cy.tanh()                           # (B, H)
    return p.matmul_hr(hy), cy


def _gru_cell(gi, h, p):
    i_r, i_z, i_n = gi.chunk(3, 1)                     # each (B, H)
    h_r, h_z, h_n = p.linear_hh(h).chunk(3, 1)
    reset_gate = (h_r + i_r).sigmoid()
    input_gate = (h_z + i_z).sigmoid()
    new_gate = (i_n + h_n * reset_gate).tanh()
    return (h - new_gate) * input_gate + new_gate


_CELLS = {'RNN_TANH': _tanh_cell, 'RNN_RELU': _relu_cell, 'LSTM': _lstm_cell, 'GRU': _gru_cell}


def _hout(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _hslice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(t.narrow(0, start, end - start) for t in hidden)
    return hidden.narrow(0, start, end - start)


def _hcat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(torch.cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return torch.cat(hiddens, 0)


# ============================================================================================ the layers
def _full_layer(cell, x, hidden, p, reverse):
    """One direction over a (T, B, I) input: the list of step outputs in time order and the final hidden."""
    steps = list(p.linear_ih(x).unbind(0))             # T tensors (B, G)
    if len(steps) == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    if reverse:
        steps.reverse()
    outs = []
    for gi in steps:
        hidden = cell(gi, hidden, p)
        outs.append(_hout(hidden))
    if reverse:
        outs.reverse()
    return outs, hidden


def _packed_layer(cell, data, batch_sizes, hidden, p):
    """One forward direction over packed data (N, I): output (N, H_out) and the final hidden (B, H) in batch order.
    Sequences that end drop off the tail of the batch; their hidden states are kept aside."""
    gi_all = p.linear_ih(data)
    outs, hiddens = [], []
    offset, last = 0, batch_sizes[0]
    for b in batch_sizes:
        gi = gi_all.narrow(0, offset, b)
        offset += b
        dec = last - b
        if dec > 0:
            hiddens.append(_hslice(hidden, last - dec, last))
            hidden = _hslice(hidden, 0, last - dec)
        last = b
        hidden = cell(gi, hidden, p)
        outs.append(_hout(hidden))
    hiddens.append(hidden)
    hiddens.reverse()
    return torch.cat(outs, 0), _hcat(hiddens)


def _reversed_packed_layer(cell, data, batch_sizes, input_hidden, p):
    """The reverse direction over packed data: starts from the smallest batch and grows it going back in time."""
    gi_all = p.linear_ih(data)
    outs = []
    offset = data.size(0)
    last = batch_sizes[-1]
    hidden = _hslice(input_hidden, 0, last)
    for b in reversed(batch_sizes):
        if b > last:
            hidden = _hcat([hidden, _hslice(input_hidden, last, b)])
        gi = gi_all.narrow(0, offset - b, b)
        offset -= b
        last = b
        hidden = cell(gi, hidden, p)
        outs.append(_hout(hidden))
    outs.reverse()
    return torch.cat(outs, 0), hidden


def _rnn_impl(mode, input, hiddens, params, num_layers, dropout_p, train, bidirectional, batch_sizes=None):
    """The layer stack: (output, [final hidden per layer and direction]).  input is (T, B, I), or packed
    data (N, I) with batch_sizes a list of ints."""
    cell = _CELLS[mode]
    ndir = 2 if bidirectional else 1
    layer_input = input
    finals = []
    for layer in range(num_layers):
        outs = []
        for d in range(ndir):
            idx = layer * ndir + d
            if batch_sizes is None:
                o, h = _full_layer(cell, layer_input, hiddens[idx], params[idx], d == 1)
                outs.append(torch.stack(o, 0))
            elif d == 0:
                o, h = _packed_layer(cell, layer_input, batch_sizes, hiddens[idx], params[idx])
                outs.append(o)
            else:
                o, h = _reversed_packed_layer(cell, layer_input, batch_sizes, hiddens[idx], params[idx])
                outs.append(o)
            finals.append(h)
        layer_input = outs[0] if ndir == 1 else torch.cat(outs, outs[0].dim() - 1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = _C.dropout(layer_input, dropout_p, True)
    return layer_input, finals


def _one_hidden_rnn(mode, input, hx, flat_weights, has_biases, num_layers, dropout_p, train, bidirectional,
                    batch_first=False, batch_sizes=None):
    """torch's rnn_tanh / rnn_relu / gru: (output, h_n)."""
    params = _gather_params(flat_weights, has_biases)
    if batch_sizes is None and batch_first:
        input = input.transpose(0, 1)
    output, finals = _rnn_impl(mode, input, list(hx.unbind(0)), params, num_layers, dropout_p, train, bidirectional,
                               batch_sizes)
    h_n = torch.stack(finals, 0)
    if batch_sizes is None and batch_first:
        output.transpose_(0, 1)
    return output, h_n


class _MkldnnRnnLayer(Function):
    """One LSTM layer-direction as torch's oneDNN op: (x (T, B, I), w_ih, w_hh, b_ih, b_hh, hx (B, H), cx (B, H))
    -> (output (T, B, H), hy, cy).  The forward is the composite of the module; the backward is torch's explicit
    back-propagation through time for this op (recomputed gates, then one step after another from the last),
    written in differentiable ops, so that create_graph / second derivatives work and give torch's graph."""

    @staticmethod
    def forward(ctx, x, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, has_biases):
        ctx.save_for_backward(x, w_ih, w_hh, b_ih, b_hh, hx, cx)
        ctx.reverse = reverse
        p = _CellParams(w_ih, w_hh, b_ih if has_biases else None, b_hh if has_biases else None)
        outs, (hy, cy) = _full_layer(_lstm_cell, x, (hx, cx), p, reverse)
        return torch.stack(outs, 0), hy, cy

    @staticmethod
    def backward(ctx, grad_output, grad_hy, grad_cy):
        x, w_ih, w_hh, b_ih, b_hh, hx, cx = ctx.saved_tensors
        reverse = ctx.reverse
        seq_length = x.size(0)
        # the gates (i, f, g, o) of each step by time index, and the states (h, c) in processing order
        gates = [None] * seq_length
        states = [(hx, cx)]
        h, c = hx, cx
        for seq in range(1, seq_length + 1):
            t = seq_length - seq if reverse else seq - 1
            gate = F.linear(x[t], w_ih, b_ih) + F.linear(h, w_hh, b_hh)   # (B, 4H)
            i, f, g, o = gate.chunk(4, 1)
            i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
            gates[t] = (i, f, g, o)
            c = f * c + i * g
            h = o * c.tanh()
            states.append((h, c))
        dx = [None] * seq_length
        dWx = dWh = db = dprev_h = dprev_c = None
        for seq in range(seq_length - 1, -1, -1):
            t = seq_length - seq - 1 if reverse else seq
            i, f, g, o = gates[t]
            cy = states[seq + 1][1]
            h_prev, c_prev = states[seq]
            new_grad_hy = grad_output[t] + grad_hy
            tanh_cy = cy.tanh()
            d1 = grad_cy + new_grad_hy * o * (1 - tanh_cy * tanh_cy)    # dL/dc_t
            dprev_c = d1 * f
            do_ = new_grad_hy * tanh_cy * o * (1 - o)
            dg = d1 * i * (1 - g * g)
            df = d1 * c_prev * f * (1 - f)
            di = d1 * g * i * (1 - i)
            da = torch.cat([di, df, dg, do_], 1)                       # dL/dgates (B, 4H)
            db_ = da.sum(0)
            dx[t] = torch.matmul(da, w_ih).unsqueeze(0)
            dprev_h = torch.matmul(da, w_hh)
            dWx_ = torch.matmul(da.transpose(0, 1), x[t])
            dWh_ = torch.matmul(da.transpose(0, 1), h_prev)
            if db is None:
                db, dWx, dWh = db_, dWx_, dWh_
            else:
                db, dWx, dWh = db + db_, dWx + dWx_, dWh + dWh_
            grad_hy, grad_cy = dprev_h, dprev_c
        res = (torch.cat(dx, 0), dWx, dWh, db, db, dprev_h, dprev_c)
        return tuple(r if n else None for r, n in zip(res, ctx.needs_input_grad)) + (None, None)


# torch's node for a oneDNN LSTM layer is MkldnnRnnLayerBackward0
_MkldnnRnnLayer._backward_cls = type('MkldnnRnnLayerBackward0', (BackwardCFunction,), {'_forward_cls': _MkldnnRnnLayer})


def _use_mkldnn(input):
    return input.dtype == torch.float32 and input.numel() != 0


def _lstm(input, hx, flat_weights, has_biases, num_layers, dropout_p, train, bidirectional, batch_first=False,
          batch_sizes=None):
    """torch's lstm: (output, h_n, c_n)."""
    has_projections = hx[0].size(2) != hx[1].size(2)
    if batch_sizes is None and _use_mkldnn(input):
        if not has_projections:
            return _lstm_mkldnn(input, hx, flat_weights, has_biases, num_layers, dropout_p, train, bidirectional,
                                batch_first)
        warnings.warn("LSTM with projections is not supported with oneDNN. Using default implementation.",
                      UserWarning, stacklevel=3)
    if batch_sizes is not None and _use_mkldnn(input) and not has_projections and \
            all(b == batch_sizes[0] for b in batch_sizes):
        # packed steps of one batch size are a padded (T, B, I) input to oneDNN, as in torch
        steps = input.view(len(batch_sizes), batch_sizes[0], input.size(1))
        output, h_n, c_n = _lstm_mkldnn(steps, hx, flat_weights, has_biases, num_layers, dropout_p, train,
                                        bidirectional, False)
        return output.view(input.size(0), output.size(2)), h_n, c_n
    params = _gather_params(flat_weights, has_biases, has_projections)
    if batch_sizes is None and batch_first:
        input = input.transpose(0, 1)
    hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    output, finals = _rnn_impl('LSTM', input, hiddens, params, num_layers, dropout_p, train, bidirectional,
                               batch_sizes)
    h_n = torch.stack([h for h, _ in finals], 0)
    c_n = torch.stack([c for _, c in finals], 0)
    if batch_sizes is None and batch_first:
        output = output.transpose(0, 1)
    return output, h_n, c_n


def _lstm_mkldnn(input, hx, flat_weights, has_biases, num_layers, dropout_p, train, bidirectional, batch_first):
    params = _gather_params(flat_weights, has_biases)
    for t in hx:   # oneDNN takes the states' dtype as they come
        if t.dtype in (torch.float16, torch.bfloat16):
            raise RuntimeError("could not create a primitive descriptor for the LSTM forward propagation primitive. "
                               "Run workload with environment variable ONEDNN_VERBOSE=all to get additional "
                               "diagnostic information.")
        if t.dtype != torch.float32:
            raise RuntimeError("get_mkldnn_dtype: unsupported data type")
    if batch_first:
        input = input.transpose(0, 1)
    ndir = 2 if bidirectional else 1
    layer_input = input
    hy, cy = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(ndir):
            idx = layer * ndir + d
            p = params[idx]
            b_ih = p.b_ih if has_biases else torch.zeros(p.w_ih.shape[0], dtype=p.w_ih.dtype)
            b_hh = p.b_hh if has_biases else torch.zeros(p.w_hh.shape[0], dtype=p.w_hh.dtype)
            o, h, c = _MkldnnRnnLayer.apply(layer_input, p.w_ih, p.w_hh, b_ih, b_hh, hx[0][idx], hx[1][idx],
                                            d == 1, has_biases)
            outs.append(o)
            hy.append(h)
            cy.append(c)
        layer_input = outs[0] if ndir == 1 else torch.cat(outs, -1)
        if dropout_p != 0 and train and layer < num_layers - 1:
            layer_input = _C.dropout(layer_input, dropout_p, True)
    output = layer_input.transpose(0, 1) if batch_first else layer_input
    return output, torch.stack(hy, 0), torch.stack(cy, 0)


# ============================================================================================ the modules
class RNNBase(Module):
    """Base class for RNN modules (RNN, LSTM, GRU): parameters, checks and repr."""
    __constants__ = ['mode', 'input_size', 'hidden_size', 'num_layers', 'bias', 'batch_first', 'dropout',
                     'bidirectional', 'proj_size']
    __jit_unused_properties__ = ['all_weights']

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        self._flat_weight_refs = []
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        if mode == 'LSTM':
            gate_size = 4 * hidden_size
        elif mode == 'GRU':
            gate_size = 3 * hidden_size
        elif mode in ('RNN_TANH', 'RNN_RELU'):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(torch.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(torch.empty((gate_size, real_hidden_size), **factory_kwargs))
                b_ih = Parameter(torch.empty(gate_size, **factory_kwargs))
                b_hh = Parameter(torch.empty(gate_size, **factory_kwargs))
                layer_params = (w_ih, w_hh)
                if bias:
                    layer_params += (b_ih, b_hh)
                if proj_size > 0:
                    layer_params += (Parameter(torch.empty((proj_size, hidden_size), **factory_kwargs)),)
                suffix = '_reverse' if direction == 1 else ''
                names = ['weight_ih_l{}{}', 'weight_hh_l{}{}']
                if bias:
                    names += ['bias_ih_l{}{}', 'bias_hh_l{}{}']
                if proj_size > 0:
                    names += ['weight_hr_l{}{}']
                names = [x.format(layer, suffix) for x in names]
                for name, param in zip(names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]
        self.flatten_parameters()

    def __setattr__(self, attr, value):
        if hasattr(self, '_flat_weights_names') and attr in self._flat_weights_names:
            idx = self._flat_weights_names.index(attr)
            self._flat_weights[idx] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """A no-op on CPU (torch packs the weights for cuDNN only)."""
        return

    def _apply(self, fn, recurse=True):
        self._flat_weight_refs = []
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        if input.dtype != self._flat_weights[0].dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({self._flat_weights[0].dtype}). "
                f"Convert input: input.to({self._flat_weights[0].dtype}), or convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg='Expected hidden size {}, got {}'):
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def _weights_have_changed(self):
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if self.proj_size != 0:
            s += ', proj_size={proj_size}'
        if self.num_layers != 1:
            s += ', num_layers={num_layers}'
        if self.bias is not True:
            s += ', bias={bias}'
        if self.batch_first is not False:
            s += ', batch_first={batch_first}'
        if self.dropout != 0:
            s += ', dropout={dropout}'
        if self.bidirectional is not False:
            s += ', bidirectional={bidirectional}'
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        state.pop('_flat_weight_refs', None)
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if 'all_weights' in d:
            self._all_weights = d['all_weights']
        if 'proj_size' not in d:
            self.proj_size = 0
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None for w in self._flat_weights]

    @property
    def all_weights(self):
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _replicate_for_data_parallel(self):
        replica = super()._replicate_for_data_parallel()
        replica._flat_weights = replica._flat_weights[:]
        replica._flat_weights_names = replica._flat_weights_names[:]
        return replica

    # ---- the shared forward of RNN and GRU (one hidden state)
    def _forward_one_hidden(self, input, hx, name, tensor_word):
        self._update_flat_weights()
        num_directions = 2 if self.bidirectional else 1
        orig_input = input
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = torch.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                 dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tensor_word} instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError(
                            f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                hx = torch.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                 dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        bs = None if batch_sizes is None else batch_sizes.tolist()
        output, hidden = _one_hidden_rnn(self.mode, input, hx, self._flat_weights, self.bias, self.num_layers,
                                         self.dropout, self.training, self.bidirectional, self.batch_first, bs)
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class RNN(RNNBase):
    """Elman RNN with tanh or ReLU: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)."""

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop('nonlinearity', 'tanh')
        if self.nonlinearity == 'tanh':
            mode = 'RNN_TANH'
        elif self.nonlinearity == 'relu':
            mode = 'RNN_RELU'
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_one_hidden(input, hx, 'RNN', ' tensor')


class LSTM(RNNBase):
    """Long short-term memory RNN (optionally with projections: proj_size)."""

    def __init__(self, *args, **kwargs):
        super().__init__('LSTM', *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               'Expected hidden[0] size {}, got {}')
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               'Expected hidden[1] size {}, got {}')

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        orig_input = input
        batch_sizes = None
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = (torch.zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                  dtype=input.dtype, device=input.device),
                      torch.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                  dtype=input.dtype, device=input.device))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                hx = (torch.zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                  dtype=input.dtype, device=input.device),
                      torch.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                  dtype=input.dtype, device=input.device))
                self.check_forward_args(input, hx, batch_sizes)
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)
        bs = None if batch_sizes is None else batch_sizes.tolist()
        result = _lstm(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                       self.bidirectional, self.batch_first, bs)
        output = result[0]
        hidden = result[1:]
        if isinstance(orig_input, PackedSequence):
            return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)


class GRU(RNNBase):
    """Gated recurrent unit RNN (gates r, z, n)."""

    def __init__(self, *args, **kwargs):
        if 'proj_size' in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__('GRU', *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_one_hidden(input, hx, 'GRU', '')


# ============================================================================================ the cell modules
def _check_cell_input(input, w_ih):
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {w_ih.size(1)}")


def _check_cell_hidden(input, hx, hidden_size, label):
    if input.size(0) != hx.size(0):
        raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} batch size {hx.size(0)}")
    if hx.size(1) != hidden_size:
        raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got {hx.size(1)}, expected {hidden_size}")


class RNNCellBase(Module):
    __constants__ = ['input_size', 'hidden_size', 'bias']

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter('bias_ih', None)
            self.register_parameter('bias_hh', None)
        self.reset_parameters()

    def extra_repr(self):
        s = '{input_size}, {hidden_size}'
        if 'bias' in self.__dict__ and self.bias is not True:
            s += ', bias={bias}'
        if 'nonlinearity' in self.__dict__ and self.nonlinearity != 'tanh':
            s += ', nonlinearity={nonlinearity}'
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _params(self):
        return _CellParams(self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    __constants__ = ['input_size', 'hidden_size', 'bias', 'nonlinearity']

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity == 'tanh':
            cell = _tanh_cell
        elif self.nonlinearity == 'relu':
            cell = _relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        _check_cell_input(input, self.weight_ih)
        _check_cell_hidden(input, hx, self.weight_hh.size(1), 0)
        p = self._params()
        ret = cell(p.linear_ih(input), hx, p)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    """One step of an LSTM: (h', c') from (h, c)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros, zeros)
        else:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if not is_batched else hx
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        _check_cell_input(input, self.weight_ih)
        hidden_size = self.weight_hh.size(1)
        _check_cell_hidden(input, hx[0], hidden_size, 0)
        _check_cell_hidden(input, hx[1], hidden_size, 1)
        p = self._params()
        ret = _lstm_cell(p.linear_ih(input), (hx[0], hx[1]), p)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """One step of a GRU."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        _check_cell_input(input, self.weight_ih)
        _check_cell_hidden(input, hx, self.weight_hh.size(1), 0)
        p = self._params()
        ret = _gru_cell(p.linear_ih(input), hx, p)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


# ============================================================================================ torch.* functional forms
# torch.rnn_tanh / rnn_relu / gru / lstm and the *_cell ops (what the modules call through torch._VF).  Each
# layer op has two overloads: (input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
# batch_first) and the packed one (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
# bidirectional).
def _layer_op(mode):
    def op(*args):
        if len(args) == 9 and not isinstance(args[3], (list, tuple)):
            input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = args
            batch_sizes = None
        elif len(args) == 9:
            input, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = args
            batch_first = False
            batch_sizes = batch_sizes.tolist()
        else:
            raise TypeError(f"{op.__name__}() takes 9 arguments ({len(args)} given)")
        params = list(params)
        if mode == 'LSTM':
            return _lstm(input, tuple(hx), params, has_biases, num_layers, dropout, train, bidirectional,
                         batch_first, batch_sizes)
        return _one_hidden_rnn(mode, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                               batch_first, batch_sizes)
    op.__name__ = {'RNN_TANH': 'rnn_tanh', 'RNN_RELU': 'rnn_relu', 'LSTM': 'lstm', 'GRU': 'gru'}[mode]
    return op


rnn_tanh = _layer_op('RNN_TANH')
rnn_relu = _layer_op('RNN_RELU')
lstm = _layer_op('LSTM')
gru = _layer_op('GRU')


def _cell_op(name, cell):
    def op(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        _check_cell_input(input, w_ih)
        if cell is _lstm_cell:
            if len(hx) != 2:
                raise RuntimeError("lstm_cell expects two hidden states")
            _check_cell_hidden(input, hx[0], w_hh.size(1), 0)
            _check_cell_hidden(input, hx[1], w_hh.size(1), 1)
            hx = (hx[0], hx[1])
        else:
            _check_cell_hidden(input, hx, w_hh.size(1), 0)
        p = _CellParams(w_ih, w_hh, b_ih, b_hh)
        return cell(p.linear_ih(input), hx, p)
    op.__name__ = name
    return op


rnn_tanh_cell = _cell_op('rnn_tanh_cell', _tanh_cell)
rnn_relu_cell = _cell_op('rnn_relu_cell', _relu_cell)
lstm_cell = _cell_op('lstm_cell', _lstm_cell)
gru_cell = _cell_op('gru_cell', _gru_cell)

"""torch.onnx.export: models traced through wick, checked by the onnx package's checker and run by ONNX Runtime
on fresh inputs (another batch size where the export named a dynamic axis), within float32 tolerance of wick's
own forward, which the parity suite checks against torch. Unsupported ops raise NotImplementedError naming them.
Needs onnx and onnxruntime (tools/install-test-deps.sh installs them); without them these tests are skipped."""
import io

import numpy as np
import pytest

import wick as torch
from wick import nn
import wick.nn.functional as F

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False),
                                      nn.BatchNorm2d(16), nn.ReLU(), nn.AvgPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(16, 10))

    def forward(self, x):
        return F.log_softmax(self.head(self.features(x)), dim=1)


class Block(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = (nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))
                           if stride != 1 or c_in != c_out else None)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = Block(8, 8, 1)
        self.layer2 = Block(8, 16, 2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = self.pool(self.layer2(self.layer1(self.stem(x))))
        return self.fc(torch.flatten(x, 1))


class Recurrent(nn.Module):
    def __init__(self, kind, **kw):
        super().__init__()
        self.rnn = getattr(nn, kind)(6, 5, **kw)
        self.fc = nn.Linear(5 * (2 if kw.get('bidirectional') else 1), 3)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.fc(y), h


class Encoder(nn.Module):
    def __init__(self, norm_first=False, activation='relu'):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1, batch_first=True,
                                           norm_first=norm_first, activation=activation)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.out = nn.Linear(16, 4)

    def forward(self, x):
        return self.out(self.enc(x).mean(dim=1))


class EmbedAttend(nn.Module):
    def __init__(self, batch_first=True):
        super().__init__()
        self.emb = nn.Embedding(20, 12)
        self.pos = nn.Parameter(torch.randn(1, 7, 12) * 0.1)
        self.attn = nn.MultiheadAttention(12, 3, batch_first=batch_first)
        self.norm = nn.LayerNorm(12)
        self.batch_first = batch_first

    def forward(self, tokens):
        x = self.emb(tokens) + self.pos[:, :tokens.shape[1]]
        if not self.batch_first:
            x = x.transpose(0, 1)
        y, w = self.attn(x, x, x)
        if not self.batch_first:
            y = y.transpose(0, 1)
        return self.norm(x.transpose(0, 1) + y if not self.batch_first else x + y), w


class Functional(nn.Module):
    """Functions and methods rather than modules: the tracer's op converters."""
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 4))
        self.b = nn.Parameter(torch.randn(4))

    def forward(self, x):
        h = F.gelu(F.linear(x, self.w.t(), self.b))
        a, b = h.chunk(2, dim=-1)
        h = torch.cat([a.sigmoid() * 2.0, 1 - b.tanh(), (a - b).abs().sqrt()], dim=-1)
        h = h.unsqueeze(1).permute(0, 2, 1).reshape(x.shape[0], -1)
        q = torch.stack([h, h * 0.5], dim=1)
        att = F.scaled_dot_product_attention(q, q, q)
        return F.softmax(att.sum(dim=1) / 3, dim=-1), h[:, 1:5:2].exp().mean(-1, keepdim=True)


def _randn(*shape):
    return torch.randn(*shape)


MODELS = {
    'mlp': (lambda: nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 16), nn.GELU(), nn.Linear(16, 3),
                                  nn.Softmax(dim=-1)), lambda n: (_randn(n, 4),)),
    'cnn': (CNN, lambda n: (_randn(n, 3, 8, 8),)),
    'resnet': (ResNet, lambda n: (_randn(n, 3, 8, 8),)),
    'lstm': (lambda: Recurrent('LSTM', batch_first=True, num_layers=2), lambda n: (_randn(n, 7, 6),)),
    'lstm_bidir': (lambda: Recurrent('LSTM', bidirectional=True), lambda n: (_randn(7, n, 6),)),
    'gru': (lambda: Recurrent('GRU', batch_first=True, num_layers=2, bidirectional=True), lambda n: (_randn(n, 7, 6),)),
    'rnn_relu': (lambda: Recurrent('RNN', nonlinearity='relu', batch_first=True), lambda n: (_randn(n, 7, 6),)),
    'transformer_encoder': (Encoder, lambda n: (_randn(n, 7, 16),)),
    'transformer_encoder_norm_first_gelu': (lambda: Encoder(True, 'gelu'), lambda n: (_randn(n, 7, 16),)),
    'embedding_attention': (EmbedAttend, lambda n: (torch.randint(0, 20, (n, 7)),)),
    'embedding_attention_seq_first': (lambda: EmbedAttend(False), lambda n: (torch.randint(0, 20, (n, 7)),)),
    'functional': (Functional, lambda n: (_randn(n, 6),)),
}
# batch dim of each input (the recurrent model without batch_first has its batch at dim 1)
BATCH_DIM = {'lstm_bidir': 1}


def _export(model, inputs, **kw):
    f = io.BytesIO()
    torch.onnx.export(model, inputs, f, **kw)
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return f.getvalue(), proto


def _flat(out):
    return [out] if isinstance(out, torch.Tensor) else [t for o in out for t in _flat(o)]


def _trained_stats(model, make):
    """A few training steps' worth of batch-norm statistics, so eval mode is not the identity."""
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(*make(6))
    model.eval()


@pytest.mark.parametrize('name', sorted(MODELS))
def test_export_runs_in_onnxruntime(name):
    torch.manual_seed(0)
    build, make = MODELS[name]
    model = build()
    _trained_stats(model, make)
    inputs = make(2)
    n_out = len(_flat(model(*inputs)))
    in_names = [f'in{i}' for i in range(len(inputs))]
    out_names = [f'out{i}' for i in range(n_out)]
    bd = BATCH_DIM.get(name, 0)
    dyn = {n: {bd: 'batch'} for n in in_names}
    data, proto = _export(model, inputs, input_names=in_names, output_names=out_names, dynamic_axes=dyn,
                          opset_version=17 if name == 'mlp' else None)
    assert [i.name for i in proto.graph.input] == in_names and [o.name for o in proto.graph.output] == out_names
    assert proto.graph.input[0].type.tensor_type.shape.dim[bd].dim_param == 'batch'
    sess = ort.InferenceSession(data, providers=['CPUExecutionProvider'])
    for batch in (2, 5):       # the exported batch size, and another one through the dynamic axis
        torch.manual_seed(batch)
        fresh = make(batch)
        with torch.no_grad():
            want = [t.numpy() for t in _flat(model(*fresh))]
        got = sess.run(None, {n: t.numpy() for n, t in zip(in_names, fresh)})
        assert len(got) == len(want)
        for g_, w_ in zip(got, want):
            assert g_.shape == w_.shape and g_.dtype == w_.dtype
            np.testing.assert_allclose(g_, w_, rtol=1e-4, atol=1e-5)
    assert model.training is False   # eval as before the export


def test_export_restores_training_mode_and_params(tmp_path):
    model = CNN()
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    path = tmp_path / 'cnn.onnx'
    torch.onnx.export(model, torch.randn(1, 3, 8, 8), str(path))
    assert model.training and all(m.training for m in model.modules())
    assert all(p.requires_grad for p in model.parameters())
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    # parameters keep their names as initializers; the default input / output names
    inits = {i.name for i in proto.graph.initializer}
    assert {'features.0.weight', 'features.1.running_mean', 'head.2.bias'} <= inits
    assert [i.name for i in proto.graph.input] == ['input'] and [o.name for o in proto.graph.output] == ['output']
    assert proto.opset_import[0].version == 18 and not torch.onnx.is_in_onnx_export()


def test_static_shapes_without_dynamic_axes():
    model = nn.Sequential(nn.Linear(3, 2))
    data, proto = _export(model, (torch.randn(4, 3),))
    assert [d.dim_value for d in proto.graph.output[0].type.tensor_type.shape.dim] == [4, 2]
    sess = ort.InferenceSession(data, providers=['CPUExecutionProvider'])
    x = torch.randn(4, 3)
    np.testing.assert_allclose(sess.run(None, {'input': x.numpy()})[0], model(x).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


class _Cumsum(nn.Module):
    def forward(self, x):
        return x.cumsum(0) * 2


class _Hidden(nn.Module):
    """An op reached through a name the tracer does not wrap (an import held before the export)."""
    def forward(self, x):
        return _held_cumsum(x, 0) + 1


_held_cumsum = torch._C.cumsum if hasattr(torch._C, 'cumsum') else None


def test_unsupported_ops_are_named():
    with pytest.raises(NotImplementedError, match=r"wick\.onnx\.export: the op 'Tensor\.cumsum' is not supported yet"):
        torch.onnx.export(_Cumsum(), torch.randn(3), io.BytesIO())
    with pytest.raises(NotImplementedError, match=r"the op 'cumsum' is not supported yet"):
        torch.onnx.export(lambda x: torch.cumsum(x, 0), torch.randn(3), io.BytesIO())
    if _held_cumsum is not None:
        with pytest.raises(NotImplementedError, match=r"the op behind CumsumBackward0 is not supported yet"):
            torch.onnx.export(_Hidden(), torch.randn(3), io.BytesIO())
    with pytest.raises(NotImplementedError, match=r"BatchNorm2d that uses batch statistics"):
        torch.onnx.export(nn.BatchNorm2d(3, track_running_stats=False), torch.randn(2, 3, 4, 4), io.BytesIO())
    with pytest.raises(NotImplementedError, match=r"layer_norm at opset 16"):
        torch.onnx.export(nn.LayerNorm(4), torch.randn(2, 4), io.BytesIO(), opset_version=16)
    with pytest.raises(ValueError, match=r"opset_version 9 is not supported"):
        torch.onnx.export(nn.Linear(2, 2), torch.randn(1, 2), io.BytesIO(), opset_version=9)
    # after a failed export, nothing stays patched
    assert torch.cumsum(torch.tensor([1.0, 2.0]), 0).tolist() == [1.0, 3.0]
    assert nn.Module.__call__ is nn.Module._call_impl and not torch.onnx.is_in_onnx_export()


class _SetItem(nn.Module):
    def forward(self, x):
        x = x * 2
        x[0] = 1.0
        return x


class _Branch(nn.Module):
    def forward(self, x):
        return x * 2 if x.sum() > 0 else x * 3


class _Compare(nn.Module):
    def forward(self, x):
        return (x == 2).float() + x


def test_untraceable_python_is_refused_or_warned():
    with pytest.raises(NotImplementedError, match=r"the op 'Tensor\.__setitem__' is not supported yet"):
        torch.onnx.export(_SetItem(), torch.randn(3), io.BytesIO())
    with pytest.raises(NotImplementedError, match=r"the op 'Tensor\.__eq__' is not supported yet"):
        torch.onnx.export(_Compare(), torch.randn(3), io.BytesIO())
    with pytest.raises(NotImplementedError, match=r"the op 'Tensor\.__gt__' is not supported yet"):
        torch.onnx.export(_Branch(), torch.randn(3), io.BytesIO())
    with pytest.warns(UserWarning, match=r"Tensor\.item of a traced tensor gives a Python value"):
        torch.onnx.export(lambda x: x * x.sum().item(), torch.randn(3), io.BytesIO())

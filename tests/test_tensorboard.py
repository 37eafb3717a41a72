"""torch.utils.tensorboard: the same calls through wick's SummaryWriter and real torch's, read back with
tensorboard's own reader (EventAccumulator), must give the same scalars, histograms, images, text and hparams.
Needs the tensorboard package (tools/install-test-deps.sh installs it); without it these tests are skipped,
and the parity case tensorboard_import checks the import error."""
import glob
import os

import pytest
import torch

import wick

pytest.importorskip("tensorboard")
pytest.importorskip("PIL")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

SIZE_GUIDANCE = {'scalars': 0, 'histograms': 0, 'images': 0, 'tensors': 0}
W = [[1.5, -2.0, 0.25, 7.0], [3.0, 0.5, -1.25, 1e-3], [0.0, 12.5, -0.75, 2.0]]


def _log(T, logdir):
    from importlib import import_module
    tb = import_module(T.__name__ + '.utils.tensorboard')
    w = tb.SummaryWriter(logdir)
    for step, v in enumerate([0.5, -1.25, T.tensor(2.75), T.tensor([[4.5]], dtype=T.float64)]):
        w.add_scalar('loss/train', v, step)
    w.add_scalar('ns', 3.25, 4, new_style=True)
    w.add_scalar('ns64', 1 / 3, 5, new_style=True, double_precision=True)
    w.add_scalars('run', {'a': 1.5, 'b': T.tensor(-2.0)}, 7)
    w.add_histogram('w', T.tensor(W), 1)
    w.add_histogram('w_bins', T.tensor(W), 2, bins=5)
    w.add_histogram('w_max', T.tensor(W).exp(), 3, max_bins=7)
    w.add_histogram('ints', T.tensor([1, 5, 5, 9]), 4, bins='auto')
    w.add_histogram_raw('raw', 0.0, 4.0, 6, 10.0, 30.0, [1.0, 2.0, 4.0], [1, 2, 3], 5)
    img = (T.arange(2 * 3 * 4, dtype=T.float32).reshape(2, 3, 4) / 23)
    w.add_image('chw', T.stack([img[0], img[1], img[0].flip(0)]), 1)
    w.add_image('hw', img[0], 2, dataformats='HW')
    w.add_image('hwc_u8', (img.permute(1, 2, 0)[:, :, :1] * 200).to(T.uint8), 3, dataformats='HWC')
    w.add_images('nchw', T.stack([T.stack([img[0]] * 3), T.stack([img[1]] * 3), T.stack([1 - img[0]] * 3)]), 4)
    w.add_text('note', 'hello *tensorboard*', 6)
    w.add_hparams({'lr': 0.1, 'bs': 16, 'opt': 'adam', 'flag': True, 't': T.tensor([0.5])},
                  {'hparam/acc': 0.75}, run_name='hp', global_step=3)
    w.flush()
    w.close()
    w.add_scalar('after_close', 1.0, 9)   # a closed writer opens a new event file, as torch's
    w.close()


def _has_plugin(acc, plugin):
    try:
        return bool(acc.PluginTagToContent(plugin))
    except KeyError:
        return False


def _read(logdir):
    """Every run under logdir (relative path -> what tensorboard's reader makes of it)."""
    runs = {}
    for d in sorted({os.path.dirname(f) for f in glob.glob(os.path.join(logdir, '**', 'events.out.tfevents.*'),
                                                               recursive=True)}):
        acc = EventAccumulator(d, size_guidance=SIZE_GUIDANCE)
        acc.Reload()
        tags = acc.Tags()
        run = {'tags': {k: sorted(v) if isinstance(v, list) else v for k, v in tags.items()}}
        run['scalars'] = {t: [(e.step, e.value) for e in acc.Scalars(t)] for t in tags['scalars']}
        run['histograms'] = {t: [(e.step, e.histogram_value) for e in acc.Histograms(t)] for t in tags['histograms']}
        run['images'] = {t: [(e.step, e.width, e.height, e.encoded_image_string) for e in acc.Images(t)]
                         for t in tags['images']}
        run['tensors'] = {t: [(e.step, e.tensor_proto.SerializeToString()) for e in acc.Tensors(t)]
                          for t in tags['tensors']}
        run['plugins'] = {p: acc.PluginTagToContent(p) for p in ('hparams', 'text', 'scalars')
                          if p in tags.get('tensors', []) or _has_plugin(acc, p)}
        runs[os.path.relpath(d, logdir)] = run
    return runs


def test_summary_writer_matches_torch(tmp_path):
    _log(torch, str(tmp_path / 'torch'))
    _log(wick, str(tmp_path / 'wick'))
    ref, got = _read(str(tmp_path / 'torch')), _read(str(tmp_path / 'wick'))
    assert sorted(ref) == ['.', 'hp', 'run_a', 'run_b'] and len(ref['.']['scalars']['loss/train']) == 4
    assert ref['.']['histograms'] and ref['.']['images'] and ref['hp']['plugins']
    assert sorted(got) == sorted(ref)
    for name in ref:
        for key in ref[name]:
            assert got[name][key] == ref[name][key], (name, key)
    # two event files in the main run: the second opened by the add after close()
    assert len(glob.glob(str(tmp_path / 'wick' / 'events.out.tfevents.*'))) == 2


def test_purge_step_and_default_logdir(tmp_path, monkeypatch):
    from wick.utils.tensorboard import SummaryWriter
    w = SummaryWriter(str(tmp_path / 'p'), purge_step=5)
    w.add_scalar('x', 1.0, 6)
    w.close()
    acc = EventAccumulator(str(tmp_path / 'p'))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars('x')] == [(6, 1.0)]
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment='_c') as w:
        assert w.get_logdir().startswith('runs' + os.sep) and w.get_logdir().endswith('_c')
    assert os.path.isdir(w.get_logdir())


def test_errors_as_torch(tmp_path):
    from torch.utils.tensorboard import SummaryWriter as TW
    from wick.utils.tensorboard import SummaryWriter as WW
    for call in (lambda w, T: w.add_scalar('x', T.tensor([1.0, 2.0])),
                 lambda w, T: w.add_hparams([1], {}),
                 lambda w, T: w.add_hparams({'a': [1]}, {}),
                 lambda w, T: w.add_hparams({'a': 1}, {}, hparam_domain_discrete={'a': ['x']}),
                 lambda w, T: w.add_histogram('h', T.zeros(0)),
                 lambda w, T: w.add_histogram_raw('r', 0, 1, 1, 1, 1, [1.0], [1, 2]),
                 lambda w, T: w.add_image('i', T.zeros(3, 2, 2), dataformats='CHWC'),
                 lambda w, T: w.add_image('i', T.zeros(3, 2, 2), dataformats='HW')):
        errs = []
        for W_, T in ((TW, torch), (WW, wick)):
            with W_(str(tmp_path / T.__name__)) as w:
                with pytest.raises(Exception) as e:
                    call(w, T)
                errs.append((type(e.value), ' '.join(str(e.value).split())))
        assert errs[0] == errs[1]


def test_add_graph(tmp_path):
    """add_graph writes the traced graph; tensorboard's reader gets one node per traced op, the input and
    every parameter, with the edges of the forward."""
    from wick.utils.tensorboard import SummaryWriter
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    model = wick.nn.Sequential(wick.nn.Conv2d(1, 2, 3), wick.nn.ReLU(), wick.nn.Flatten(), wick.nn.Linear(8, 3))
    with SummaryWriter(str(tmp_path)) as w:
        w.add_graph(model, wick.zeros(1, 1, 4, 4))
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    g = GraphDef()
    g.ParseFromString(acc.Graph().SerializeToString())
    ops = [n.op for n in g.node]
    assert ops.count('IO Node') == 2 and [o for o in ops if o.startswith('onnx::')] == \
        ['onnx::Conv', 'onnx::Relu', 'onnx::Reshape', 'onnx::Gemm']
    names = {n.name for n in g.node}
    assert {'0.weight', '0.bias', '3.weight', '3.bias'} <= names
    conv = next(n for n in g.node if n.op == 'onnx::Conv')
    assert list(conv.input) == ['input', '0.weight', '0.bias']
    assert all(i in names for n in g.node for i in n.input)
    with pytest.raises(NotImplementedError, match="the op 'Tensor.cumsum' is not supported yet"):
        with SummaryWriter(str(tmp_path / 'x')) as w:
            w.add_graph(_Cumsum(), wick.zeros(3))


class _Cumsum(wick.nn.Module):
    def forward(self, x):
        return x.cumsum(0)

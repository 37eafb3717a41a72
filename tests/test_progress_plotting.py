"""tqdm and matplotlib take wick tensors and DataLoaders as they take torch's: the same progress counts and
the same plotted data. Needs tqdm and matplotlib (tools/install-test-deps.sh installs them); without them
these tests are skipped, each naming the missing package."""
import io

import numpy as np
import pytest
import torch

import wick

W = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.25], [0.75, 2.5, -0.5], [4.0, -3.5, 1.0], [0.1, 0.2, 0.3]]


def _loader(T, **kw):
    ds = T.utils.data.TensorDataset(T.tensor(W), T.tensor([0, 1, 0, 1, 1]))
    return T.utils.data.DataLoader(ds, batch_size=2, **kw)


def test_tqdm_over_dataloader():
    tqdm = pytest.importorskip("tqdm").tqdm
    runs = []
    for T in (torch, wick):
        out = io.StringIO()
        seen = []
        bar = tqdm(_loader(T), file=out, ncols=80, mininterval=0, bar_format='{n_fmt}/{total_fmt} {percentage:3.0f}%')
        for x, y in bar:
            seen.append((x.tolist(), y.tolist()))
            bar.set_postfix(loss=float(x.sum()))
        bar.close()
        runs.append((seen, bar.n, bar.total, out.getvalue().replace('\r', '\n').split('\n')[-2]))
    assert runs[0] == runs[1] and runs[0][1] == 3 and runs[0][3].startswith('3/3 100%')


def test_tqdm_trange_and_tensor_sizes():
    tqdm_mod = pytest.importorskip("tqdm")
    for T in (torch, wick):
        x = T.tensor(W)
        out = io.StringIO()
        rows = [r.sum().item() for r in tqdm_mod.tqdm(x, file=out)]     # iterating a tensor: its rows, len 5
        assert rows == [sum(r) for r in torch.tensor(W).tolist()] or np.allclose(rows, [sum(r) for r in W])
        assert tqdm_mod.tqdm(x, file=out).total == 5
        assert list(tqdm_mod.trange(int(T.tensor(3)), file=out)) == [0, 1, 2]


@pytest.fixture
def plt():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    yield plt
    plt.close('all')


def test_plot_tensors(plt):
    data = []
    for T in (torch, wick):
        fig, ax = plt.subplots()
        t = T.tensor(W)
        losses = [T.tensor(v) for v in (2.5, 1.75, 1.25, 0.5)]              # a loss curve of 0-d tensors
        lines = ax.plot(t[:, 0], t[:, 1]) + ax.plot(losses) + ax.plot(T.arange(4), T.tensor([1, 4, 9, 16]))
        counts, edges, _ = ax.hist(t.reshape(-1), bins=4)
        img = ax.imshow(T.tensor(W).t())
        ax.scatter(t[:, 0], t[:, 2])
        data.append(([ln.get_xydata().tolist() for ln in lines], counts.tolist(), edges.tolist(),
                     np.asarray(img.get_array()).tolist()))
        fig.canvas.draw()
    assert data[0] == data[1]


def test_plot_requires_grad_refused_as_torch(plt):
    msgs = []
    for T in (torch, wick):
        with pytest.raises(RuntimeError) as e:
            plt.plot(T.tensor([1.0, 2.0], requires_grad=True))
        msgs.append(str(e.value))
        plt.plot(T.tensor([1.0, 2.0], requires_grad=True).detach())
    assert msgs[0] == msgs[1]

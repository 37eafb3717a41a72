"""vmap is a batching transform, not a loop (wick/func/_vmap.py, Note [vmap]): the function runs once per vmap
call with BatchedTensor inputs whose shape is the per-sample one; an op without a rule falls back visibly; a batched
tensor that escapes its vmap raises instead of answering with its first entry; nothing is intercepted outside."""
import warnings

import pytest

import wick as torch
from wick.func import vmap, grad
from wick.func import _vmap


def test_function_runs_once_on_batched_inputs():
    seen = []

    def f(x):
        seen.append((type(x).__name__, tuple(x.shape)))
        return x.sin() + x.sum()
    out = vmap(f)(torch.ones(5, 3))
    assert seen == [('BatchedTensor', (3,))]
    assert tuple(out.shape) == (5, 3) and type(out) is torch.Tensor


def test_grad_inside_vmap_runs_once():
    calls = []

    def loss(w, x):
        calls.append(1)
        return (w @ x).tanh().sum()
    g = vmap(grad(loss), in_dims=(None, 0))(torch.ones(2, 3), torch.arange(12.).view(4, 3))
    assert len(calls) == 1 and tuple(g.shape) == (4, 2, 3)


def test_fallback_warns_and_is_right():
    x = torch.arange(12.).view(4, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        out = vmap(lambda t: torch.nn.functional.pdist(t.view(3, 1)))(x)
    assert any('batching rule for aten::pdist' in str(m.message) for m in w)
    ref = torch.stack([torch.nn.functional.pdist(r.view(3, 1)) for r in x])
    assert torch.equal(out, ref)


def test_rules_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        vmap(lambda t: (t @ t.mT).softmax(-1).sum(0).view(-1)[1:])(torch.ones(4, 3, 2))


def test_escaped_batched_tensor_raises():
    kept = []
    vmap(lambda t: kept.append(t) or t * 2)(torch.ones(4, 3))
    with pytest.raises(RuntimeError, match='escaped'):
        kept[0] + 1
    with pytest.raises(RuntimeError):
        kept[0].tolist()


def test_no_batching_state_left():
    vmap(vmap(lambda t: t * 2))(torch.ones(2, 3, 4))
    assert _vmap._levels == []
    assert torch.equal(torch.ones(3) * 2, torch.full((3,), 2.0))


def test_transform_inside_vmap_falls_back_to_loop():
    # vjp has no batched form yet: the vmap reruns as its loop and stays right
    def f(x):
        _, fn = torch.func.vjp(torch.sin, x)
        return fn(torch.ones_like(x))[0]
    x = torch.arange(6.).view(2, 3)
    assert torch.allclose(vmap(f)(x), x.cos())

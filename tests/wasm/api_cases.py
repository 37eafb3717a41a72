"""The JS API's own cases: each is one expression written twice, in Python against torch and in JS against the
wick JS API (`w`), side by side. `python3 tests/wasm/api_cases.py` evaluates the Python spelling with real torch
and pins what it gives (captured as the parity suite captures, tests/parity/capture.py) into api_cases.json;
tests/wasm/test_js.mjs runs the JS spelling and compares. Values are never typed by hand."""
import json
import os
import sys

CASES = [
    # (name, torch expression, JS expression)
    ("from_typed_f32", "torch.tensor([[1., 2., 3.], [4., 5., 6.]])", "w.Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3])"),
    ("from_typed_f64", "torch.tensor([0.1, 0.2], dtype=torch.float64)", "w.Tensor.from(new Float64Array([0.1, 0.2]))"),
    ("from_typed_i32", "torch.tensor([1, -2, 3], dtype=torch.int32)", "w.Tensor.from(new Int32Array([1, -2, 3]))"),
    ("from_nested_int", "torch.tensor([[1, 2], [3, 4]])", "w.tensor([[1, 2], [3, 4]])"),
    ("from_nested_float", "torch.tensor([[1.5, 2], [3, 4]])", "w.tensor([[1.5, 2], [3, 4]])"),
    ("from_bool", "torch.tensor([True, False, True])", "w.tensor([true, false, true])"),
    ("from_dtype_f16", "torch.tensor([1.1, 2.2, 65504.0], dtype=torch.float16)", "w.Tensor.from([1.1, 2.2, 65504], [3], {dtype: 'float16'})"),
    ("from_dtype_bf16", "torch.tensor([1.1, -3.3], dtype=torch.bfloat16)", "w.tensor([1.1, -3.3], {dtype: 'bfloat16'})"),
    ("from_scalar", "torch.tensor(2.5)", "w.tensor(2.5)"),
    ("from_reshape", "torch.tensor([1, 2, 3, 4, 5, 6], dtype=torch.float32).reshape(3, 2)", "w.Tensor.from([1, 2, 3, 4, 5, 6], [3, 2], {dtype: 'float32'})"),
    ("ragged", "torch.tensor([[1, 2], [3]])", "w.tensor([[1, 2], [3]])"),
    ("bad_shape", "torch.tensor([1., 2., 3.]).view(2, 2)", "w.Tensor.from(new Float32Array([1, 2, 3]), [2, 2])"),
    ("add_alpha", "torch.add(torch.tensor([1., 2.]), torch.tensor([10., 20.]), alpha=2)", "w.add(w.tensor([1, 2], {dtype: 'float32'}), w.tensor([10, 20], {dtype: 'float32'}), {alpha: 2})"),
    ("add_number", "torch.add(torch.tensor([1, 2], dtype=torch.int32), 2.5)", "w.add(w.tensor([1, 2], {dtype: 'int32'}), 2.5)"),
    ("add_int_number", "torch.tensor([1, 2], dtype=torch.int32).add(3)", "w.tensor([1, 2], {dtype: 'int32'}).add(3)"),
    ("add_float_two", "torch.tensor([1, 2], dtype=torch.int32).add(2.0)", "w.tensor([1, 2], {dtype: 'int32'}).add(w.f(2))"),
    ("mul_method", "torch.tensor([[1., 2.], [3., 4.]]).mul(torch.tensor([2., 3.]))", "w.tensor([[1.5, 2], [3, 4]]).sub(w.tensor([[0.5, 0], [0, 0]])).mul(w.tensor([2, 3], {dtype: 'float32'}))"),
    ("log_softmax", "torch.tensor([[1., 2., 3.], [1., 1., 1.]]).log_softmax(1)", "w.tensor([[1, 2, 3], [1, 1, 1]], {dtype: 'float32'}).logSoftmax(1)"),
    ("softmax_fn", "torch.softmax(torch.tensor([0.5, 1.5, -1.]), 0)", "w.softmax(w.tensor([0.5, 1.5, -1]), 0)"),
    ("sum_keepdim", "torch.tensor([[1., 2.], [3., 4.]]).sum(1, keepdim=True)", "w.tensor([[1, 2], [3, 4]], {dtype: 'float32'}).sum(1, {keepdim: true})"),
    ("sum_dims", "torch.tensor([[1, 2], [3, 4]]).sum([0, 1])", "w.tensor([[1, 2], [3, 4]]).sum([0, 1])"),
    ("sum_dtype", "torch.tensor([1, 2, 3]).sum(dtype=torch.float64)", "w.tensor([1, 2, 3]).sum({dtype: 'float64'})"),
    ("view_varargs", "torch.arange(6).view(3, 2)", "w.arange(6).view(3, 2)"),
    ("view_list", "torch.arange(6).view([2, 3])", "w.arange(6).view([2, 3])"),
    ("zeros_varargs", "torch.zeros(2, 3, dtype=torch.int16)", "w.zeros(2, 3, {dtype: 'int16'})"),
    ("max_dim", "torch.max(torch.tensor([[1., 5., 2.], [7., 0., 3.]]), 1)", "w.max(w.tensor([[1, 5, 2], [7, 0, 3]], {dtype: 'float32'}), 1)"),
    ("matmul", "torch.tensor([[1., 2.], [3., 4.]]) @ torch.tensor([[0.5], [-1.]])", "w.matmul(w.tensor([[1, 2], [3, 4]], {dtype: 'float32'}), w.tensor([[0.5], [-1]]))"),
    ("mm_error", "torch.mm(torch.ones(2, 3), torch.ones(2, 3))", "w.mm(w.ones(2, 3), w.ones(2, 3))"),
    ("dim_error", "torch.ones(2, 3).sum(5)", "w.ones(2, 3).sum(5)"),
    ("split", "torch.arange(5).split(2)", "w.arange(5).split(2)"),
    ("cat", "torch.cat([torch.ones(1, 2), torch.zeros(1, 2)], 0)", "w.cat([w.ones(1, 2), w.zeros(1, 2)], 0)"),
    ("where", "torch.where(torch.tensor([True, False]), torch.tensor([1., 2.]), torch.tensor([3., 4.]))", "w.where(w.tensor([true, false]), w.tensor([1.5, 2]), w.tensor([3, 4], {dtype: 'float32'})).sub(w.tensor([0.5, 0]))"),
    ("clamp_kw", "torch.tensor([-2., 0.5, 3.]).clamp(min=-1., max=1.)", "w.tensor([-2, 0.5, 3]).clamp({min: -1, max: 1})"),
    ("inplace_add", "torch.ones(2).add_(torch.tensor([1., 2.]))", "w.ones(2).add_(w.tensor([1, 2], {dtype: 'float32'}))"),
    ("out_variant", "torch.add(torch.ones(2), torch.ones(2), out=torch.zeros(2))", "w.add(w.ones(2), w.ones(2), {out: w.zeros(2)})"),
    ("randn_seed", "(torch.manual_seed(0), torch.randn(4))[1]", "(w.manualSeed(0), w.randn(4))"),
    ("rand_generator", "torch.rand(3, generator=torch.Generator().manual_seed(7))", "w.rand(3, {generator: new w.Generator().manualSeed(7)})"),
    ("grad_square", "(lambda x: ((x * x).sum().backward(), x.grad)[1])(torch.tensor([1., -2., 3.], requires_grad=True))", "((x) => { x.mul(x).sum().backward(); return x.grad; })(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ("grad_fn_result", "torch.tensor([1., 2.], requires_grad=True).exp()", "w.tensor([1, 2], {dtype: 'float32', requiresGrad: true}).exp()"),
    ("no_grad", "(lambda x: (torch.set_grad_enabled(False), x.exp(), torch.set_grad_enabled(True))[1])(torch.tensor([1., 2.], requires_grad=True))", "w.noGrad(() => w.tensor([1, 2], {dtype: 'float32', requiresGrad: true}).exp())"),
    ("item_float", "torch.tensor([2.5]).item()", "w.tensor([2.5]).item()"),
    ("item_int", "torch.tensor([7]).sum().item()", "w.tensor([7]).sum().item()"),
    ("item_bool", "torch.tensor(True).item()", "w.tensor(true).item()"),
    ("linalg_det", "torch.linalg.det(torch.tensor([[1., 2.], [3., 4.]]))", "w.linalg.det(w.tensor([[1, 2], [3, 4]], {dtype: 'float32'}))"),
    ("linalg_error", "torch.linalg.inv(torch.tensor([[1., 2.], [2., 4.]]))", "w.linalg.inv(w.tensor([[1, 2], [2, 4]], {dtype: 'float32'}))"),
    ("nn_linear", "torch._C._nn.linear(torch.tensor([[1., 2.]]), torch.tensor([[0.5, -1.], [2., 1.]]), torch.tensor([0.25, 0.]))", "w._nn.linear(w.tensor([[1, 2]], {dtype: 'float32'}), w.tensor([[0.5, -1], [2, 1]]), w.tensor([0.25, 0], {dtype: 'float32'}))"),
    ("bad_kwarg_type", "torch.ones(2).sum(keepdim=1)", "w.ones(2).sum({keepdim: 1})"),
    # the engine (runBackward / grad) and hooks
    ('autograd_grad', '(lambda x: list(torch.autograd.grad([(x * x * x).sum()], [x])))(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => w.grad([x.mul(x).mul(x).sum()], [x]))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('autograd_grad_leaves_grad', '(lambda x: (torch.autograd.grad([(x * x).sum()], [x]), x.grad)[1])(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => (w.grad([x.mul(x).sum()], [x]), x.grad))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('autograd_grad_create_graph', '(lambda x: list(torch.autograd.grad([torch.autograd.grad([(x * x * x).sum()], [x], create_graph=True)[0].sum()], [x])))(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => w.grad([w.grad([x.mul(x).mul(x).sum()], [x], null, {createGraph: true})[0].sum()], [x]))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('autograd_grad_outputs', '(lambda x: list(torch.autograd.grad([x * 2], [x], [torch.tensor([1., 10., 100.])])))(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => w.grad([x.mul(2)], [x], [w.tensor([1, 10, 100], {dtype: 'float32'})]))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('autograd_grad_allow_unused', '(lambda x, y: list(torch.autograd.grad([(x * 2).sum()], [x, y], allow_unused=True)))(torch.tensor([1., -2., 3.], requires_grad=True), torch.tensor([0.5, 4., -1.], requires_grad=True))', "((x, y) => w.grad([x.mul(2).sum()], [x, y], null, {allowUnused: true}))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}), w.tensor([0.5, 4, -1], {dtype: 'float32', requiresGrad: true}))"),
    ('autograd_grad_unused_error', '(lambda x, y: torch.autograd.grad([(x * 2).sum()], [x, y]))(torch.tensor([1., -2., 3.], requires_grad=True), torch.tensor([0.5, 4., -1.], requires_grad=True))', "((x, y) => w.grad([x.mul(2).sum()], [x, y]))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}), w.tensor([0.5, 4, -1], {dtype: 'float32', requiresGrad: true}))"),
    ('backward_two_roots', '(lambda x: (torch.autograd.backward([(x * x).sum(), (x * 3).sum()]), x.grad)[1])(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => (w.runBackward([x.mul(x).sum(), x.mul(3).sum()]), x.grad))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('backward_inputs', '(lambda x, y: ((x * y).sum().backward(inputs=[x]), [x.grad, y.grad])[1])(torch.tensor([1., -2., 3.], requires_grad=True), torch.tensor([0.5, 4., -1.], requires_grad=True))', "((x, y) => (x.mul(y).sum().backward(null, {inputs: [x]}), [x.grad, y.grad]))(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}), w.tensor([0.5, 4, -1], {dtype: 'float32', requiresGrad: true}))"),
    ('retain_grad', '(lambda x: (lambda h: (h.retain_grad(), (h * h).sum().backward(), [h.retains_grad, h.grad])[2])(x * 2))(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => { const h = x.mul(2); h.retainGrad(); h.mul(h).sum().backward(); return [h.retainsGrad, h.grad]; })(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('hook_replaces_grad', '(lambda x: (x.register_hook(lambda g: g * 10), (x * x).sum().backward(), x.grad)[2])(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => { x.registerHook((g) => g.mul(10)); x.mul(x).sum().backward(); return x.grad; })(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('hook_removed', '(lambda x: (x.register_hook(lambda g: g * 10).remove(), (x * x).sum().backward(), x.grad)[2])(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => { x.removeHook(x.registerHook((g) => g.mul(10))); x.mul(x).sum().backward(); return x.grad; })(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('hook_changes_size', '(lambda x: (x.register_hook(lambda g: g.sum()), (x * x).sum().backward())[1])(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => { x.registerHook((g) => g.sum(), '<lambda>'); x.mul(x).sum().backward(); })(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    ('hook_changes_dtype', '(lambda x: (x.register_hook(lambda g: g.double()), (x * x).sum().backward())[1])(torch.tensor([1., -2., 3.], requires_grad=True))', "((x) => { x.registerHook((g) => g.double(), '<lambda>'); x.mul(x).sum().backward(); })(w.tensor([1, -2, 3], {dtype: 'float32', requiresGrad: true}))"),
    # generator state, storage offset, the version counter, .data
    ("generator_state", "torch.Generator().manual_seed(3).get_state()[:16]", "new w.Generator().manualSeed(3).getState().get(w.slice(0, 16))"),
    ("generator_set_state", "(lambda g: (lambda s: (torch.rand(2, generator=g), g.set_state(s), torch.rand(2, generator=g))[2])(g.get_state()))(torch.Generator().manual_seed(5))", "((g) => { const s = g.getState(); w.rand(2, {generator: g}); g.setState(s); return w.rand(2, {generator: g}); })(new w.Generator().manualSeed(5))"),
    ("storage_offset", "torch.arange(12).view(3, 4)[1:, 2:].storage_offset()", "w.arange(12).view(3, 4).get(w.slice(1, null), w.slice(2, null)).storageOffset()"),
    ("version_counter", "(lambda x: (x.add_(1), x.view(6).mul_(2), x._version)[2])(torch.zeros(2, 3))", "((x) => (x.add_(1), x.view(6).mul_(2), x.version))(w.zeros(2, 3))"),
    ("data_own_version", "(lambda x: (x.data.add_(1), x._version)[1])(torch.zeros(2, requires_grad=True))", "((x) => (x.data.add_(1), x.version))(w.zeros(2, {requiresGrad: true}))"),
]
# print cases: torch's repr, character for character
REPRS = [
    ("repr_2d", "torch.tensor([[1., 2., 3.], [4., 5., 6.]])", "w.Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3])"),
    ("repr_int", "torch.tensor([1, 200, -3])", "w.tensor([1, 200, -3])"),
    ("repr_f64", "torch.tensor([0.1, 1e10], dtype=torch.float64)", "w.tensor([0.1, 1e10], {dtype: 'float64'})"),
    ("repr_grad", "torch.tensor([1., 2.], requires_grad=True) * 2", "w.tensor([1, 2], {dtype: 'float32', requiresGrad: true}).mul(2)"),
    ("repr_half", "torch.tensor([1.1, 2.2], dtype=torch.float16)", "w.tensor([1.1, 2.2], {dtype: 'float16'})"),
    ("repr_bool", "torch.tensor([True, False])", "w.tensor([true, false])"),
    ("repr_empty", "torch.zeros(0, 3)", "w.zeros(0, 3)"),
]


def pin(path):
    import torch  # noqa: F401
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..'))
    from tests.parity.capture import Capturer, capture_exception
    cap = Capturer(torch)
    out = {"torch": torch.__version__, "cases": [], "reprs": []}
    for name, py, js in CASES:
        env = {"torch": torch}
        try:
            torch.manual_seed(12345)
            v = eval(py, env)
            outcome = {"ok": cap(v)}
        except Exception as e:  # noqa: BLE001 -- the exception is the expected outcome
            outcome = {"raised": capture_exception(e)}
        out["cases"].append({"name": name, "py": py, "js": js, "outcome": outcome})
    for name, py, js in REPRS:
        out["reprs"].append({"name": name, "py": py, "js": js, "repr": repr(eval(py, {"torch": torch}))})
    with open(path, 'w') as fh:
        json.dump(out, fh, indent=1)
        fh.write('\n')
    print('pinned %d cases and %d reprs with torch %s into %s' % (len(CASES), len(REPRS), torch.__version__, path))


if __name__ == '__main__':
    pin(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'api_cases.json'))

"""The WebGPU device, step 1 (issue 20; src/webgpu/device.c): wgpu-native loaded at run time, an adapter and a
device, and the device's memory through its table (alloc/free with the pool, host<->device and device<->device
copies at any byte offset, fill), checked byte for byte against tensors made by real torch. On CI the adapter is
lavapipe (tools/install-test-deps.sh installs wgpu==0.32.0 and mesa-vulkan-drivers); where wgpu-native or an
adapter is missing the device tests skip with the reason, and the unavailable path is tested everywhere."""
import os
import subprocess
import sys

import pytest
import torch

import wick
import wick.webgpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

needs_device = pytest.mark.skipif(not wick.webgpu.is_available(),
                                  reason='webgpu: ' + wick.webgpu.unavailable_reason())


def _run(code, **env):
    p = subprocess.run([sys.executable, '-c', code], cwd=ROOT, env=dict(os.environ, **env), capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@needs_device
def test_is_available_and_adapter_name():
    assert wick.webgpu.is_available() is True
    assert wick.webgpu.unavailable_reason() == ''
    assert wick.webgpu.device_count() == 1
    name = wick.webgpu.get_device_name()
    assert isinstance(name, str) and name
    if 'llvmpipe' in name:  # lavapipe, as on CI: a Vulkan adapter
        assert wick.webgpu._backend() == 'Vulkan'
    assert wick.webgpu.get_device_name(0) == name


def _same_bytes(t, r):
    assert r.dtype == wick.__dict__[str(t.dtype).split('.')[1]]
    assert tuple(r.shape) == tuple(t.shape)
    assert r.numpy().tobytes() == t.numpy().tobytes()


SHAPES = [(), (1,), (3,), (7, 5), (2, 3, 4), (64, 129), (1000, 3)]
DTYPES = ['float32', 'float64', 'float16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool']


@needs_device
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES, ids=str)
def test_round_trip_byte_exact(shape, dtype):
    g = torch.Generator().manual_seed(hash((shape, dtype)) % 1000)
    t = (torch.randn(shape, generator=g) * 100).to(getattr(torch, dtype))
    w = wick.from_numpy(t.numpy().copy())
    _same_bytes(t, wick._C._webgpu_roundtrip(w))


@needs_device
@pytest.mark.parametrize('offset', [0, 1, 2, 3, 4, 5, 255, 256, 257])
@pytest.mark.parametrize('hops', [1, 2, 3])
def test_round_trip_at_offsets_and_device_copies(offset, hops):
    # unaligned offsets take the read-patch-write path, unaligned device copies go through the host
    for n in (1, 2, 3, 5, 8, 1023):
        t = torch.arange(n, dtype=torch.int32).to(torch.uint8)
        _same_bytes(t, wick._C._webgpu_roundtrip(wick.from_numpy(t.numpy().copy()), offset, hops))
    t = torch.linspace(-3, 3, 777)
    _same_bytes(t, wick._C._webgpu_roundtrip(wick.from_numpy(t.numpy().copy()), offset, hops))


@needs_device
@pytest.mark.parametrize('value,dtype', [(0.0, 'float32'), (1.5, 'float32'), (-2.25, 'float64'), (7, 'int16'),
                                         (0, 'int64'), (True, 'bool'), (255, 'uint8'), (3, 'int8')])
@pytest.mark.parametrize('count', [0, 1, 3, 17, 4096])
@pytest.mark.parametrize('offset', [0, 1, 4])
def test_fill(value, dtype, count, offset):
    expect = torch.full((count,), value, dtype=getattr(torch, dtype)).numpy().tobytes()
    elem = torch.full((1,), value, dtype=getattr(torch, dtype)).numpy().tobytes()
    got = wick._C._webgpu_fill(count, elem, offset)
    assert got == bytes(offset) + expect


@needs_device
def test_pool_reuses_and_large_buffers():
    # many allocations of a few sizes come from the pool; a 64 MiB buffer round-trips too
    t = torch.arange(16 << 20, dtype=torch.float32)
    _same_bytes(t, wick._C._webgpu_roundtrip(wick.from_numpy(t.numpy().copy()), 0, 2))
    small = torch.arange(100, dtype=torch.float32)
    ws = wick.from_numpy(small.numpy().copy())
    for _ in range(200):
        _same_bytes(small, wick._C._webgpu_roundtrip(ws, 0, 3))


@needs_device
def test_pool_no_leak_and_reuse():
    wick.webgpu.synchronize()
    t = torch.arange(1000, dtype=torch.float32)
    w = wick.from_numpy(t.numpy().copy())
    _same_bytes(t, wick._C._webgpu_roundtrip(w, 0, 3))  # warms the pool: 3 blocks of the 4096-byte bucket
    allocated, reserved, made, live = wick._C._webgpu_memory()
    assert live == 0 and allocated == 0 == wick.webgpu.memory_allocated()
    assert reserved == wick.webgpu.memory_reserved() >= 3 * 4096
    for _ in range(1000):
        wick._C._webgpu_roundtrip(w, 0, 3)
    assert wick._C._webgpu_memory() == (0, reserved, made, 0)  # no leak, and no new buffer: all from the pool
    wick.webgpu.synchronize()


def test_unavailable_when_library_missing():
    out = _run('import wick, wick.webgpu as w; print(w.is_available()); print(w.device_count()); '
               'print(w.unavailable_reason())\n'
               'try:\n    w.get_device_name()\nexcept RuntimeError as e:\n    print("RuntimeError:", e)\n'
               'print((wick.ones(3) * 2).sum().item()); print(w.memory_allocated(), w.memory_reserved())\n'
               'try:\n    w.synchronize()\nexcept RuntimeError as e:\n    print("RuntimeError:", e)',
               WICK_WGPU_LIB='/nonexistent/libwgpu_native-release.so')
    lines = out.splitlines()
    assert lines[0] == 'False' and lines[1] == '0', out
    assert lines[2].startswith('wgpu-native could not be loaded (/nonexistent/libwgpu_native-release.so): '), out
    assert 'pip install wgpu==0.32.0' in lines[2], out
    assert lines[3] == 'RuntimeError: webgpu is not available: ' + lines[2], out
    assert lines[4] == '6.0', out  # nothing else changes
    assert lines[5] == '0 0' and lines[6] == lines[3], out


def test_unavailable_when_library_is_not_wgpu():
    # a real shared library without the WebGPU API: a clear reason, no crash
    libm = subprocess.run([sys.executable, '-c', 'import ctypes.util; print(ctypes.util.find_library("m"))'],
                          capture_output=True, text=True).stdout.strip()
    out = _run('import wick.webgpu as w; print(w.is_available()); print(w.unavailable_reason())', WICK_WGPU_LIB=libm)
    assert out.splitlines()[0] == 'False', out
    assert 'has no wgpuCreateInstance' in out, out


def test_hooks_refuse_when_unavailable():
    out = _run('import wick\n'
               'try:\n    wick._C._webgpu_fill(1, b"x")\nexcept RuntimeError as e:\n    print("RuntimeError:", e)',
               WICK_WGPU_LIB='/nonexistent/x.so')
    assert out.startswith('RuntimeError: webgpu is not available: wgpu-native could not be loaded'), out


# ---- step 2 (issue 20): Python tensors on 'webgpu' ----
# Audit of the host reads (Note [Host reads], src/core/host.h), each covered below:
#   pyext/tensor_methods.c tolist -> wk__host_tensor;  item / __bool__ / __float__ / __int__ / __index__ and
#   argparse.c's 1-element tensor taken as a Scalar -> wk_item (src/core/tensor.c) -> wk__host_tensor;
#   pyext/tensor_type.c repr/str -> wk_repr (src/ops/print.c) -> wk__host_tensor;
#   pyext/storage.c _storage_bytes (torch.save) -> copy_to_host, _contiguous_bytes -> wk_copy_to_buffer -> wk__copy_
#   (cross-device through the host), _numpy_interface -> torch's TypeError for a device tensor;
#   wick/_tensor.py numpy()/__array__ -> that TypeError first, numpy(force=True) -> .cpu();
#   wick/serialization.py -> _storage_bytes + the 'webgpu:0' location tag; convert.c's tensor() writes a fresh
#   host tensor, then moves it. data_ptr() returns the device address without reading it (as torch's for cuda).
import io
import mmap
from unittest import mock

import numpy as np

WG = 'webgpu'


class _FakeDevice:
    """What torch's printing reads of a device: for the expected repr of a device tensor, torch formats a CPU tensor
    whose .device claims to be webgpu:0 (torch's Note [Print tensor device] adds device='...' first)."""
    type = 'webgpu'
    index = 0

    def __str__(self):
        return 'webgpu:0'


def torch_repr_on_webgpu(t):
    with mock.patch.object(torch.Tensor, 'device', property(lambda s: _FakeDevice())):
        return repr(t)


def _torch_text(prefix):
    """A message literal as torch 2.13 ships it (its cuda wording, read out of libtorch_cpu.so): no CUDA here."""
    lib = os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch_cpu.so')
    with open(lib, 'rb') as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        i = m.find(prefix.encode())
        assert i >= 0, prefix
        return m[i:m.find(b'\0', i)].decode()


def W(t):
    """wick's copy of a torch CPU tensor (same bytes)."""
    return wick.from_numpy(t.numpy().copy())


VALUES = [[1.5, -2.25, 3.0], [0.0, 1e-3, -7.5]]


@needs_device
def test_device_objects_and_properties():
    x = wick.ones(2, 3, device=WG)
    # torch's cuda:0 forms with the device name substituted
    assert repr(x.device) == repr(torch.device('cuda', 0)).replace('cuda', 'webgpu')
    assert str(x.device) == 'webgpu:0' and x.device == wick.device('webgpu', 0) == wick.device('webgpu:0')
    assert repr(wick.device('webgpu')) == repr(torch.device('cuda')).replace('cuda', 'webgpu')
    assert x.is_cpu is False and x.get_device() == 0
    c = x.cpu()
    assert c.is_cpu is True and c.device == wick.device('cpu') and c.get_device() == -1
    assert x.shape == (2, 3) and x.stride() == (3, 1) and x.dtype == wick.float32


@needs_device
@pytest.mark.parametrize('make', [
    lambda T, **k: T.zeros(2, 3, **k), lambda T, **k: T.ones(4, dtype=T.int32, **k),
    lambda T, **k: T.full((3, 2), -2.5, **k), lambda T, **k: T.full((2,), 7, dtype=T.int16, **k),
    lambda T, **k: T.arange(6, **k), lambda T, **k: T.arange(1.5, 4, 0.5, **k),
    lambda T, **k: T.tensor(VALUES, **k), lambda T, **k: T.tensor([[1, 2], [3, 4]], dtype=T.uint8, **k),
    lambda T, **k: T.tensor([True, False], **k), lambda T, **k: T.tensor(2.5, **k),
    lambda T, **k: T.as_tensor([1.0, 2.0], dtype=T.float64, **k), lambda T, **k: T.linspace(0, 1, 5, **k),
    lambda T, **k: T.eye(3, **k), lambda T, **k: T.zeros(0, 3, **k)], ids=str)
@pytest.mark.parametrize('dev', ['webgpu', 'webgpu:0', 'device'])
def test_factories_on_device(make, dev):
    d = wick.device('webgpu') if dev == 'device' else dev
    w = make(wick, device=d)
    t = make(torch)
    assert str(w.device) == 'webgpu:0'
    assert tuple(w.shape) == tuple(t.shape) and str(w.dtype) == str(t.dtype)
    assert w.tolist() == t.tolist()
    assert repr(w) == torch_repr_on_webgpu(t)


@needs_device
def test_factory_requires_grad_on_device():
    w = wick.full((2,), 1.5, device=WG, requires_grad=True)
    t = torch.full((2,), 1.5, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None and str(w.device) == 'webgpu:0'
    assert repr(w) == torch_repr_on_webgpu(t)
    with pytest.raises(RuntimeError) as e:
        wick.zeros(2, dtype=wick.int64, device=WG, requires_grad=True)
    with pytest.raises(RuntimeError) as te:
        torch.zeros(2, dtype=torch.int64, requires_grad=True)
    assert str(e.value) == str(te.value)


GEN = torch.Generator().manual_seed(20)
TENSORS = [torch.randn(3, 4, generator=GEN), torch.randn(5, generator=GEN).double(),
           (torch.randn(2, 3, 4, generator=GEN) * 50).to(torch.int64), torch.randn(4, 4, generator=GEN) > 0,
           torch.randn(3, 2, generator=GEN).half(), (torch.randn(6, generator=GEN) * 9).to(torch.int8),
           torch.tensor(3.25), torch.tensor(-4), torch.zeros(0), torch.zeros(2, 0, 3),
           torch.arange(1200.).reshape(12, 100), torch.tensor([1e-8, 1e8, float('nan'), float('inf')])]


def _views(t):  # (name, torch-side view fn): non-contiguous inputs (transposed, stepped, expanded), 0-d, empty
    out = [('id', lambda x: x)]
    if t.dim() >= 2:
        out += [('t', lambda x: x.transpose(0, 1)), ('step', lambda x: x[::2, 1:])]
    if t.dim() == 1 and t.numel() > 0:
        out += [('expand', lambda x: x[:1].expand(3, 2)), ('rev-step', lambda x: x[1::2])]
    return out


@needs_device
@pytest.mark.parametrize('i', range(len(TENSORS)))
def test_host_reads_of_device_tensors(i):
    t = TENSORS[i]
    for name, f in _views(t):
        tv = f(t)
        g = W(t).to(WG)
        gv = f(g)
        assert str(gv.device) == 'webgpu:0', name
        assert gv.tolist() == tv.tolist() or (np.isnan(tv.numpy()).any() and
                                              np.array_equal(np.array(gv.tolist()), tv.numpy(), equal_nan=True)), name
        assert repr(gv) == torch_repr_on_webgpu(tv), name
        assert str(gv) == torch_repr_on_webgpu(tv), name
        back = gv.cpu()
        assert back.is_cpu and back.numpy().tobytes() == tv.contiguous().numpy().tobytes(), name
        assert gv.numpy(force=True).tobytes() == tv.contiguous().numpy().tobytes(), name
        if tv.numel() == 1:
            assert gv.item() == tv.item() or (tv.item() != tv.item() and gv.item() != gv.item()), name
            assert bool(gv) == bool(tv), name
            if tv.is_floating_point():
                assert float(gv) == float(tv) or float(tv) != float(tv), name
                if tv.dim() == 0:
                    assert format(gv, '.3f') == format(tv, '.3f'), name
            else:
                assert int(gv) == int(tv) and [10, 20, 30, 40, 50][gv] == [10, 20, 30, 40, 50][tv], name


@needs_device
def test_item_errors_and_scalar_arguments():
    g = wick.tensor([1.0, 2.0], device=WG)
    with pytest.raises(RuntimeError) as e:
        g.item()
    with pytest.raises(RuntimeError) as te:
        torch.tensor([1.0, 2.0]).item()
    assert str(e.value) == str(te.value)
    # a one-element device tensor where a Scalar goes is read through the host (argparse.c)
    assert wick.full((2,), wick.tensor(2.5, device=WG)).tolist() == torch.full((2,), torch.tensor(2.5)).tolist()


@needs_device
def test_numpy_refuses_a_device_tensor():
    g = wick.ones(2, device=WG)
    # torch's message for a meta tensor, with the device name substituted (tensor.device().str(), as cuda:0)
    with pytest.raises(TypeError) as te:
        torch.ones(2, device='meta').numpy()
    expect = str(te.value).replace('meta', 'webgpu:0', 1)
    for f in (lambda: g.numpy(), lambda: np.asarray(g), lambda: wick.ones(2, device=WG, requires_grad=True).numpy(),
              lambda: wick._C._numpy_interface(g)):
        with pytest.raises(TypeError) as e:
            f()
        assert str(e.value) == expect


@needs_device
def test_to_and_cpu_moves():
    t = torch.tensor(VALUES)
    g = W(t).to(WG)
    assert g.to(WG) is g and g.to('webgpu:0') is g and g.to(device=WG) is g
    assert W(t).to(device=wick.device('webgpu')).tolist() == t.tolist()
    assert g.to('cpu').is_cpu and g.to('cpu').tolist() == t.tolist()
    c = W(t)
    assert c.cpu() is c  # torch: .cpu() of a CPU tensor is itself
    for dt in ('float64', 'int32', 'bool', 'float16'):
        w = g.to(getattr(wick, dt))
        assert str(w.device) == 'webgpu:0' and str(w.dtype) == 'torch.' + dt
        assert w.tolist() == t.to(getattr(torch, dt)).tolist()
        w = g.to('cpu', getattr(wick, dt))
        assert w.is_cpu and w.tolist() == t.to(getattr(torch, dt)).tolist()
        w = W(t).to(WG, getattr(wick, dt))
        assert str(w.device) == 'webgpu:0' and w.tolist() == t.to(getattr(torch, dt)).tolist()
    # to(other): other's dtype and device
    o = wick.zeros(1, dtype=wick.int64, device=WG)
    w = W(t).to(o)
    assert str(w.device) == 'webgpu:0' and w.tolist() == t.to(torch.int64).tolist()
    w = g.to(wick.zeros(1, dtype=wick.float64))
    assert w.is_cpu and w.tolist() == t.double().tolist()
    # copy=True gives a new tensor on the device
    w = g.to(WG, copy=True)
    assert w is not g and w.tolist() == t.tolist()


@needs_device
def test_views_on_device_share_storage():
    t = torch.arange(24.).reshape(2, 3, 4)
    g = W(t).to(WG)
    for f in (lambda x: x.transpose(0, 2), lambda x: x[1], lambda x: x[:, 1:, ::2], lambda x: x.view(6, 4),
              lambda x: x.unsqueeze(1), lambda x: x.permute(2, 0, 1), lambda x: x[0, :1].expand(5, 4),
              lambda x: x.narrow(2, 1, 2), lambda x: x.select(1, 2), lambda x: x.unbind(0)[1],
              lambda x: x.chunk(2, 2)[1], lambda x: x.diagonal(0, 1, 2), lambda x: x.squeeze(), lambda x: x.detach()):
        v = f(g)
        assert str(v.device) == 'webgpu:0'
        assert v.stride() == f(t).stride() and v.storage_offset() == f(t).storage_offset()
        assert v.tolist() == f(t).tolist()


@needs_device
def test_mixed_device_errors():
    g = wick.ones(2, 2, device=WG)
    c = wick.ones(2, 2)
    head = _torch_text('Expected all tensors to be on the same device, but found at least two devices, ')
    # torch's TensorIterator text, "<common device> and <other>!", with webgpu:0 where torch writes cuda:0
    with pytest.raises(RuntimeError) as e:
        g + c
    assert str(e.value) == head + 'webgpu:0 and cpu!'
    with pytest.raises(RuntimeError) as e:
        c * g
    assert str(e.value) == head + 'cpu and webgpu:0!'
    # a CPU 0-d tensor is allowed beside a device tensor, as in torch (test_elementwise_scalar_operands)
    assert (g + wick.tensor(1.0)).tolist() == (torch.ones(2, 2) + torch.tensor(1.0)).tolist()


@needs_device
def test_device_errors():
    with pytest.raises(RuntimeError) as e:
        wick.ones(2, device='webgpu:1')
    assert str(e.value) == "wick has one webgpu device (webgpu:0): 'webgpu:1' is not available"
    with wick.no_grad():  # no history in no_grad mode (with grad: test_to_device_is_differentiable)
        y = wick.ones(2, requires_grad=True).to(WG)
        assert str(y.device) == 'webgpu:0' and y.grad_fn is None and not y.requires_grad
    assert str(wick.ones(2, requires_grad=True).detach().to(WG).device) == 'webgpu:0'
    # unknown device types keep torch's message (torch does not know 'webgpu'; wick adds it)
    with pytest.raises(RuntimeError) as e:
        wick.ones(2, device='webgpux')
    with pytest.raises(RuntimeError) as te:
        torch.ones(2, device='webgpux')
    assert str(e.value) == str(te.value)


@needs_device
def test_save_load_device_tensors():
    t = torch.tensor(VALUES)
    g = W(t).to(WG)
    buf = io.BytesIO()
    wick.save({'a': g, 'row': g[1], 'cpu': W(t)}, buf)
    buf.seek(0)
    d = wick.load(buf)
    assert str(d['a'].device) == 'webgpu:0' and str(d['row'].device) == 'webgpu:0' and d['cpu'].is_cpu
    assert d['a'].tolist() == t.tolist() and d['row'].tolist() == t[1].tolist() and d['cpu'].tolist() == t.tolist()
    buf.seek(0)
    d = wick.load(buf, map_location='cpu')
    assert d['a'].is_cpu and d['a'].tolist() == t.tolist()
    # real torch reads the bytes with map_location='cpu' (its own loader refuses the unknown 'webgpu:0' tag)
    buf.seek(0)
    d = torch.load(buf, map_location='cpu')
    assert d['a'].tolist() == t.tolist() and d['row'].tolist() == t[1].tolist()


@needs_device
def test_device_tensors_free_their_memory():
    wick.webgpu.synchronize()
    base = wick.webgpu.memory_allocated()
    xs = [wick.full((1000,), float(i), device=WG) for i in range(20)]
    assert wick.webgpu.memory_allocated() >= base + 20 * 4000
    assert [x[999].item() for x in xs] == [float(i) for i in range(20)]
    del xs
    assert wick.webgpu.memory_allocated() == base


# ---- step 4 (issue 20): the first WGSL kernels (src/webgpu/elementwise.c), against torch on the CPU ----
# Exact ops (add/sub/mul with alpha 1, neg, relu, abs) must match bit for bit, NaN and inf included; div and
# alpha != 1 within a few float32 ulps (Vulkan's OpFDiv is 2.5 ulp; a fused multiply-add may round once);
# the transcendental ones within rtol 1e-5 (Vulkan's exp is 3 + 2|x| ulp).
def _rand(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g) * 3


def _special(shape):
    t = _rand(shape, 7)
    flat = t.view(-1)
    for i, v in enumerate([float('nan'), float('inf'), -float('inf'), 0.0, -0.0, 1e30, -1e-30][:flat.numel()]):
        flat[i] = v
    return t


def _same(got, want, rtol=0.0, atol=None):
    atol = (1e-5 if rtol else 0.0) if atol is None else atol  # inputs ~ N(0, 3): a few ulps of the operands
    assert str(got.device) == 'webgpu:0'
    r = torch.from_numpy(got.cpu().numpy())
    assert r.dtype == want.dtype and r.shape == want.shape and got.stride() == want.contiguous().stride()
    if rtol == 0 and atol == 0:
        assert r.numpy().tobytes() == want.contiguous().numpy().tobytes() or torch.equal(r.isnan(), want.isnan()) \
            and torch.equal(torch.where(r.isnan(), 0, r), torch.where(want.isnan(), 0, want)), (r, want)
    else:
        torch.testing.assert_close(r, want, rtol=rtol, atol=atol, equal_nan=True)


# (name, view fn): the same view taken of the torch tensor and of its copy on the device
VIEWS = [('contiguous', lambda t: t), ('transposed', lambda t: t.t()), ('stepped', lambda t: t[::2, 1::2]),
         ('narrowed', lambda t: t[1:, 2:]), ('expanded', lambda t: t[:1].expand(4, 6)), ('row', lambda t: t[2]),
         ('scalar-view', lambda t: t[1, 1])]
BINARY = [('add', lambda a, b: a + b, 0), ('sub', lambda a, b: a - b, 0), ('mul', lambda a, b: a * b, 0),
          ('div', lambda a, b: a / b, 1e-6), ('add_alpha', lambda a, b: a.add(b, alpha=-2.5), 1e-6),
          ('sub_alpha', lambda a, b: a.sub(b, alpha=0.5), 1e-6), ('torch.add', lambda a, b: a.__class__.add(a, b), 0)]
SHAPES2 = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (5,)), ((5,), ()), ((1,), (2, 3)),
           ((0, 3), (3,)), ((2, 0), (1,)), ((2, 3, 4, 5), (3, 1, 5)), ((1200,), (1200,))]


@needs_device
@pytest.mark.parametrize('op', BINARY, ids=lambda o: o[0])
@pytest.mark.parametrize('shapes', SHAPES2, ids=str)
def test_elementwise_binary_broadcasting(op, shapes):
    name, f, rtol = op
    a, b = _special(shapes[0]), _rand(shapes[1], 3) + 0.5
    _same(f(W(a).to(WG), W(b).to(WG)), f(a, b), rtol=rtol)
    _same(f(W(b).to(WG), W(a).to(WG)), f(b, a), rtol=rtol)


@needs_device
@pytest.mark.parametrize('op', BINARY, ids=lambda o: o[0])
@pytest.mark.parametrize('va', VIEWS, ids=lambda v: v[0])
@pytest.mark.parametrize('vb', VIEWS[:3], ids=lambda v: v[0])
def test_elementwise_binary_views(op, va, vb):
    name, f, rtol = op
    a, b = _special((4, 6)), _rand((4, 6), 5)
    ga, gb = W(a).to(WG), W(b).to(WG)
    ta, tb = va[1](a), vb[1](b)
    if va[0] in ('transposed',) != vb[0] in ('transposed',):
        tb, gbv = vb[1](b).t() if vb[0] != 'transposed' else vb[1](b), None
    try:
        want = f(ta, vb[1](b))
    except RuntimeError:  # shapes that do not broadcast: the same error on the device
        with pytest.raises(RuntimeError) as e:
            f(va[1](ga), vb[1](gb))
        with pytest.raises(RuntimeError) as te:
            f(ta, vb[1](b))
        assert str(e.value) == str(te.value)
        return
    _same(f(va[1](ga), vb[1](gb)), want, rtol=rtol)


UNARY = [('neg', lambda t: -t, 0), ('relu', lambda t: t.relu(), 0), ('abs', lambda t: t.abs(), 0),
         ('exp', lambda t: t.exp(), 1e-5), ('log', lambda t: t.log(), 1e-5), ('sqrt', lambda t: t.sqrt(), 1e-6),
         ('sin', lambda t: t.sin(), 1e-5), ('cos', lambda t: t.cos(), 1e-5), ('sigmoid', lambda t: t.sigmoid(), 1e-5),
         ('tanh', lambda t: t.tanh(), 1e-5), ('torch.relu', lambda t: t.__class__.relu(t), 0)]


@needs_device
@pytest.mark.parametrize('op', UNARY, ids=lambda o: o[0])
@pytest.mark.parametrize('v', VIEWS, ids=lambda v: v[0])
def test_elementwise_unary(op, v):
    name, f, rtol = op
    base = _rand((4, 6), 11) if rtol else _special((4, 6))  # NaN/inf/±0 for the exact ones
    if name in ('sin', 'cos'):
        base = base.clamp(-10, 10)
    _same(f(v[1](W(base).to(WG))), f(v[1](base)), rtol=rtol)


@needs_device
@pytest.mark.parametrize('op', UNARY, ids=lambda o: o[0])
def test_elementwise_unary_special_values(op):
    name, f, rtol = op
    t = torch.tensor([float('nan'), float('inf'), -float('inf'), 0.0, -0.0, 1.0, -1.0, 20.0, -20.0, 88.0, -88.0])
    _same(f(W(t).to(WG)), f(t), rtol=rtol)
    _same(f(W(t[:0]).to(WG)), f(t[:0]))
    _same(f(W(t[3]).to(WG)), f(t[3]), rtol=rtol)


@needs_device
def test_elementwise_scalar_operands():
    a = _special((2, 3))
    g = W(a).to(WG)
    def L(x):  # the library of x: the same expression for torch and wick
        return wick if isinstance(x, wick.Tensor) else torch
    for f in [lambda x: x + 2, lambda x: x - 1.5, lambda x: 3 - x, lambda x: x * 0.5, lambda x: x / 4,
              lambda x: 2 * x, lambda x: x + True, lambda x: x.add(2, alpha=3), lambda x: x.mul(-1),
              lambda x: L(x).rsub(x, 2.5, alpha=2), lambda x: L(x).rsub(x, x[0], alpha=0.5),
              lambda x: x + L(x).tensor(2.5), lambda x: x * L(x).tensor(3, dtype=L(x).int64),
              lambda x: L(x).tensor(1.5, dtype=L(x).float64) / x]:
        _same(f(g), f(a), rtol=1e-6)
    # a 0-d device tensor beside a CPU 0-d one: a 0-d op, still float32
    _same(W(torch.tensor(2.0)).to(WG) * wick.tensor(3.0), torch.tensor(2.0) * torch.tensor(3.0))


@needs_device
def test_elementwise_autograd_on_device():
    x = W(torch.tensor([1.0, -2.0, 3.0])).to(WG).requires_grad_()
    y = (x * x + x.exp()) / 2 - x
    assert type(y.grad_fn).__name__ == 'SubBackward0'
    tx = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    ty = (tx * tx + tx.exp()) / 2 - tx
    y.backward(W(torch.ones(3)).to(WG))
    ty.backward(torch.ones(3))
    _same(x.grad, tx.grad, rtol=1e-5)


@needs_device
@pytest.mark.parametrize('v', VIEWS[:4], ids=lambda v: v[0])
def test_elementwise_in_place(v):  # the generated in-place path: the op, then copy_ into self's view
    a, b = _special((4, 6)), _rand((4, 6), 2)
    g, gb = W(a).to(WG), W(b).to(WG)
    for x, y in ((g, gb), (a, b)):
        v[1](x).add_(v[1](y), alpha=2)
        v[1](x).mul_(3)
        v[1](x).neg_()
    _same(g, a, rtol=1e-6)


@needs_device
def test_elementwise_errors():
    g = wick.ones(2, 3, device=WG)
    with pytest.raises(NotImplementedError) as e:
        wick.ones(2, dtype=wick.float64, device=WG) + 1
    assert str(e.value) == ("The operator 'aten::add' is not currently implemented for the webgpu device for dtype "
                            "float64 (webgpu kernels are float32 only so far).")
    with pytest.raises(NotImplementedError) as e:
        wick.ones(2, dtype=wick.int64, device=WG).neg()
    assert 'for dtype int64' in str(e.value)
    with pytest.raises(NotImplementedError) as e:  # a float32 device tensor promoted to float64 by a 0-d one
        wick.ones((), device=WG) * wick.tensor(2.0, dtype=wick.float64)
    assert 'for dtype float64' in str(e.value)
    with pytest.raises(NotImplementedError) as e:
        g.div(g, rounding_mode='floor')
    assert str(e.value) == ("The operator 'aten::div' with rounding_mode='floor' is not currently implemented for "
                            "the webgpu device.")
    # broadcasting errors: torch's text
    with pytest.raises(RuntimeError) as e:
        g + wick.ones(4, device=WG)
    with pytest.raises(RuntimeError) as te:
        torch.ones(2, 3) + torch.ones(4)
    assert str(e.value) == str(te.value)
    # an op without a kernel names the op and the device (not a wrong answer, not a crash)
    for f, op in [(lambda: g.prod(), 'aten::prod'), (lambda: g.pow(2), 'aten::pow'), (lambda: g.bmm(g[None]), 'aten::bmm'),
                  (lambda: g.clamp(0, 1), 'aten::clamp')]:
        with pytest.raises(NotImplementedError) as e:
            f()
        assert str(e.value).startswith("The operator '%s" % op), str(e.value)
        assert 'webgpu device' in str(e.value)


@needs_device
def test_elementwise_memory_returns():
    base = wick.webgpu.memory_allocated()
    g = wick.ones(256, 256, device=WG)
    for _ in range(20):
        g = (g * 1.0001 + 0.5).relu() - 0.5
    assert g.cpu().shape == (256, 256)
    del g
    assert wick.webgpu.memory_allocated() == base


@needs_device
@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int64', 'bool', 'int16'])
@pytest.mark.parametrize('v', VIEWS, ids=lambda v: v[0])
def test_clone_contiguous_on_device(v, dtype):
    t = v[1](_special((4, 6)).to(getattr(torch, dtype)))
    g = v[1](W(_special((4, 6)).to(getattr(torch, dtype))).to(WG))
    for name in ('clone', 'contiguous'):
        r, want = getattr(g, name)(), getattr(t, name)()
        assert str(r.device) == 'webgpu:0' and r.dtype == getattr(wick, dtype)
        assert r.stride() == want.stride() and r.shape == want.shape, name
        assert r.cpu().numpy().tobytes() == want.numpy().tobytes(), name
        if name == 'contiguous' and t.is_contiguous():
            assert r.data_ptr() == g.data_ptr()  # itself, as torch's
        else:
            assert r.data_ptr() != g.data_ptr()


@needs_device
@pytest.mark.parametrize('v', VIEWS, ids=lambda v: v[0])
def test_like_factories_on_device(v):
    t = v[1](_special((4, 6)))
    g = v[1](W(_special((4, 6))).to(WG))
    for name, kw in [('zeros_like', {}), ('ones_like', {}), ('zeros_like', {'dtype': 'int64'}),
                     ('ones_like', {'dtype': 'float64'}), ('empty_like', {}), ('ones_like', {'requires_grad': True})]:
        tk = {k: getattr(torch, x) if k == 'dtype' else x for k, x in kw.items()}
        wk = {k: getattr(wick, x) if k == 'dtype' else x for k, x in kw.items()}
        r, want = getattr(wick, name)(g, **wk), getattr(torch, name)(t, **tk)
        assert str(r.device) == 'webgpu:0' and str(r.dtype) == str(want.dtype)
        assert r.stride() == want.stride() and r.shape == want.shape and r.requires_grad == want.requires_grad
        if name != 'empty_like':
            assert r.detach().cpu().numpy().tobytes() == want.detach().numpy().tobytes()


# ---- step 5 (issue 20): copy_ across devices, differentiable moves ----
# copy_ runs on self's device (ops/core.def `device: self`) and reads src from any device, as torch's copy_; a
# float32 copy within the device is one kernel (the copy_tensor hook), other pairs go through the host.
COPY_VIEWS = VIEWS[:4]


@needs_device
@pytest.mark.parametrize('v', COPY_VIEWS, ids=lambda v: v[0])
@pytest.mark.parametrize('route', ['cpu->webgpu', 'webgpu->cpu', 'webgpu->webgpu'])
def test_copy_across_devices(v, route):
    a, b = _special((4, 6)), _rand((4, 6), 9)
    src_dev, dst_dev = route.split('->')
    dst = W(a).to(dst_dev) if dst_dev == WG else W(a)
    src = W(b).to(src_dev) if src_dev == WG else W(b)
    t = a.clone()
    r = v[1](dst).copy_(v[1](src))
    v[1](t).copy_(v[1](b))
    assert str(r.device) == str(dst.device) and r.data_ptr() == v[1](dst).data_ptr()  # in place, itself
    got = dst.cpu()
    assert got.numpy().tobytes() == t.numpy().tobytes()
    # broadcasting a row, and a CPU 0-d value, into the whole of dst
    dst2, t2 = (W(a).to(dst_dev) if dst_dev == WG else W(a)), a.clone()
    v[1](dst2).copy_(v[1](src)[0])
    v[1](t2).copy_(v[1](b)[0])
    assert dst2.cpu().numpy().tobytes() == t2.numpy().tobytes()
    v[1](dst2).copy_(wick.tensor(-1.25))
    v[1](t2).copy_(torch.tensor(-1.25))
    assert dst2.cpu().numpy().tobytes() == t2.numpy().tobytes()


@needs_device
@pytest.mark.parametrize('dt', ['float64', 'int64', 'bool', 'float16'])
def test_copy_casts_across_devices(dt):
    b = _rand((3, 5), 4) * 10
    for sd, dd in [(WG, WG), ('cpu', WG), (WG, 'cpu')]:
        dst = wick.zeros(3, 5, device=dd)
        src = W(b.to(getattr(torch, dt))).to(sd)
        dst.copy_(src)
        want = torch.zeros(3, 5).copy_(b.to(getattr(torch, dt)))
        assert dst.cpu().numpy().tobytes() == want.numpy().tobytes(), (sd, dd)
        dst = wick.zeros(3, 5, dtype=getattr(wick, dt), device=dd)  # and into a non-float32 tensor
        dst.copy_(W(b).to(sd))
        want = torch.zeros(3, 5, dtype=getattr(torch, dt)).copy_(b)
        assert dst.cpu().numpy().tobytes() == want.numpy().tobytes(), (sd, dd)


@needs_device
def test_copy_within_one_storage_and_errors():
    a = _rand((4, 6), 1)
    g, t = W(a).to(WG), a.clone()
    g[0].copy_(g[3])  # src and dst share one buffer: copied out first
    t[0].copy_(t[3])
    g[:, ::2].copy_(g[:, 1::2])
    t[:, ::2].copy_(t[:, 1::2])
    assert g.cpu().numpy().tobytes() == t.numpy().tobytes()
    for f in [lambda L, x: x.copy_(L.ones(5)), lambda L, x: x[0].copy_(L.ones(2, 6)),
              lambda L, x: x[1:].copy_(x[:-1])]:  # a shape that does not broadcast; partial overlap
        with pytest.raises(RuntimeError) as e:
            f(wick, W(a).to(WG))
        with pytest.raises(RuntimeError) as te:
            f(torch, a.clone())
        assert str(e.value) == str(te.value)


@needs_device
def test_to_device_is_differentiable():
    t, w = _rand((3, 4), 2), _rand((3, 4), 8) + 0.1
    x, tx = W(t).requires_grad_(), t.clone().requires_grad_()
    y = x.to(WG)
    ty = tx.to(torch.float64)  # torch's ToCopyBackward0: the node of every Tensor.to that copies (device or dtype)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == 'ToCopyBackward0'
    assert y.requires_grad and not y.is_leaf and str(y.device) == 'webgpu:0'
    z = (y * y * 3).cpu()
    assert type(z.grad_fn).__name__ == 'ToCopyBackward0' and z.is_cpu
    (z * W(w)).sum().backward()
    (tx * tx * 3 * w).sum().backward()
    assert x.grad.is_cpu
    torch.testing.assert_close(torch.from_numpy(x.grad.numpy()), tx.grad, rtol=1e-6, atol=1e-6)
    # a device leaf: its gradient stays on the device; to('cpu') and .cpu() spell the same move
    g = W(t).to(WG).requires_grad_()
    (g.to('cpu') * W(w)).sum().backward()
    assert str(g.grad.device) == 'webgpu:0'
    assert g.grad.cpu().numpy().tobytes() == w.numpy().tobytes()
    # the same leaf moved twice: both gradients accumulate on the CPU
    x2, tx2 = W(t).requires_grad_(), t.clone().requires_grad_()
    ((x2.to(WG) * 2).cpu() * W(w) + x2.to(WG).cpu()).sum().backward()
    ((tx2 * 2) * w + tx2).sum().backward()
    torch.testing.assert_close(torch.from_numpy(x2.grad.numpy()), tx2.grad)


@needs_device
def test_copy_is_differentiable_across_devices():
    t, w = _rand((2, 3), 5), _rand((2, 3), 6)
    x, tx = W(t).requires_grad_(), t.clone().requires_grad_()
    d = wick.zeros(2, 3, device=WG)
    d.copy_(x)
    td = torch.zeros(2, 3).copy_(tx)
    assert type(d.grad_fn).__name__ == type(td.grad_fn).__name__ == 'CopyBackwards'
    (d.cpu() * W(w)).sum().backward()
    (td * w).sum().backward()
    assert x.grad.is_cpu and x.grad.numpy().tobytes() == tx.grad.numpy().tobytes()


@needs_device
def test_module_to_and_cpu_move_parameters():
    wick.manual_seed(0)
    m = wick.nn.Sequential(wick.nn.Linear(3, 4), wick.nn.ReLU(), wick.nn.Linear(4, 2))
    before = [p.detach().clone() for p in m.parameters()]
    ids = [id(p) for p in m.parameters()]
    assert m.to(WG) is m
    assert [id(p) for p in m.parameters()] == ids  # the same Parameter objects, their data on the device
    for p, b in zip(m.parameters(), before):
        assert str(p.device) == 'webgpu:0' and p.requires_grad and p.is_leaf and type(p).__name__ == 'Parameter'
        assert p.detach().cpu().numpy().tobytes() == b.numpy().tobytes()
    m.cpu()
    assert all(p.is_cpu for p in m.parameters())
    m.to(device=WG, dtype=wick.float32)
    assert all(str(p.device) == 'webgpu:0' for p in m.parameters())
    m.to('cpu')
    assert all(p.is_cpu for p in m.parameters())


# ---- step 6 (issue 20): reductions (src/webgpu/reduce.c) and matrix products (src/webgpu/matmul.c) ----
# float32 sums on the GPU add in another order than torch's CPU: within rtol 1e-5 (plus atol for cancellation).
def _close(got, want, rtol=1e-5, atol=1e-5):
    assert str(got.device) == 'webgpu:0'
    r = torch.from_numpy(got.detach().cpu().numpy())
    assert r.shape == want.shape and r.dtype == want.dtype, (r.shape, want.shape)
    torch.testing.assert_close(r, want.detach(), rtol=rtol, atol=atol, equal_nan=True)


RVIEWS = [('contiguous', lambda t: t), ('transposed', lambda t: t.transpose(0, 2)), ('stepped', lambda t: t[::2, 1:]),
          ('expanded', lambda t: t[:, :1].expand(6, 5, 7))]
REDUCTIONS = [('sum', lambda x: x.sum()), ('sum0', lambda x: x.sum(0)), ('sum-1', lambda x: x.sum(-1)),
              ('sum_keep', lambda x: x.sum(1, keepdim=True)), ('sum01', lambda x: x.sum((0, 2))),
              ('sum_all_list', lambda x: x.sum((0, 1, 2), keepdim=True)), ('sum_dtype', lambda x: x.sum(1, dtype=x.dtype)),
              ('torch.sum', lambda x: x.__class__.sum(x, dim=-2)), ('sum_empty_dims', lambda x: x.sum(dim=())),
              ('mean', lambda x: x.mean()), ('mean1', lambda x: x.mean(1)), ('mean_keep', lambda x: x.mean((0, 1), True)),
              ('sum_to_size', lambda x: x.sum_to_size(1, x.shape[1], 1)), ('sum_to_size2', lambda x: x.sum_to_size(x.shape[2]))]


@needs_device
@pytest.mark.parametrize('red', REDUCTIONS, ids=lambda r: r[0])
@pytest.mark.parametrize('v', RVIEWS, ids=lambda v: v[0])
def test_reductions(red, v):
    t = _rand((6, 5, 7), 13)
    _close(red[1](v[1](W(t).to(WG))), red[1](v[1](t)))


@needs_device
@pytest.mark.parametrize('shape', [(), (1,), (0,), (3, 0), (1000, 3), (70000,), (5, 1, 1)], ids=str)
def test_reductions_shapes(shape):
    t = _rand(shape, 3)
    g = W(t).to(WG)
    _close(g.sum(), t.sum(), atol=1e-3)
    _close(g.mean(), t.mean())
    if t.dim():
        _close(g.sum(0), t.sum(0), atol=1e-3)
        _close(g.mean(-1, keepdim=True), t.mean(-1, keepdim=True))
    s = _special((4, 3))
    _close(W(s).to(WG).sum(1), s.sum(1))  # NaN / inf propagate


@needs_device
def test_reduction_errors_and_autograd():
    t = _rand((2, 3), 1)
    g = W(t).to(WG)
    for f in [lambda x: x.sum(2), lambda x: x.sum((0, 0)), lambda x: x.sum_to_size(3, 3), lambda x: x.mean(-3),
              lambda x: x.sum_to_size(4)]:
        with pytest.raises((RuntimeError, IndexError)) as e:
            f(g)
        with pytest.raises((RuntimeError, IndexError)) as te:
            f(t)
        assert type(e.value) is type(te.value) and str(e.value) == str(te.value)
    with pytest.raises(NotImplementedError) as e:
        g.sum(dtype=wick.float64)
    assert 'for dtype float64' in str(e.value)
    # gradients of sums flow on the device (SumBackward0/1 and MeanBackward are expand / div kernels)
    x, tx = W(t).to(WG).requires_grad_(), t.clone().requires_grad_()
    w = _rand((2, 3), 2)
    ((x * W(w).to(WG)).sum(1).mean() + x.sum()).backward()
    ((tx * w).sum(1).mean() + tx.sum()).backward()
    assert type(x.sum(1).grad_fn).__name__ == 'SumBackward1' and type(x.mean().grad_fn).__name__ == 'MeanBackward0'
    _close(x.grad, tx.grad)


MM_SHAPES = [(1, 1, 1), (2, 3, 4), (5, 7, 3), (33, 17, 65), (64, 64, 64), (100, 1, 3), (3, 0, 4), (0, 3, 2),
             (31, 33, 1), (129, 40, 70)]


@needs_device
@pytest.mark.parametrize('kernel', ['tiled', 'naive'])
@pytest.mark.parametrize('mnk', MM_SHAPES, ids=str)
def test_mm(mnk, kernel, monkeypatch):
    if kernel == 'naive':  # the reference kernel beside the tiled one (read on every call)
        monkeypatch.setenv('WICK_WEBGPU_MM', 'naive')
    m, k, n = mnk
    a, b = _rand((m, k), 1), _rand((k, n), 2)
    ga, gb = W(a).to(WG), W(b).to(WG)
    _close(ga.mm(gb), a.mm(b), rtol=1e-5, atol=1e-4)
    _close(wick.mm(W(a.t().contiguous()).to(WG).t(), W(b.t().contiguous()).to(WG).t()), a.mm(b), atol=1e-4)
    _close(ga @ gb, a @ b, atol=1e-4)
    _close(wick.matmul(ga, gb), torch.matmul(a, b), atol=1e-4)
    if m and k and n:
        bias = _rand((n,), 3)
        _close(wick.addmm(W(bias).to(WG), ga, gb), torch.addmm(bias, a, b), atol=1e-4)
        _close(wick.addmm(W(bias).to(WG), ga, gb, beta=0.5, alpha=-2), torch.addmm(bias, a, b, beta=0.5, alpha=-2),
               atol=2e-4)
        full = _special((m, n))  # beta=0: self is ignored, NaN included (torch)
        _close(wick.addmm(W(full).to(WG), ga, gb, beta=0), torch.addmm(full, a, b, beta=0), atol=1e-4)
        _close(wick.nn.functional.linear(ga, gb.t(), W(bias).to(WG)), torch.nn.functional.linear(a, b.t(), bias),
               atol=1e-4)


@needs_device
def test_mm_views_errors_and_autograd():
    a, b = _rand((6, 8), 4), _rand((5, 8), 5)
    ga, gb = W(a).to(WG), W(b).to(WG)
    _close(ga[::2, 1:].mm(gb[1:4, :7].t()), a[::2, 1:].mm(b[1:4, :7].t()), atol=1e-4)
    _close(ga[1].unsqueeze(0).expand(3, 8).mm(gb.t()), a[1].unsqueeze(0).expand(3, 8).mm(b.t()), atol=1e-4)
    _close(ga[0] @ gb.t(), a[0] @ b.t(), atol=1e-4)  # matmul 1-D @ 2-D: mm of the unsqueezed row
    for f in [lambda L, x, y: x.mm(y), lambda L, x, y: L.addmm(x[0, :3], x, y.t()), lambda L, x, y: x.mm(y[0]),
              lambda L, x, y: L.addmm(x[0], x, y.t())]:
        with pytest.raises(RuntimeError) as e:
            f(wick, ga, gb)
        with pytest.raises(RuntimeError) as te:
            f(torch, a, b)
        assert str(e.value) == str(te.value)
    with pytest.raises(NotImplementedError):
        ga.double().mm(gb.double().t())
    x, y = W(a).to(WG).requires_grad_(), W(b).to(WG).requires_grad_()
    tx, ty = a.clone().requires_grad_(), b.clone().requires_grad_()
    w = _rand((6, 5), 6)
    (x.mm(y.t()) * W(w).to(WG)).sum().backward()
    (tx.mm(ty.t()) * w).sum().backward()
    assert type(x.mm(y.t()).grad_fn).__name__ == 'MmBackward0'
    _close(x.grad, tx.grad, atol=1e-4)
    _close(y.grad, ty.grad, atol=1e-4)


# ---- step 7 (issue 20): the backward kernels, mse_loss, the SGD step (src/webgpu/nn.c); an MLP trains ----
@needs_device
@pytest.mark.parametrize('act', ['relu', 'sigmoid', 'tanh'])
def test_activation_backward(act):
    t, w = _special((4, 6)), _rand((4, 6), 3)
    t[0, 3] = 0.0  # relu at 0: torch's gradient is 0 (threshold_backward: self <= 0)
    x, tx = W(t).to(WG).requires_grad_(), t.clone().requires_grad_()
    y, ty = getattr(x, act)(), getattr(tx, act)()
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    (y * W(w).to(WG)).sum().backward()
    (ty * w).sum().backward()
    _close(x.grad, tx.grad, rtol=1e-5, atol=1e-6)


@needs_device
@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
def test_mse_loss(reduction):
    a, b, w = _rand((5, 3), 1), _rand((5, 3), 2), _rand((5, 3), 3)
    F, tF = wick.nn.functional, torch.nn.functional
    x, tx = W(a).to(WG).requires_grad_(), a.clone().requires_grad_()
    y, ty = W(b).to(WG).requires_grad_(), b.clone().requires_grad_()
    loss, tloss = F.mse_loss(x, y, reduction=reduction), tF.mse_loss(tx, ty, reduction=reduction)
    assert type(loss.grad_fn).__name__ == type(tloss.grad_fn).__name__ == 'MseLossBackward0'
    _close(loss, tloss)
    (loss * W(w).to(WG) if reduction == 'none' else loss * 1.5).sum().backward()
    (tloss * w if reduction == 'none' else tloss * 1.5).sum().backward()
    _close(x.grad, tx.grad)
    _close(y.grad, ty.grad)
    with pytest.warns(UserWarning, match='Using a target size'):  # torch's broadcasting warning, then the loss
        lw = wick.nn.MSELoss()(W(a).to(WG), W(b[0]).to(WG))
    with pytest.warns(UserWarning, match='Using a target size'):
        lt = torch.nn.MSELoss()(a, b[0])
    _close(lw, lt)


SGD_CONFIGS = [{}, {'momentum': 0.9}, {'momentum': 0.9, 'nesterov': True}, {'weight_decay': 0.1},
               {'momentum': 0.5, 'dampening': 0.3, 'weight_decay': 0.01, 'maximize': True}]


def _mlp(L, seed_params):
    m = L.nn.Sequential(L.nn.Linear(5, 16), L.nn.ReLU(), L.nn.Linear(16, 8), L.nn.Tanh(), L.nn.Linear(8, 3),
                        L.nn.Sigmoid())
    with L.no_grad():
        for p, v in zip(m.parameters(), seed_params):
            p.copy_(W(v) if L is wick else v)
    return m


@needs_device
@pytest.mark.parametrize('cfg', SGD_CONFIGS, ids=str)
def test_mlp_trains_on_device(cfg):
    """A small MLP's training (forward, backward, SGD step) entirely on the device matches torch on the CPU."""
    g = torch.Generator().manual_seed(7)
    shapes = [(16, 5), (16,), (8, 16), (8,), (3, 8), (3,)]
    init = [torch.randn(s, generator=g) * 0.5 for s in shapes]
    X, Y = torch.randn(32, 5, generator=g), torch.rand(32, 3, generator=g)
    tm, m = _mlp(torch, init), _mlp(wick, init).to(WG)
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, **cfg)
    opt = wick.optim.SGD(m.parameters(), lr=0.1, **cfg)
    gx, gy = W(X).to(WG), W(Y).to(WG)
    for step in range(5):
        topt.zero_grad()
        tloss = torch.nn.functional.mse_loss(tm(X), Y)
        tloss.backward()
        topt.step()
        opt.zero_grad()
        loss = wick.nn.functional.mse_loss(m(gx), gy)
        loss.backward()
        opt.step()
        assert str(loss.device) == 'webgpu:0'
        assert abs(loss.item() - tloss.item()) <= 1e-5 * abs(tloss.item()) + 1e-6, (step, loss.item(), tloss.item())
    for p, tp in zip(m.parameters(), tm.parameters()):
        assert str(p.device) == 'webgpu:0' and str(p.grad.device) == 'webgpu:0'
        _close(p, tp, rtol=1e-4, atol=1e-5)
        _close(p.grad, tp.grad, rtol=1e-4, atol=1e-5)
    if cfg.get('momentum'):
        for p, tp in zip(m.parameters(), tm.parameters()):
            _close(opt.state[p]['momentum_buffer'], topt.state[tp]['momentum_buffer'], rtol=1e-4, atol=1e-5)


@needs_device
def test_mlp_training_memory_is_flat():
    g = torch.Generator().manual_seed(3)
    init = [torch.randn(s, generator=g) for s in [(16, 5), (16,), (8, 16), (8,), (3, 8), (3,)]]
    m = _mlp(wick, init).to(WG)
    opt = wick.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    gx, gy = W(torch.randn(8, 5, generator=g)).to(WG), W(torch.rand(8, 3, generator=g)).to(WG)
    seen = []
    for step in range(30):
        opt.zero_grad()
        wick.nn.functional.mse_loss(m(gx), gy).backward()
        opt.step()
        seen.append(wick.webgpu.memory_allocated())
    assert seen[-1] == seen[5], seen  # no device memory grows step after step

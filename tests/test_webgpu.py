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


@needs_device
def test_op_without_kernel_names_op_and_device():
    with pytest.raises(NotImplementedError) as e:
        wick._C._webgpu_neg(wick.ones(3))
    assert str(e.value) == "The operator 'aten::neg' is not currently implemented for the webgpu device."


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

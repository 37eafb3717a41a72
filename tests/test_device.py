"""The test device (Note [Device table], src/cpu/device_test.c): a slice of the parity suite with every storage made
on "cpu-copy" (WICK_TEST_DEVICE=cpu-copy), against the pinned goldens, in a subprocess. It must pass as on the CPU,
and the device must really have been used (its exit line counts the blocks it made): shared code that allocates,
frees or fills around the device, reads fresh storage unwritten, or mixes tensors made outside the seam with
tensors made through it fails here rather than in the WebGPU work."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SLICE = ['cases_pointwise_binary', 'cases_reduce', 'cases_shape']


@pytest.mark.parametrize('cases', SLICE)
def test_parity_slice_on_cpu_copy(cases):
    env = dict(os.environ, WICK_TEST_DEVICE='cpu-copy')
    p = subprocess.run([sys.executable, '-m', 'tests.parity', '--golden', '--lib', 'wick', '-k', cases], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=1200)
    tail = (p.stdout + p.stderr)[-4000:]
    assert p.returncode == 0, tail
    assert re.search(r'passed [1-9]\d*, failed 0, invalid 0', p.stdout), tail
    made = re.search(r'cpu-copy: (\d+) blocks made', p.stderr)
    assert made and int(made.group(1)) > 1000, tail


def test_cpu_is_the_default():
    p = subprocess.run([sys.executable, '-c', 'import wick; print((wick.ones(3) * 2).sum().item())'], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == '6.0', p.stdout + p.stderr
    assert 'cpu-copy' not in p.stderr

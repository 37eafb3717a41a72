"""The fuzzers of issue 16 (tests/fuzz), bounded for the test command: each runs from fixed seeds in its own
process, a fixed number of inputs (the same inputs on every machine), against real torch / safetensors where
importable. A crash, wick loading what torch refuses, other values than torch's, or a load that changes
process-wide state fails. `make fuzz` runs them for longer."""
import subprocess
import sys

import pytest


@pytest.mark.parametrize('fuzzer', ['ckpt', 'pickle', 'safetensors'])
@pytest.mark.parametrize('seed', [0, 1])
def test_fuzzer(fuzzer, seed, tmp_path):
    p = subprocess.run([sys.executable, '-m', 'tests.fuzz', fuzzer, '--inputs', '300', '--seconds', '120',
                        '--seed', str(seed), '--keep', str(tmp_path)], capture_output=True, text=True)
    print(p.stdout)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ' 300 inputs against ' in p.stdout

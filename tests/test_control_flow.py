"""torch.cond / torch.while_loop run eagerly, compared with torch in child processes: importing torch's
higher-order ops has process-wide side effects in torch (it turns off torch.distributions' default argument
validation), so these cannot share the parity suite's process."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="compares with real torch")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = r'''
import sys
T = __import__(sys.argv[1])
print(T.cond(T.tensor(True), lambda a: a + 1, lambda a: a - 1, (T.tensor([1., 2.]),)))
print(T.cond(False, lambda a, b: a + b, lambda a, b: a * b, (T.tensor(2.), T.tensor(3.))))
print(T.cond(T.tensor([0]), lambda: T.ones(1), lambda: T.zeros(1)))
print(T.while_loop(lambda i: i < 3, lambda i: (i + 1,), (T.tensor(0),)))
print(T.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, x * 2), (T.tensor(0), T.ones(2))))
'''


def _run(lib):
    env = dict(os.environ, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, '-c', PROGRAM, lib], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_cond_while_loop_as_torch():
    assert _run('wick') == _run('torch')

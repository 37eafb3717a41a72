"""The torch.func / forward-AD tutorials of pytorch/tutorials (per-sample gradients, Jacobians and Hessians, model
ensembling, forward-mode AD usage), kept in tests/tutorials/ with offline data: each runs once with real torch and
once with wick as torch (the one changed import), and prints the same text. The tutorials' own asserts run in
both."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIR = os.path.join(ROOT, 'tests', 'tutorials')
TUTORIALS = sorted(f for f in os.listdir(DIR) if f.endswith('.py'))


def _run(script, lib):
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS='1')
    r = subprocess.run([sys.executable, os.path.join(DIR, script), lib], capture_output=True, text=True, env=env,
                       timeout=600, cwd=ROOT)
    assert r.returncode == 0, f'{lib}: {script} failed\n{r.stdout}\n{r.stderr}'
    return r.stdout


def test_tutorials_found():
    assert len(TUTORIALS) == 4, TUTORIALS


@pytest.mark.parametrize('script', TUTORIALS)
def test_tutorial_prints_torchs_text(script):
    want = _run(script, 'torch')
    got = _run(script, 'wick')
    assert want.strip(), 'the tutorial printed nothing'
    assert got == want

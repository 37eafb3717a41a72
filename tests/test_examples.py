"""The examples: the main digits CNN trains under wick to the accuracy the same program reaches under real torch,
its checkpoint loads in real torch, and its loss picture is a valid PNG; the C example trains through wick.h."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EPOCHS = '3'


def _run(tmp_path, *flags):
    out = tmp_path / ('torch' if flags else 'wick')
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, os.path.join(ROOT, 'examples', 'train_digits.py'), '--epochs', EPOCHS,
                        '--out', str(out), *flags], capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r'held-out accuracy: (\d+)/(\d+)', r.stdout)
    return int(m.group(1)), int(m.group(2)), out, r.stdout


def test_digits_cnn_matches_torch(tmp_path):
    import torch
    correct, total, out, log = _run(tmp_path)
    t_correct, t_total, _, t_log = _run(tmp_path, '--torch')
    assert total == t_total == 297
    assert correct >= t_correct - 1, 'wick %d/%d vs torch %d/%d' % (correct, total, t_correct, t_total)
    # the printed model is torch's printout
    assert log.split('epoch')[0] == t_log.split('epoch')[0]
    state = torch.load(str(out / 'digits_cnn.pt'))          # real torch loads wick's checkpoint
    assert sorted(state) == ['classifier.1.bias', 'classifier.1.weight', 'classifier.3.bias',
                             'classifier.3.weight', 'features.0.bias', 'features.0.weight', 'features.3.bias',
                             'features.3.weight']
    png = (out / 'digits_loss.png').read_bytes()
    assert png[:8] == b'\x89PNG\r\n\x1a\n' and b'IEND' in png[-12:]


def test_c_mlp_example():
    exe = os.path.join(ROOT, 'build', 'examples', 'mlp')
    if not os.path.exists(exe):
        pytest.skip('build/examples/mlp is built by `make` (make examples)')
    r = subprocess.run([exe, os.path.join(ROOT, 'examples', 'data', 'digits.csv')], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    acc = float(re.search(r'held-out accuracy: \d+/\d+ = ([\d.]+)%', r.stdout).group(1))
    assert acc > 85.0, r.stdout

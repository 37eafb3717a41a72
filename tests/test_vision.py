"""wick.vision against torchvision: every case in tests/vision/cases_*.py runs with wick / wick.vision and is
compared with torchvision's answer pinned in tests/vision/golden.json (values, dtypes, shapes, errors).
When the reference venv exists ($WICK_VISION_PYTHON, default /work/venv-vision/bin/python), the goldens are
also re-pinned from live torchvision and must equal the committed ones (so they cannot go stale)."""
import importlib.util
import json
import os
import subprocess

import pytest

import wick
import wick.vision
from tests.vision import harness, load_cases
from tests.vision.pin import GOLDEN

load_cases()
with open(GOLDEN) as _f:
    _PINNED = json.load(_f)
VENV_PYTHON = os.environ.get('WICK_VISION_PYTHON', '/work/venv-vision/bin/python')
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_case_pinned_and_current():
    assert sorted(_PINNED['cases']) == sorted(harness.CASES), "re-pin: python -m tests.vision.pin (in the venv)"
    stale = [k for k in harness.CASES if _PINNED['cases'][k]['fp'] != harness.fingerprint(k)]
    assert not stale, f"cases edited since pinning: {stale}"


@pytest.mark.parametrize('key', sorted(harness.CASES))
def test_vision_case(key):
    c = harness.CASES[key]
    for m in c['needs']:
        if importlib.util.find_spec(m) is None:
            pytest.skip(f"needs {m} (tools/install-test-deps.sh installs it)")
    want = _PINNED['cases'][key]['outcome']
    got = harness.run(key, wick, wick.vision)
    diff = harness.compare(got, want, c['rtol'], c['atol'])
    assert diff is None, diff


@pytest.mark.skipif(not os.path.exists(VENV_PYTHON), reason=f"no torchvision reference venv at {VENV_PYTHON}")
def test_goldens_match_live_torchvision(tmp_path):
    out = tmp_path / 'golden.json'
    r = subprocess.run([VENV_PYTHON, '-m', 'tests.vision.pin', str(out)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    live = json.loads(out.read_text())
    assert live['cases'] == _PINNED['cases']


@pytest.mark.parametrize('key', sorted(k for k in harness.CASES if k.startswith('model_') and 'vgg' not in k
                                        and 'alexnet' not in k and k not in ('model_errors', 'model_repr')))
def test_torchvision_state_dict_loads_strict(key):
    """A state dict with torchvision's keys, shapes and dtypes (from the golden) loads into wick's model with
    strict=True, and a wrong one is refused."""
    import zlib
    entries = _PINNED['cases'][key]['outcome']['ok']['tuple'][0]['list']
    sd = {}
    for e in entries:
        name, shape, dtype = (v['value'] if 'value' in v else [x['value'] for x in v['list']]
                              for v in e['list'][:3])
        sd[name] = wick.full(shape, 0.5, dtype=getattr(wick, dtype.replace('torch.', '')))
    wick.manual_seed(zlib.crc32(key.encode()))
    kw = {'model_resnet18_num_classes7_zero_init_residualTrue': dict(num_classes=7),
          'model_mobilenet_v3_small_num_classes5_reduced_tailTrue_dilatedTrue':
              dict(num_classes=5, reduced_tail=True, dilated=True),
          'model_mobilenet_v2_width_mult0.5_num_classes3': dict(width_mult=0.5, num_classes=3)}.get(key, {})
    name = key[len('model_'):].split('_num_classes')[0].split('_width')[0]
    model = getattr(wick.vision.models, name)(**kw)
    result = model.load_state_dict(sd, strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    sd.pop(next(iter(sd)))
    with pytest.raises(RuntimeError, match='Missing key'):
        model.load_state_dict(sd, strict=True)

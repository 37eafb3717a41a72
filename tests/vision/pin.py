"""Pin torchvision's answers: `python -m tests.vision.pin [OUT]` under a Python with torch and torchvision
(the reference venv: /work/venv-vision/bin/python -m tests.vision.pin) writes tests/vision/golden.json
(or OUT). tests/test_vision.py compares wick.vision with it, and with a fresh pin when that venv exists."""
import json
import os
import sys

from . import harness, load_cases

GOLDEN = os.path.join(os.path.dirname(__file__), 'golden.json')


def pin(out=GOLDEN):
    import torch
    import torchvision
    load_cases()
    cases = {}
    for key in sorted(harness.CASES):
        c = harness.CASES[key]
        missing = [m for m in c['needs'] if not _importable(m)]
        if missing:
            raise SystemExit(f"vision case {key} needs {missing}, which this Python lacks")
        cases[key] = {'fp': harness.fingerprint(key), 'outcome': harness.run(key, torch, torchvision)}
    meta = {'torch': torch.__version__, 'torchvision': torchvision.__version__}
    with open(out, 'w') as f:
        f.write('{"meta": ' + json.dumps(meta) + ', "cases": {\n')
        f.write(',\n'.join(json.dumps(k) + ': ' + json.dumps(v, separators=(',', ':')) for k, v in cases.items()))
        f.write('\n}}\n')
    print(f"pinned {len(cases)} vision cases with torch {meta['torch']} / torchvision {meta['torchvision']} -> {out}")


def _importable(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


if __name__ == '__main__':
    pin(*sys.argv[1:2])

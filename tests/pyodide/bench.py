# Per-op overhead of a small `a + b` (and two neighbours), for `node tests/pyodide/run.mjs build/js --bench` in
# Pyodide and, side by side, natively:
#   python3 -c "import wick; wick.install_as_torch(); exec(open('tests/pyodide/bench.py').read())"   (or real torch)
import sys
import time

import torch

a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
x = torch.ones(1000)


def per_call(fn, n):
    fn()
    best = float('inf')
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


n = 2000
where = '%s on %s' % (torch.__name__ if torch.__name__ != 'wick' else 'wick', sys.platform)
print('bench %s: a + b (2 floats) %.1f us/call; x + x (1000 floats) %.1f us/call; x.sum().item() %.1f us/call' % (
    where, per_call(lambda: a + b, n), per_call(lambda: x + x, n), per_call(lambda: x.sum().item(), n)))

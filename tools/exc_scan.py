"""A scan, not a test: calls every torch.nn.functional name wick has with a range / str / float in each of the
first 1-3 positions under torch and under wick, and counts where the exception types differ (issue 25 item 5;
2232 calls: 116 differences in 15 functions before session 2026-12-02, 31 in 6 after).

    python3 tools/exc_scan.py
"""
import os, sys, warnings
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
warnings.simplefilter('ignore')
import torch
import wick
F_t, F_w = torch.nn.functional, wick.nn.functional
names = sorted(n for n in dir(F_t) if not n.startswith('_') and callable(getattr(F_t, n)) and hasattr(F_w, n))
bad = [range(3), 'x', 2.5]
def run(T, F, name, args):
    try:
        getattr(F, name)(*args)
        return 'ok'
    except Exception as e:
        return type(e).__name__
diff = []
total = 0
for name in names:
    for nargs in (1, 2, 3):
        for pos in range(nargs):
            for b in bad:
                def mk(T):
                    a = [T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]) for _ in range(nargs)]
                    a[pos] = b
                    return a
                rt = run(torch, F_t, name, mk(torch)); rw = run(wick, F_w, name, mk(wick))
                total += 1
                if rt != rw and not (rt == 'ok' or rw == 'ok'):
                    diff.append((name, nargs, pos, type(b).__name__, rt, rw))
print('calls', total, 'differing types', len(diff), 'functions', len({d[0] for d in diff}))
from collections import Counter
print(Counter((d[4], d[5]) for d in diff).most_common(8))
for d in diff[:400]: print(*d)

#!/usr/bin/env python3
"""bench/vmap_psg.py — per-sample gradients (pytorch/tutorials per_sample_grads: vmap(grad(compute_loss)) over
functional_call) of a small MLP, wick against real torch, in one run on one machine.

    python3 bench/vmap_psg.py [--reps 7] [--batch 64] [--threads 1]

Each side runs in its own process (wick's with its batching vmap and, for the before/after figure, with wick's
loop vmap); the runs alternate (wick, wick-loop, torch, ...) and every figure is the median time per call over
the repetitions. The ratio is wick's median over torch's."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKER = r'''
import sys, time, json, importlib
lib, mode, batch, n, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
T = importlib.import_module(lib)
T.set_num_threads(threads)
F = T.func
if mode == 'loop':
    vmap = lambda f, in_dims: F._vmap_loop(f, in_dims)
else:
    vmap = F.vmap
T.manual_seed(0)
model = T.nn.Sequential(T.nn.Linear(784, 128), T.nn.ReLU(), T.nn.Linear(128, 10))
data, targets = T.randn(batch, 784), T.randint(0, 10, (batch,))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}

def compute_loss(params, buffers, sample, target):
    out = F.functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return T.nn.functional.cross_entropy(out, target.unsqueeze(0))

psg = vmap(F.grad(compute_loss), in_dims=(None, None, 0, 0))
g = psg(params, buffers, data, targets)
for _ in range(3):
    psg(params, buffers, data, targets)
out = []
for line in sys.stdin:
    t0 = time.perf_counter()
    for _ in range(n):
        psg(params, buffers, data, targets)
    out.append((time.perf_counter() - t0) / n)
    print(json.dumps(out[-1]), flush=True)
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reps', type=int, default=7)
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--calls', type=int, default=10)
    ap.add_argument('--threads', type=int, default=1)
    a = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    sides = [('wick', 'batched'), ('wick', 'loop'), ('torch', 'batched')]
    procs = {s: subprocess.Popen([sys.executable, '-c', WORKER, s[0], s[1], str(a.batch), str(a.calls), str(a.threads)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd='/tmp')
             for s in sides}
    times = {s: [] for s in sides}
    for _ in range(a.reps):
        for s in sides:
            p = procs[s]
            p.stdin.write('go\n')
            p.stdin.flush()
            times[s].append(json.loads(p.stdout.readline()))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    med = {s: statistics.median(v) for s, v in times.items()}
    print(f"per-sample gradients, MLP 784-128-10, batch {a.batch}, {a.threads} thread(s), median of {a.reps} x "
          f"{a.calls} calls; load {os.getloadavg()[0]:.2f}")
    for s in sides:
        print(f"  {s[0]:6s} {s[1]:8s} {med[s] * 1e3:9.3f} ms")
    t = med[('torch', 'batched')]
    print(f"  ratio wick/torch: batched vmap {med[('wick', 'batched')] / t:.2f}x, loop vmap (before) "
          f"{med[('wick', 'loop')] / t:.2f}x")


if __name__ == '__main__':
    main()

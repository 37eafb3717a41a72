#!/usr/bin/env python3
"""bench/ab.py — two builds of wick against each other and torch, in one run: is a change faster?

    python3 bench/ab.py OLD_TREE sum_2048x2048_dim1,mean_2048x2048_dim1 [--reps 15] [--threads 2]
    python3 bench/ab.py .@WICK_NO_CACHING_ALLOC=1 sgemm_1024        # this tree with an environment variable set

A is this tree (built), B is OLD_TREE (another checkout, built there: `git worktree add /tmp/old HEAD~1 &&
make -C /tmp/old all`), or this tree with VAR=VALUE set after an `@`. Three long-lived workers (bench/run.py's
workers, so the same workloads) — A, B and torch — answer one timed batch each in turn, the order rotating every
repetition; the figures are medians, and "A faster in n of m" counts the repetitions in which A's batch beat B's.
On a shared machine the host's load moves by tens of percent within minutes; a change that wins most of the
paired repetitions is real, one that wins half is noise."""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import Worker  # noqa: E402


def start(tree, lib, threads):
    """bench/run.py's worker for `tree`, or for this tree with VAR=VALUE set when `tree` is `tree@VAR=VALUE`"""
    env = {}
    if '@' in tree:
        tree, kv = tree.split('@', 1)
        var, val = kv.split('=', 1)
        env[var] = val
    return Worker(lib, threads, tree=os.path.abspath(tree), env=env)


def batch_time(worker, name, batch):
    res = worker.ask(name=name, batch=batch)
    if 'error' in res:
        sys.exit('%s: %s' % (name, res['error']))
    return res['time']


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('b', help='the other tree (B), or .@VAR=VALUE')
    ap.add_argument('names', help='bench/run.py workload names, comma-separated')
    ap.add_argument('--reps', type=int, default=15)
    ap.add_argument('--threads', type=int, default=os.cpu_count())
    ap.add_argument('--batch', type=float, default=0.2, help='seconds per timed batch')
    args = ap.parse_args()
    a_tree = os.path.dirname(HERE)
    b_tree = a_tree + args.b[1:] if args.b.startswith('.@') else args.b
    workers = {'A': start(a_tree, 'wick', args.threads), 'B': start(b_tree, 'wick', args.threads),
               'torch': start(a_tree, 'torch', args.threads)}
    order = list(workers)
    print('A = %s, B = %s, %d thread(s), %d repetitions, load average %.2f' % (a_tree, b_tree, args.threads,
                                                                              args.reps, os.getloadavg()[0]))
    for name in args.names.split(','):
        for w in workers.values():
            batch_time(w, name, args.batch)  # warm-up and calibration
        t = {k: [] for k in workers}
        for i in range(args.reps):
            for k in order[i % 3:] + order[:i % 3]:
                t[k].append(batch_time(workers[k], name, args.batch))
                time.sleep(0.01)  # let torch's OpenMP spinners go to sleep
        m = {k: statistics.median(v) for k, v in t.items()}
        wins = sum(a < b for a, b in zip(t['A'], t['B']))
        print('%-26s A %9.1f us  B %9.1f us  torch %9.1f us   A/torch %.3f  B/torch %.3f  B/A %.3f  '
              '(A faster in %d of %d)' % (name, m['A'] * 1e6, m['B'] * 1e6, m['torch'] * 1e6, m['A'] / m['torch'],
                                         m['B'] / m['torch'], m['B'] / m['A'], wins, args.reps), flush=True)


if __name__ == '__main__':
    main()

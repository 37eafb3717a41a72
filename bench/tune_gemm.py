#!/usr/bin/env python3
"""bench/tune_gemm.py — build src/cpu/gemm.c with several block-size / tile variants (-D flags) and time each
with bench/gemm_bench.c, pinned to cores with taskset, the variants alternating round by round.
Needs `make lib` first.   python3 bench/tune_gemm.py base: kc384:-DKC=384 mr8:-DA5_MR=8
Env: BUILD (default build), CPUS1 (default 0), CPUS2 (default 0,1), ROUNDS (default 2), ARGS (more arguments for
gemm_bench, e.g. `--mlp`).
`python3 bench/tune_gemm.py --torch [threads]`: torch.mm's best times for the same products as gemm_bench (the
square sizes, then the MLP step's products with the same operand layouts), for the side-by-side ratio; run it
pinned like gemm_bench (taskset) and with bench/run.py's --isa avx2 variables to cap torch at AVX2."""
import os
import subprocess
import sys
import time


def torch_times(threads):
    import torch
    torch.set_num_threads(threads)

    def best(fn, calls, reps):
        fn()
        b = 1e30
        for _ in range(reps):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            b = min(b, (time.perf_counter() - t0) / calls)
        return b
    for n in (64, 256, 1024, 2048):
        a, b = torch.randn(n, n), torch.randn(n, n)
        calls = max(1, int(2e8 / n ** 3))
        t = best(lambda: torch.mm(a, b), calls, 9 if n < 2048 else 5)
        print('torch sgemm %-5d threads %d  best %10.2f us  %6.1f GFLOP/s' % (n, threads, t * 1e6, 2 * n ** 3 / t / 1e9))
    # the MLP step's products (bench/gemm_bench.c --mlp): A 'n' [M,K] or 't' (stored [K,M]), B 'n' [K,N] or 't'
    for name, M, N, K, ta, tb in (('fc1_fwd', 64, 256, 784, 'n', 't'), ('fc1_gW', 256, 784, 64, 't', 'n'),
                                  ('fc1_gx', 64, 784, 256, 'n', 'n'), ('fc2_fwd', 64, 10, 256, 'n', 't'),
                                  ('fc2_gh', 64, 256, 10, 'n', 'n'), ('fc2_gW', 10, 256, 64, 't', 'n')):
        a = torch.randn(M, K) if ta == 'n' else torch.randn(K, M).t()
        b = torch.randn(K, N) if tb == 'n' else torch.randn(N, K).t()
        t = best(lambda: torch.mm(a, b), 10, 200)
        print('torch %-10s %4d x %4d x %4d  A%s B%s  threads %d  best %8.2f us  %6.1f GFLOP/s' %
              (name, M, N, K, ta, tb, threads, t * 1e6, 2.0 * M * N * K / t / 1e9))


if len(sys.argv) > 1 and sys.argv[1] == '--torch':
    torch_times(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
    sys.exit(0)

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(root)
B = os.environ.get('BUILD', 'build')
os.makedirs('build/tune', exist_ok=True)
variants = [a.split(':', 1) for a in sys.argv[1:]]
for name, flags in variants:
    subprocess.run('cc -std=gnu11 -O2 -fPIC -ffp-contract=off -pthread -Iinclude -Isrc -I%s/gen %s -c src/cpu/gemm.c '
                   '-o build/tune/gemm_%s.o' % (B, flags, name), shell=True, check=True)
    subprocess.run('cc -std=gnu11 -O2 -Iinclude -Isrc -I%s/gen bench/gemm_bench.c build/tune/gemm_%s.o '
                   '%s/libwick.a -lm -pthread -o build/tune/gb_%s' % (B, name, B, name), shell=True, check=True)
args = os.environ.get('ARGS', '').split()
for r in range(int(os.environ.get('ROUNDS', 2))):
    for name, _ in variants:
        for t, cpus in ((1, os.environ.get('CPUS1', '0')), (2, os.environ.get('CPUS2', '0,1'))):
            out = subprocess.run(['taskset', '-c', cpus, 'build/tune/gb_' + name, str(t)] + args, capture_output=True,
                                 text=True).stdout
            if '--mlp' in args:
                print('\n'.join('%-8s %s' % (name, x) for x in out.splitlines()), flush=True)
                continue
            cells = ['%s:%s/%s' % (x.split()[0], x.split()[4], x.split()[5]) for x in out.splitlines() if x[:1].isdigit()]
            print('%-8s t%d %s' % (name, t, ' '.join(cells)), flush=True)

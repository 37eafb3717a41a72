#!/usr/bin/env python3
"""bench/tune_gemm.py — build src/cpu/gemm.c with several block-size / tile variants (-D flags) and time each
with bench/gemm_bench.c, pinned to cores with taskset, the variants alternating round by round.
Needs `make lib` first.   python3 bench/tune_gemm.py base: kc384:-DKC=384 mr8:-DA5_MR=8
Env: BUILD (default build), CPUS1 (default 0), CPUS2 (default 0,1), ROUNDS (default 2)."""
import os
import subprocess
import sys

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
for r in range(int(os.environ.get('ROUNDS', 2))):
    for name, _ in variants:
        for t, cpus in ((1, os.environ.get('CPUS1', '0')), (2, os.environ.get('CPUS2', '0,1'))):
            out = subprocess.run(['taskset', '-c', cpus, 'build/tune/gb_' + name, str(t)], capture_output=True,
                                 text=True).stdout
            cells = ['%s:%s/%s' % (x.split()[0], x.split()[4], x.split()[5]) for x in out.splitlines() if x[:1].isdigit()]
            print('%-8s t%d %s' % (name, t, ' '.join(cells)), flush=True)

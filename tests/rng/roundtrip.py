#!/usr/bin/env python3
"""roundtrip.py — get_rng_state bytes from C loaded into torch.

    python3 tests/rng/roundtrip.py build/test_random

For several seeds, `test_random --dump-state SEED` seeds a wick generator, runs randn(3, float64) (which
leaves a cached normal) and rand(5), prints the 5056 state bytes, then the outputs of randn(3, float64),
random_() on 700 int64 and randn(40), and the state after them. This script checks that
  1. torch, after the same seed and ops, has exactly the same state bytes;
  2. torch.set_rng_state(C's bytes) followed by the same ops gives C's outputs and C's final state.
The last line is "N passed, M failed".
"""
import subprocess
import sys
import torch


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else 'build/test_random'
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print('FAIL', what)

    for seed in [0, 1, 99, 2**40 + 77, 2**64 - 1]:
        out = subprocess.run([exe, '--dump-state', str(seed)], capture_output=True, text=True, check=True).stdout
        c = dict(line.split(' ', 1) for line in out.strip().split('\n'))
        c = {k: bytes.fromhex(v) for k, v in c.items()}
        torch.manual_seed(seed)
        torch.randn(3, dtype=torch.float64)
        torch.rand(5)
        check(bytes(torch.get_rng_state().tolist()) == c['state'], 'seed %d: torch state == C state' % seed)
        torch.manual_seed(12345)  # scramble, then load C's bytes
        torch.randn(7)
        torch.set_rng_state(torch.tensor(list(c['state']), dtype=torch.uint8))
        nd = torch.randn(3, dtype=torch.float64)
        ri = torch.empty(700, dtype=torch.int64).random_()
        nf = torch.randn(40)
        check(nd.numpy().tobytes() == c['normal_f64'], 'seed %d: randn(3, float64) after set_state' % seed)
        check(ri.numpy().tobytes() == c['random_i64'], 'seed %d: random_() int64 after set_state' % seed)
        check(nf.numpy().tobytes() == c['normal_f32'], 'seed %d: randn(40) after set_state' % seed)
        check(bytes(torch.get_rng_state().tolist()) == c['state_after'], 'seed %d: final state' % seed)
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()

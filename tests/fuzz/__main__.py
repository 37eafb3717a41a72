"""Run the fuzzers of issue 16 (see fuzzers.py), each in its own process so that a crash is caught and its input
kept:

    python3 -m tests.fuzz                       # bounded: every fuzzer, 4 s each, seed 0 (what the test command runs)
    python3 -m tests.fuzz --seconds 600 --seed 7 ckpt pickle     # longer, on demand (make fuzz)
    python3 -m tests.fuzz --no-ref              # wick alone (no torch / safetensors comparison)

Prints per fuzzer the inputs tried, outcomes like the reference's, exception types that differ, inputs wick refused
where the reference loaded, and failures (crashes, wick loading what the reference refuses, other values, a changed
sandbox). Exits 1 on any failure or crash; crashing inputs are copied to --keep (default build/fuzz)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

FUZZERS = ('ckpt', 'pickle', 'safetensors')


def run_one(name, seed, seconds, max_inputs, keep, no_ref, env=None):
    work = tempfile.mkdtemp(prefix='wick-fuzz-')
    # -P as ours: under `make test-asan` the wick on PYTHONPATH (the ASan build) must win over the checkout's
    cmd = [sys.executable] + (['-P'] if sys.flags.safe_path else []) + [
        '-m', 'tests.fuzz.worker', name, str(seed), str(seconds), str(max_inputs), work]
    if no_ref:
        cmd.append('--no-ref')
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith('{')]
    stats = json.loads(lines[-1]) if p.returncode == 0 and lines else None
    kept = []
    os.makedirs(keep, exist_ok=True)
    for f in os.listdir(work):
        dst = os.path.join(keep, '%s-seed%d-%s' % (name, seed, f))
        shutil.copy(os.path.join(work, f), dst)
        kept.append(dst)
    shutil.rmtree(work, ignore_errors=True)
    if stats is None:
        crash = [k for k in kept if 'current.' in k]
        return {'fuzzer': name, 'seed': seed, 'crashed': True, 'returncode': p.returncode,
                'input': crash[0] if crash else None, 'stderr': p.stderr[-2000:]}
    return stats


def main(argv=None):
    ap = argparse.ArgumentParser(prog='python3 -m tests.fuzz')
    ap.add_argument('fuzzers', nargs='*', default=list(FUZZERS))
    ap.add_argument('--seconds', type=float, default=4.0, help='per fuzzer (default 4)')
    ap.add_argument('--inputs', type=int, default=10 ** 9, help='at most this many inputs per fuzzer')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--keep', default=os.path.join('build', 'fuzz'), help='where failing inputs are copied')
    ap.add_argument('--no-ref', action='store_true', help='do not compare with torch / safetensors')
    args = ap.parse_args(argv)
    bad = 0
    for name in args.fuzzers:
        if name not in FUZZERS:
            ap.error('unknown fuzzer %r (have %s)' % (name, ', '.join(FUZZERS)))
        s = run_one(name, args.seed, args.seconds, args.inputs, args.keep, args.no_ref)
        if s.get('crashed'):
            bad += 1
            print('CRASH %s (seed %d): the worker died with status %d; input kept at %s\n%s'
                  % (name, s['seed'], s['returncode'], s['input'], s['stderr']))
            continue
        print('%-12s seed %d: %d inputs against %s: %d alike, %d exception types differ, %d refused by wick only, '
              '%d damaged zips only torch refused, %d failures'
              % (name, s['seed'], s['inputs'], s['reference'] or 'no reference', s['same'], s['type_differs'],
                 s['wick_refused'], s['zip_lenient'], len(s['failures'])))
        if s.get('storage_object') or s.get('ref_unstable'):
            print('    %d bare storages (torch TypedStorage, wick a flat tensor), %d inputs where torch read other '
                  'values on each load' % (s['storage_object'], s['ref_unstable']))
        for ex in s['type_examples']:
            print('    type differs: ' + ex)
        for f in s['failures'][:10]:
            print('    FAIL ' + f)
        if len(s['failures']) > 10:
            print('    ... and %d more failures' % (len(s['failures']) - 10))
        if s['inputs'] == 0:
            print('    FAIL no inputs were tried')
            bad += 1
        bad += len(s['failures'])
    print('fuzz: %s' % ('%d failure(s)' % bad if bad else 'no crashes, no failures'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

"""One fuzzer in one process: python3 -m tests.fuzz.worker NAME SEED SECONDS MAX_INPUTS WORKDIR [--no-ref]

Before loading each input it writes the input to WORKDIR/current.<ext>, so that when wick crashes the process the
driver (tests/fuzz/__main__.py) still has the input that did it. Prints one JSON line of counts at the end."""
import io
import json
import os
import random
import sys
import tempfile
import time
import warnings

MIN_INPUTS = 100   # per run, whatever the time budget (fixed seeds: the first 100 inputs are always the same)


def main(argv):
    name, seed, seconds, max_inputs, workdir = argv[0], int(argv[1]), float(argv[2]), int(argv[3]), argv[4]
    use_ref = '--no-ref' not in argv
    warnings.simplefilter('ignore')
    import wick
    from tests.fuzz import fuzzers as F
    torch = None
    if use_ref:
        try:
            import torch
        except ImportError:
            torch = None
    rng = random.Random(seed)
    stats = {'fuzzer': name, 'seed': seed, 'inputs': 0, 'same': 0, 'type_differs': 0, 'wick_refused': 0,
             'zip_lenient': 0, 'storage_object': 0, 'ref_unstable': 0,
             'failures': [], 'type_examples': [], 'reference': None}
    cur = os.path.join(workdir, 'current.' + ('safetensors' if name == 'safetensors' else 'pt'))
    if name == 'ckpt':
        seeds = F.seed_checkpoints(torch)
        stats['seeds'] = len(seeds)
        make = lambda: F.mutate_checkpoint(rng, rng.choice(seeds))  # noqa: E731
    elif name == 'pickle':
        make = lambda: F.crafted_pickle(rng)  # noqa: E731
        sandbox = F._sandbox_state(wick)
    elif name == 'safetensors':
        make = lambda: F.mutate_safetensors(rng)  # noqa: E731
        try:
            import safetensors.torch as st
        except ImportError:
            st = None
    else:
        raise SystemExit('unknown fuzzer %r' % name)
    if name in ('ckpt', 'pickle'):
        stats['reference'] = 'torch %s' % torch.__version__ if torch else None
    else:
        stats['reference'] = 'safetensors.torch' if (st and torch) else None
    deadline = time.monotonic() + seconds   # after the setup: a loaded machine still tries MIN_INPUTS inputs
    while stats['inputs'] < max_inputs and (stats['inputs'] < MIN_INPUTS or time.monotonic() < deadline):
        data = make()
        with open(cur, 'wb') as fh:
            fh.write(data)
        if name == 'safetensors':
            w = F.outcome(wick, lambda: dict(sorted(wick.load_safetensors(cur).items())))
            r = F.outcome(torch, lambda: dict(sorted(st.load(data).items()))) if (st and torch) else None
        else:
            w = F.outcome(wick, lambda: wick.load(io.BytesIO(data)))
            r = F.outcome(torch, lambda: torch.load(io.BytesIO(data))) if torch else None
        verdict = F.compare(w, r)
        if verdict.startswith('FAIL: loaded other') and name != 'safetensors' and \
                F.outcome(torch, lambda: torch.load(io.BytesIO(data))) != r:
            verdict = 'ref_unstable'   # torch itself reads other values each time (uninitialised memory)
        if name == 'pickle' and not F.sandbox_intact(wick, sandbox):
            verdict = 'FAIL: a load changed process-wide state (Size / device / rebuild functions / safe globals)'
        if name == 'safetensors' and verdict.startswith('FAIL: wick loaded'):
            verdict = 'refused'   # wick's reader is its own API; only crashes and wrong values fail here
        stats['inputs'] += 1
        if verdict == 'same':
            stats['same'] += 1
        elif verdict == 'type':
            stats['type_differs'] += 1
            if len(stats['type_examples']) < 5:
                stats['type_examples'].append('wick %s, reference %s' % (w[1], r[1]))
        elif verdict == 'refused':
            stats['wick_refused'] += 1
        elif verdict in ('zip_lenient', 'storage_object', 'ref_unstable'):
            stats[verdict] += 1
        else:
            keep = os.path.join(workdir, 'failure-%d.%s' % (len(stats['failures']), cur.rsplit('.', 1)[1]))
            with open(keep, 'wb') as fh:
                fh.write(data)
            stats['failures'].append('%s (wick %s, reference %s): %s' % (verdict, w[0] + ':' + str(w[1])[:80],
                                                                         r and (r[0] + ':' + str(r[1])[:80]), keep))
            if name == 'pickle':
                sandbox = F._sandbox_state(wick)
    os.remove(cur) if os.path.exists(cur) else None
    print(json.dumps(stats))


if __name__ == '__main__':
    tempfile.tempdir = None
    main(sys.argv[1:])

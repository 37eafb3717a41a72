"""Pin torch's answers into tests/parity/golden/<casefile>.json.

    python3 -m tests.parity.pin [FILE ...]      # default: every cases_*.py

Every case runs under real torch (fresh state, its fixed seed); a case whose torch outcome is invalid
(it raised without being an error_case, returned None, its match= regex does not match, ...) is not
pinned and the command exits non-zero.  A file is rewritten as a whole, so deleted cases disappear.
"""
import argparse
import sys
import time

from . import golden
from .runner import collect, discover, import_torch, run_side, validate_ref


def pin_cases(cases, torch, missing):
    """Run cases under torch -> (golden entries, [(case, why)] for cases that cannot be pinned)."""
    entries, bad = [], []
    for c in cases:
        out = run_side(c, torch, "ref", missing)
        why = validate_ref(c, out)
        if why:
            bad.append((c, why))
        else:
            entries.append((c.name, c.kind, golden.fingerprint(c), out))
    return entries, bad


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m tests.parity.pin", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="case file stems; default: all")
    a = ap.parse_args(argv)
    t0 = time.time()
    torch = import_torch()
    files = [f[:-3] if f.endswith(".py") else f for f in a.files] or discover()
    nbad = total = 0
    missing = {}
    for stem in files:
        cases, errors = collect([stem])
        for _, e in errors:
            print(f"LOAD ERROR {stem}.py: {e}")
            nbad += 1
        if errors:
            continue
        entries, bad = pin_cases(cases, torch, missing)
        for c, why in bad:
            print(f"INVALID {c.id}: {why}")
        nbad += len(bad)
        golden.write(stem, torch.__version__, entries)
        total += len(entries)
        print(f"pinned {len(entries):5d} cases -> {golden.path_for(stem)}")
    for k, v in missing.items():
        print(f"note: reset {k} failed: {v}")
    print(f"pinned {total} cases from {len(files)} files with torch {torch.__version__} "
          f"in {time.time() - t0:.1f}s; {nbad} problems")
    return 1 if nbad else 0


if __name__ == "__main__":
    sys.exit(main())

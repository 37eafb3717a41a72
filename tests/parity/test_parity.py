"""The parity suite under pytest: one test per case file (library from $WICK_PARITY_LIB, default wick),
and one per golden file checking it still matches live torch.  The plain CLI (python3 -m tests.parity)
prints the counts; this is the same run, reported per file."""
import importlib.util
import io
import os

import pytest

from tests.parity import runner

LIB = os.environ.get("WICK_PARITY_LIB", "wick")
FILES = runner.discover()
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def _report(results, errors, missing, extra=()):
    out = io.StringIO()
    ok = runner.summarize(results, errors, missing, out, max_failures=40, extra=extra)
    if not ok:
        pytest.fail(out.getvalue(), pytrace=False)


@pytest.mark.parametrize("stem", FILES)
def test_parity(stem):
    cases, errors = runner.collect([stem])
    torch = runner.import_torch() if HAVE_TORCH else None
    lib = runner.import_lib(LIB)
    results, missing = runner.Runner(lib, "live" if HAVE_TORCH else "golden", torch).run(cases)
    _report(results, errors, missing)


@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not importable here: goldens can only be checked against live torch")
@pytest.mark.parametrize("stem", FILES)
def test_golden_current(stem):
    cases, errors = runner.collect([stem])
    results, missing = runner.Runner(None, "check-golden", runner.import_torch()).run(cases)
    _report(results, errors, missing, runner.extra_golden_entries(cases, [stem]))

"""Collect parity cases, run them under the reference and the library, judge, report.

    python3 -m tests.parity [--lib wick|torch|pkg.module] [-k PATTERN] [--golden | --check-golden]
                            [-j N] [--max-failures N] [-v] [FILE ...]

Reference: live torch (default when torch is importable), or the golden files (--golden, or when torch
is absent).  --check-golden runs no library: it checks that the golden files still hold what live torch
answers today (and that no case changed since it was pinned).

Exit status 0 only if cases were collected and run, none failed, none was invalid (a case that raised in
torch without being an error_case, an error_case torch did not raise, a stale/missing golden, a case with
zero comparisons, a case file that failed to load).  Never pipe it into grep/head/tail in CI.
"""
import argparse
import collections
import contextlib
import faulthandler
import importlib
import importlib.util
import os
import re
import sys
import time
import traceback
import types
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARITY = os.path.dirname(os.path.abspath(__file__))
if REPO not in sys.path:
    sys.path.append(REPO)  # for "tests.parity"; appended so PYTHONPATH still decides which wick is tested

from . import golden as golden_mod  # noqa: E402
from . import harness  # noqa: E402
from .capture import Capturer, capture_exception, capture_warnings  # noqa: E402
from .compare import Comparer, show  # noqa: E402

PKG = __name__.rpartition(".")[0]
FORBIDDEN_ROOTS = ("torch", "wick")


class LoadError(Exception):
    pass


# ------------------------------------------------------------------------------------------ loading
def discover():
    return sorted(f[:-3] for f in os.listdir(PARITY) if f.startswith("cases_") and f.endswith(".py"))


def _check_module(mod):
    """A case file must reach torch/wick only through T: a case calling torch directly would run torch on
    both sides and pass trivially."""
    for name, v in vars(mod).items():
        if isinstance(v, types.ModuleType):
            root = v.__name__
        else:
            root = getattr(v, "__module__", None)
            root = root if isinstance(root, str) else type(v).__module__
        root = root.split(".")[0]
        if root in FORBIDDEN_ROOTS:
            raise LoadError(f"{mod.__name__} binds {name!r} from {root}: cases must use the module argument T only")


def load_file(stem):
    try:
        mod = importlib.import_module(f"{PKG}.{stem}")
        _check_module(mod)
    except LoadError:
        raise
    except Exception as e:  # a broken case file is reported, not fatal to the whole run
        raise LoadError(f"importing {stem}.py failed: {type(e).__name__}: {e}") from e
    cases = list(harness._BY_MODULE.get(mod.__name__, []))
    dup = [n for n, c in collections.Counter(c.name for c in cases).items() if c > 1]
    if dup:
        raise LoadError(f"{stem}.py: duplicate case names {dup[:5]}")
    return cases


def select(cases, pattern):
    if not pattern:
        return cases
    if pattern.startswith("re:"):
        rx = re.compile(pattern[3:])
        return [c for c in cases if rx.search(c.id)]
    return [c for c in cases if pattern in c.id]


def collect(files=None, pattern=None):
    """-> (cases, load_errors)"""
    cases, errors = [], []
    for stem in files or discover():
        try:
            cases.extend(load_file(stem))
        except LoadError as e:
            errors.append((stem, str(e)))
    return select(cases, pattern), errors


def import_lib(name):
    """'wick', 'torch', 'pkg.module', or 'pkg.module:attr' (an attribute of a module, e.g. a stand-in)."""
    modname, _, attr = name.partition(":")
    if modname == "torch" or modname.startswith("torch."):
        os.environ.setdefault("TORCH_SHOW_CPP_STACKTRACES", "0")
    mod = importlib.import_module(modname)
    return getattr(mod, attr) if attr else mod


def import_torch():
    if "torch" not in sys.modules:
        os.environ["TORCH_SHOW_CPP_STACKTRACES"] = "0"  # normalisation strips the backtrace anyway
    import torch
    return torch


# ---------------------------------------------------------------------------------------- running
_CAPTURERS = {}


def _capturer(T):
    c = _CAPTURERS.get(id(T))
    if c is None or c.T is not T:
        c = _CAPTURERS[id(T)] = Capturer(T)
    return c


_RESETS = (
    ("set_default_dtype", lambda T, s: T.set_default_dtype(T.float32)),
    ("set_grad_enabled", lambda T, s: T.set_grad_enabled(True)),
    ("set_printoptions", lambda T, s: T.set_printoptions(profile="default")),
    ("set_warn_always", lambda T, s: T.set_warn_always(True)),
    ("autograd.set_detect_anomaly", lambda T, s: T.autograd.set_detect_anomaly(False)),
    ("manual_seed", lambda T, s: _seed(T, s)),
    ("distributions.Distribution.set_default_validate_args", lambda T, s: _validate_args_on(T)),
)


def _validate_args_on(T):
    """torch.distributions' default argument validation on (its default under __debug__): torch turns it off for
    the whole process when something imports torch._dynamo (torch.compile, torch.cond), so a case could see the
    previous cases' state. Only where the side has loaded its distributions module (wick loads it lazily)."""
    d = sys.modules.get(T.__name__ + ".distributions")
    if d is not None:
        d.Distribution.set_default_validate_args(True)


def _seed(T, s):
    if T.__name__ == "torch":
        # = torch.manual_seed(s) on a CPU-only torch, minus the lazily queued CUDA/XPU/MTIA seeding that
        # costs ~1 ms (a formatted stack per call) and grows a queue on every call.
        T.random.default_generator.manual_seed(s)
    else:
        T.manual_seed(s)


def reset_state(T, seed, missing):
    """Fresh state before every case on every side: default dtype float32, grad mode on, default print
    options, C++ warn-once warnings always shown, anomaly mode off, manual_seed(case.seed), distributions'
    argument validation on."""
    for what, fn in _RESETS:
        try:
            fn(T, seed)
        except Exception as e:
            missing[f"{T.__name__}.{what}"] = f"{type(e).__name__}: {e}"


def run_side(case, T, side, missing, ctx=None):
    """Run one case with module T.  -> outcome dict:
    {"ok": tree, "warnings": [...]} | {"raised": exc, "warnings": [...]} | {"case_error": str} | {"capture_error": str}"""
    harness.SIDE = side
    root = T.__name__.split(".")[0]
    reset_state(T, case.seed, missing)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with (ctx() if ctx is not None else contextlib.nullcontext()):
            try:
                val = case.execute(T)
            except harness.CaseDefinitionError as e:
                return {"case_error": str(e)}
            except Exception as e:
                try:
                    exc = capture_exception(e, root)
                except Exception as e2:
                    return {"capture_error": f"capturing the exception failed: {type(e2).__name__}: {e2}"}
                return {"raised": exc, "warnings": capture_warnings(rec, root)}
            nwarn = len(rec)
            try:
                tree = _capturer(T)(val)
            except Exception as e:
                return {"capture_error": f"{type(e).__name__}: {e}"}
    return {"ok": tree, "warnings": capture_warnings(rec[:nwarn], root)}


def validate_ref(case, ref):
    """Why torch's outcome makes the case invalid, or None."""
    if "case_error" in ref:
        return f"case definition error (under torch): {ref['case_error']}"
    if "capture_error" in ref:
        return f"capturing torch's result failed: {ref['capture_error']}"
    if case.kind == "error":
        if "raised" not in ref:
            return f"error_case, but torch did not raise (it returned {show(ref['ok'])})"
        if case.match is not None and not re.search(case.match, ref["raised"]["msg"]):
            return f"match={case.match!r} does not match torch's message {ref['raised']['msg']!r}"
    else:
        if "raised" in ref:
            r = ref["raised"]
            return f"torch raised {r['type']}: {r['msg']!r} (declare error_case if this is intended)"
        if ref["ok"] == {"k": "none"}:
            return "the case returned None: return the value to compare"
    return None


class Result:
    __slots__ = ("id", "status", "detail", "ncmp", "lib_exc", "where", "skip")

    def __init__(self, case, status, detail="", ncmp=0, lib_exc=None):
        self.id, self.status, self.detail, self.ncmp, self.lib_exc = case.id, status, detail, ncmp, lib_exc
        self.where = f"{os.path.relpath(case.src_file, REPO)}:{case.src_line}" if case.src_file else "?"
        self.skip = case.skip


def judge(case, ref, lib, labels=("torch", "lib")):
    """Compare one case's outcomes.  lib=None means: reference validity only (skip)."""
    why = validate_ref(case, ref)
    if why:
        return Result(case, "invalid", why)
    if lib is None:
        return Result(case, "skip", case.skip)
    R, L = labels
    if "case_error" in lib:
        return Result(case, "fail", f"case driver under {L}: {lib['case_error']}")
    if "capture_error" in lib:
        return Result(case, "fail", f"capturing {L}'s result failed: {lib['capture_error']}")
    cmp = Comparer(case.rtol, case.atol)
    if case.kind == "error":
        if "raised" not in lib:
            r = ref["raised"]
            return Result(case, "fail", f"{R} raised {r['builtin']}: {r['msg']!r} but {L} returned {show(lib['ok'])}")
        cmp.exception(ref["raised"], lib["raised"], case.match)
    else:
        if "raised" in lib:
            e = lib["raised"]
            return Result(case, "fail", f"{L} raised {e['type']}: {e['msg']}", lib_exc=e["builtin"])
        cmp.node(ref["ok"], lib["ok"])
    if case.warns:
        cmp.warnings(ref["warnings"], lib["warnings"])
    if cmp.ndiff:
        d = cmp.diffs[0]
        more = f"  [+{cmp.ndiff - 1} more differences]" if cmp.ndiff > 1 else ""
        text = f"{d.path}: {L} {d.lib} != {R} {d.ref}" + (f" ({d.why})" if d.why else "") + more
        return Result(case, "fail", text, cmp.n)
    if cmp.n == 0:
        return Result(case, "invalid", "zero comparisons were made: the case checks nothing")
    return Result(case, "pass", "", cmp.n)


class Runner:
    """mode: "live" (torch vs lib), "golden" (golden vs lib), "check-golden" (golden vs live torch)."""

    def __init__(self, lib=None, mode="live", torch_module=None):
        self.lib, self.mode = lib, mode
        self.torch = torch_module
        self.missing = {}
        self.goldens = {}
        self.lib_is_torch = lib is not None and lib.__name__ == "torch"
        self.ctx = getattr(lib, "__parity_context__", None) if lib is not None else None

    def golden_ref(self, case):
        if case.file not in self.goldens:
            self.goldens[case.file] = golden_mod.load(case.file)
        g = self.goldens[case.file]
        if g is None:
            return None, f"no golden file {os.path.relpath(golden_mod.path_for(case.file), REPO)} (run python3 -m tests.parity.pin)"
        e = g["cases"].get(case.name)
        if e is None:
            return None, "no golden entry for this case (run python3 -m tests.parity.pin)"
        if e["kind"] != case.kind or e["fp"] != golden_mod.fingerprint(case):
            return None, "golden is stale: the case changed since it was pinned (run python3 -m tests.parity.pin)"
        return e["outcome"], None

    def run_case(self, case):
        try:
            if self.mode != "live" and case.cpu_dependent is not None:
                r = Result(case, "skip")
                r.skip = f"compared with live torch only: torch's answer depends on the CPU ({case.cpu_dependent})"
                return r
            if self.mode == "live":
                ref = run_side(case, self.torch, "ref", self.missing)
            else:
                ref, why = self.golden_ref(case)
                if why:
                    return Result(case, "invalid", why)
            if self.mode == "check-golden":
                live = run_side(case, self.torch, "ref", self.missing)
                bad = validate_ref(case, live)
                return Result(case, "invalid", bad) if bad else judge(case, ref, live, ("golden", "live torch"))
            skip = case.skip is not None and not self.lib_is_torch
            lib = None if skip else run_side(case, self.lib, "lib", self.missing, self.ctx)
            return judge(case, ref, lib)
        except Exception as e:  # a harness bug: report at the case, never as a pass
            return Result(case, "invalid", f"harness error: {type(e).__name__}: {e}\n{traceback.format_exc()}")

    def run(self, cases, jobs=1):
        if jobs <= 1 or len(cases) < 2:
            return [self.run_case(c) for c in cases], dict(self.missing)
        import multiprocessing as mp
        global _WORK
        _WORK = (self, cases)
        chunks = [list(range(i, len(cases), jobs)) for i in range(jobs)]
        with mp.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_work, chunks)
        out = [None] * len(cases)
        missing = {}
        for idx, (res, miss) in zip(chunks, parts):
            missing.update(miss)
            for i, r in zip(idx, res):
                out[i] = r
        return out, missing


_WORK = None


def _work(idx):
    runner, cases = _WORK
    res = [runner.run_case(cases[i]) for i in idx]
    return res, runner.missing


def extra_golden_entries(cases, files):
    """Golden entries whose case no longer exists (files: the stems fully collected)."""
    names = collections.defaultdict(set)
    for c in cases:
        names[c.file].add(c.name)
    out = []
    for f in files:
        g = golden_mod.load(f)
        if g:
            out += [f"{f}::{n}" for n in g["cases"] if n not in names[f]]
    return out


# --------------------------------------------------------------------------------------- reporting
def summarize(results, load_errors, missing, out, max_failures=50, verbose=False, extra=(), collected=None):
    """Print failures and the counts; -> True when the run is a pass (see the module docstring)."""
    by = collections.Counter(r.status for r in results)
    ncmp = sum(r.ncmp for r in results)
    compared = sum(1 for r in results if r.ncmp > 0)
    bad = [r for r in results if r.status in ("fail", "invalid")]
    shown = bad if max_failures <= 0 else bad[:max_failures]
    for r in shown:
        tag = "FAIL" if r.status == "fail" else "INVALID"
        out.write(f"{tag} {r.id}: {r.detail}\n     at {r.where}\n")
    if len(shown) < len(bad):
        out.write(f"... and {len(bad) - len(shown)} more (--max-failures 0 lists all)\n")
    if verbose:
        for r in results:
            if r.status == "pass":
                out.write(f"pass {r.id} ({r.ncmp} comparisons)\n")
    for stem, err in load_errors:
        out.write(f"LOAD ERROR {stem}.py: {err}\n")
    for e in extra:
        out.write(f"STALE GOLDEN {e}: golden entry without a case (re-pin)\n")
    skips = collections.Counter(r.skip for r in results if r.status == "skip")
    if skips:
        out.write(f"skipped {sum(skips.values())}:\n")
        for reason, n in skips.most_common():
            out.write(f"  {n:5d} x {reason}\n")
    lib_exc = collections.Counter(r.lib_exc for r in results if r.lib_exc)
    if lib_exc:
        out.write("library raised where torch returned: " + ", ".join(f"{k} {v}" for k, v in lib_exc.most_common()) + "\n")
    if missing:
        out.write("state reset incomplete (these resets failed; cases may see leftover state):\n")
        for k, v in sorted(missing.items()):
            out.write(f"  {k}: {v[:150]}\n")
    n = len(results)
    sel = f" ({collected} in the files, {n} selected by -k)" if collected is not None and collected != n else ""
    out.write(f"collected {n} cases{sel}; ran {n - by['skip']}; compared {compared} cases ({ncmp} comparisons); "
              f"passed {by['pass']}, failed {by['fail']}, invalid {by['invalid']}, skipped {by['skip']}"
              f"{f', load errors {len(load_errors)}' if load_errors else ''}\n")
    return n > 0 and not bad and not load_errors and not extra and compared > 0


def main(argv=None, out=None):
    out = out or sys.stdout
    ap = argparse.ArgumentParser(prog="python3 -m tests.parity", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="case file stems (cases_creation ...); default: all")
    ap.add_argument("--lib", default="wick", help="module under test: wick (default), torch, a dotted module path, "
                    "or module:attr (e.g. tests.parity.standins:offbyone)")
    ap.add_argument("-k", dest="pattern", help="only case ids (file::name) containing this; 're:REGEX' for a regex")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--golden", action="store_true", help="compare against the golden files instead of live torch")
    g.add_argument("--check-golden", action="store_true", help="check that goldens match live torch (runs no library)")
    ap.add_argument("-j", type=int, default=1, help="worker processes (fork)")
    ap.add_argument("--max-failures", type=int, default=50, help="failures to print (0: all)")
    ap.add_argument("-v", action="store_true", help="also list passing cases")
    a = ap.parse_args(argv)
    faulthandler.enable()
    t0 = time.time()
    files = [f[:-3] if f.endswith(".py") else os.path.basename(f) for f in a.files] or None
    everything, load_errors = collect(files)
    cases = select(everything, a.pattern)
    try:
        have_torch = sys.modules.get("torch") is not None or (
            "torch" not in sys.modules and importlib.util.find_spec("torch") is not None)
    except (ImportError, ValueError):
        have_torch = False
    mode = "check-golden" if a.check_golden else "golden" if a.golden or not have_torch else "live"
    torch_mod = lib = None
    if mode in ("live", "check-golden"):
        torch_mod = import_torch()
    if mode != "check-golden":
        try:
            lib = torch_mod if a.lib == "torch" and torch_mod is not None else import_lib(a.lib)
        except Exception as e:
            out.write(f"cannot import library {a.lib!r}: {type(e).__name__}: {e}\n")
            return 2
    where = getattr(lib, "__file__", None) if lib is not None else None
    ref = {"live": f"live torch {torch_mod.__version__ if torch_mod else ''}",
           "golden": "golden files", "check-golden": f"golden files vs live torch {getattr(torch_mod, '__version__', '')}"}[mode]
    out.write(f"wick parity: lib={a.lib if lib is not None else '-'}"
              f"{f' ({where or chr(63)})' if lib is not None else ''} reference={ref}"
              f"{'' if have_torch or mode != 'golden' else ' (torch not importable)'}\n")
    if lib is not None and where is None:
        out.write(f"note: {a.lib} has no __file__ (a namespace package: is the library built?)\n")

    runner = Runner(lib, mode, torch_mod)
    results, missing = runner.run(cases, a.j)
    extra = []
    if mode == "check-golden" and not a.pattern:
        extra = extra_golden_entries(cases, files or discover())
        gv = {golden_mod.load(f).get("torch") for f in (files or discover()) if golden_mod.load(f)}
        if gv and gv != {torch_mod.__version__}:
            out.write(f"note: goldens were pinned with torch {sorted(gv)}, live torch is {torch_mod.__version__}\n")
    ok = summarize(results, load_errors, missing, out, a.max_failures, a.v, extra, len(everything))
    out.write(f"{'OK' if ok else 'FAILED'} in {time.time() - t0:.1f}s\n")
    return 0 if ok else 1

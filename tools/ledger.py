#!/usr/bin/env python3
"""Coverage ledger: which public names of torch exist in wick, derived (never typed) from both modules.

    python3 tools/ledger.py [--lib wick] [--reasons tests/ledger_reasons.txt] [--out docs/ledger.md] [--check]

What counts as a public name (the rule; torch is the reference, wick is looked up under the same path):

  torch, torch.nn.functional
      every name in dir(ns) that does not start with "_", except
        - modules: torch's own submodules (torch.linalg ...) are reported apart and not counted; other
          modules imported into the namespace (F.math, torch.os ...) are ignored;
        - re-exports from the typing module (TYPE_CHECKING, Optional, Callable ...), found by identity;
        - classes and functions whose __module__ lies outside torch (F.DType is builtins.int, ...).
      Everything else counts: functions, classes, dtypes, layouts, constants (torch.pi), flags.
  torch.Tensor
      every name in dir(torch.Tensor) that does not start with "_" (methods and properties).
  torch submodules
      the modules in dir(torch) (torch.linalg, torch.nn ...): present when wick has a module of that
      name; listed with the absent names and their reasons, not counted in the totals.
  torch.Tensor operators
      dunder names (__add__, __getitem__, __repr__ ...) that torch.Tensor or a base class other than
      object defines, minus bookkeeping (__dict__, __module__, __doc__ ...).  wick has one only if its
      Tensor defines it too (inheriting object's __repr__ does not count).

A name is present in wick when the object at the same path has an attribute of that name.

Reasons (tests/ledger_reasons.txt): lines "pattern: reason", '#' comments; the pattern is an fnmatch
glob on the qualified torch name (torch.cuda*, torch.Tensor.is_*, torch.nn.functional.*_notes).  The
first matching line gives an absent name its reason; absent names without one are "not yet".  The
ledger also reports reason lines that match nothing absent, and reasons that match names wick has (a
reason that is no longer true) -- with --check these make the exit status 1.
"""
import argparse
import fnmatch
import importlib
import os
import sys
import types
import typing

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_REASONS = os.path.join(REPO, "tests", "ledger_reasons.txt")
NOT_YET = "not yet"
_BOOKKEEPING = {"__dict__", "__module__", "__doc__", "__weakref__", "__slots__", "__annotations__",
                "__qualname__", "__init_subclass__", "__subclasshook__", "__class__", "__new__", "__init__",
                "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__dir__", "__sizeof__",
                "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__hash__", "__firstlineno__",
                "__static_attributes__", "__type_params__"}
_MISSING = object()


def _foreign(name, value):
    if getattr(typing, name, _MISSING) is value:
        return True
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)):
        mod = getattr(value, "__module__", None)
        return isinstance(mod, str) and mod.split(".")[0] != "torch"
    return False


def module_names(ns):
    """-> (public names, public submodule names) of a torch namespace module."""
    names, subs = [], []
    for n in dir(ns):
        if n.startswith("_"):
            continue
        try:
            v = getattr(ns, n)
        except Exception:  # a lazy attribute that fails to load is still a name
            names.append(n)
            continue
        if isinstance(v, types.ModuleType):
            if v.__name__.startswith("torch."):  # not math, os, ... imported into the namespace
                subs.append(n)
        elif not _foreign(n, v):
            names.append(n)
    return sorted(names), sorted(subs)


def class_names(cls):
    return sorted(n for n in dir(cls) if not n.startswith("_"))


def class_dunders(cls):
    out = set()
    for c in cls.__mro__:
        if c is object:
            continue
        out.update(n for n in vars(c) if n.startswith("__") and n.endswith("__") and n not in _BOOKKEEPING)
    return sorted(out)


def has_dunder(cls, name):
    # Looked up in the class's own MRO dicts: getattr would also find object's methods and the
    # metaclass's (type.__or__), which the library did not write.
    return isinstance(cls, type) and any(name in vars(c) for c in cls.__mro__ if c is not object)


def resolve(root, path):
    """root module, 'nn.functional' -> object or None."""
    obj = root
    for part in [p for p in path.split(".") if p]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# ---------------------------------------------------------------------------------------- reasons
def load_reasons(path):
    """-> [(pattern, reason, lineno)]; raises ValueError on a malformed line."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            pat, sep, reason = s.partition(": ")
            if not sep or not pat.strip() or not reason.strip():
                raise ValueError(f"{path}:{i}: expected 'name-or-pattern: reason', got {s!r}")
            out.append((pat.strip(), reason.strip(), i))
    return out


def reason_for(qualname, reasons):
    for pat, reason, i in reasons:
        if fnmatch.fnmatchcase(qualname, pat):
            return reason, i
    return NOT_YET, None


# ---------------------------------------------------------------------------------------- ledger
def build(torch, lib, reasons):
    """-> dict with rows per namespace, absent names with reasons, submodules, reason problems."""
    T = torch.Tensor
    L = getattr(lib, "Tensor", None)
    F = resolve(torch, "nn.functional")
    LF = resolve(lib, "nn.functional")
    tnames, tsubs = module_names(torch)
    fnames, _ = module_names(F)
    spaces = [
        ("torch", "torch", tnames, lambda n: hasattr(lib, n)),
        ("torch.Tensor", "torch.Tensor", class_names(T), lambda n: L is not None and hasattr(L, n)),
        ("torch.Tensor operators", "torch.Tensor", class_dunders(T), lambda n: has_dunder(L, n)),
        ("torch.nn.functional", "torch.nn.functional", fnames, lambda n: LF is not None and hasattr(LF, n)),
    ]
    rows, used, contradicted = [], set(), []
    for label, prefix, names, present in spaces:
        have, absent = [], []
        for n in names:
            q = f"{prefix}.{n}"
            reason, line = reason_for(q, reasons)
            if present(n):
                have.append(n)
                if line is not None:
                    contradicted.append((q, line, reason))
            else:
                absent.append((n, reason))
                if line is not None:
                    used.add(line)
        rows.append({"label": label, "prefix": prefix, "total": len(names), "present": have, "absent": absent})
    subs = []
    for s in tsubs:
        have = isinstance(getattr(lib, s, None), types.ModuleType)
        reason, line = reason_for(f"torch.{s}", reasons)
        if line is not None:
            (contradicted.append((f"torch.{s}", line, reason)) if have else used.add(line))
        subs.append((s, have, reason))
    lib_public, _ = module_names(lib) if isinstance(lib, types.ModuleType) else ([], [])
    extras = sorted(set(lib_public) - set(tnames) - set(tsubs))
    unused = [(p, r, i) for p, r, i in reasons if i not in used and not any(c[1] == i for c in contradicted)]
    return {"rows": rows, "subs": subs, "extras": extras, "unused": unused, "contradicted": contradicted}


def render(led, torch_version, lib_name, lib_version):
    o = []
    w = o.append
    w("# wick coverage ledger\n")
    w(f"Generated by `python3 tools/ledger.py` from torch {torch_version} and {lib_name} {lib_version}: "
      "every count is derived from `dir()` of both modules (the rule is at the top of tools/ledger.py); "
      "do not edit by hand.\n")
    w("| namespace | public in torch | present in wick | absent | coverage |")
    w("|---|---:|---:|---:|---:|")
    tot = pres = 0
    for r in led["rows"]:
        n, p = r["total"], len(r["present"])
        tot, pres = tot + n, pres + p
        w(f"| `{r['label']}` | {n} | {p} | {n - p} | {100.0 * p / n if n else 0:.1f}% |")
    w(f"| **total** | {tot} | {pres} | {tot - pres} | {100.0 * pres / tot if tot else 0:.1f}% |\n")
    subs = led["subs"]
    w(f"Public submodules of torch (not counted above): {sum(1 for _, h, _ in subs if h)} of {len(subs)} present "
      "in wick: " + ", ".join(f"`{s}`" for s, h, _ in subs if h) + ".\n")
    if led["extras"]:
        w(f"Public names in wick that torch does not have ({len(led['extras'])}): "
          + ", ".join(f"`{n}`" for n in led["extras"]) + "\n")
    if led["contradicted"] or led["unused"]:
        w("## Reason problems\n")
        for q, line, reason in led["contradicted"]:
            w(f"- `{q}` is present in wick, but tests/ledger_reasons.txt line {line} gives it a reason: {reason}")
        for p, r, i in led["unused"]:
            w(f"- line {i} `{p}` matches no absent name: {r}")
        w("")
    w("## Absent names, by reason\n")
    absent_subs = [(s, reason) for s, h, reason in subs if not h]
    if absent_subs:
        led = dict(led, rows=[{"label": "torch submodules", "absent": absent_subs}] + led["rows"])
    for r in led["rows"]:
        if not r["absent"]:
            continue
        w(f"### `{r['label']}` ({len(r['absent'])} absent)\n")
        by = {}
        for n, reason in r["absent"]:
            by.setdefault(reason, []).append(n)
        for reason in sorted(by, key=lambda x: (x != NOT_YET, x)):
            names = by[reason]
            w(f"- **{reason}** ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
        w("")
    return "\n".join(o)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default="wick", help="module to measure (default wick; a dotted path or module:attr)")
    ap.add_argument("--reasons", default=DEFAULT_REASONS)
    ap.add_argument("--out", help="also write the markdown here (e.g. docs/ledger.md)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a reason line is unused or contradicted")
    a = ap.parse_args(argv)
    if REPO not in sys.path:
        sys.path.append(REPO)
    import torch
    modname, _, attr = a.lib.partition(":")
    try:
        lib = importlib.import_module(modname)
        lib = getattr(lib, attr) if attr else lib
    except Exception as e:
        print(f"cannot import {a.lib}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    try:
        reasons = load_reasons(a.reasons)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    led = build(torch, lib, reasons)
    text = render(led, torch.__version__, a.lib, getattr(lib, "__version__", "(no __version__)"))
    sys.stdout.write(text)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text)
    if a.check and (led["unused"] or led["contradicted"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

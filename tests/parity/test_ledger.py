"""tools/ledger.py against a stand-in library (it must work while wick lacks most names)."""
import importlib.util
import os
import sys
import types

import pytest

torch = pytest.importorskip("torch", reason="the ledger measures against real torch")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("ledger", os.path.join(REPO, "tools", "ledger.py"))
ledger = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ledger)


def fake_lib():
    m = types.ModuleType("fakewick")
    m.__version__ = "0.0"
    m.tensor = lambda *a: None
    m.zeros = lambda *a: None
    m.float32 = object()
    m.wick_only = 1

    class Tensor:
        def sum(self):
            pass

        def __add__(self, other):
            pass

    m.Tensor = Tensor
    m.nn = types.ModuleType("fakewick.nn")
    m.nn.functional = types.ModuleType("fakewick.nn.functional")
    m.nn.functional.relu = lambda x: x
    m.autograd = types.ModuleType("fakewick.autograd")
    return m


@pytest.fixture
def reasons(tmp_path):
    p = tmp_path / "reasons.txt"
    p.write_text("# comment\n"
                 "torch.cuda: no CUDA device in wick yet\n"
                 "torch.Tensor.is_cu*: no CUDA device in wick yet\n"
                 "torch.zeros: a reason for a name the library has\n"
                 "torch.no_such_name_*: matches nothing\n")
    return str(p)


def test_counts_are_derived(reasons):
    led = ledger.build(torch, fake_lib(), ledger.load_reasons(reasons))
    rows = {r["label"]: r for r in led["rows"]}
    assert rows["torch"]["present"] == ["Tensor", "float32", "tensor", "zeros"]
    assert rows["torch"]["total"] == len(ledger.module_names(torch)[0]) > 500
    assert rows["torch.Tensor"]["present"] == ["sum"]
    assert rows["torch.Tensor operators"]["present"] == ["__add__"]      # object's __repr__ does not count
    assert rows["torch.nn.functional"]["present"] == ["relu"]
    absent = dict(rows["torch.Tensor"]["absent"])
    assert absent["is_cuda"] == "no CUDA device in wick yet" and absent["abs"] == ledger.NOT_YET
    assert ("autograd", True, ledger.NOT_YET) in led["subs"]
    assert any(s == "cuda" and not h and r == "no CUDA device in wick yet" for s, h, r in led["subs"])
    assert led["extras"] == ["wick_only"]
    assert [q for q, _, _ in led["contradicted"]] == ["torch.zeros"]
    assert [p for p, _, _ in led["unused"]] == ["torch.no_such_name_*"]


def test_public_name_rule():
    names, subs = ledger.module_names(torch)
    assert "add" in names and "float32" in names and "pi" in names
    assert "TYPE_CHECKING" not in names and "linalg" not in names and "os" not in names
    assert "linalg" in subs and "os" not in subs
    fnames, _ = ledger.module_names(torch.nn.functional)
    assert "relu" in fnames and "Optional" not in fnames and "DType" not in fnames


def test_cli(reasons, tmp_path, monkeypatch, capsys):
    sys.modules["fakewick_ledger"] = fake_lib()
    out = tmp_path / "ledger.md"
    rc = ledger.main(["--lib", "fakewick_ledger", "--reasons", reasons, "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and text == out.read_text()
    assert "| `torch.nn.functional` |" in text and "**not yet**" in text and "## Reason problems" in text
    assert ledger.main(["--lib", "fakewick_ledger", "--reasons", reasons, "--check"]) == 1
    bad = tmp_path / "bad.txt"
    bad.write_text("torch.add without a colon\n")
    assert ledger.main(["--lib", "fakewick_ledger", "--reasons", str(bad)]) == 2


def test_committed_reasons_file_parses():
    assert ledger.load_reasons(ledger.DEFAULT_REASONS)

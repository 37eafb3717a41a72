"""Self-tests of the parity harness: it must catch every deliberately wrong stand-in, refuse invalid
cases, and never let a harness failure read as a pass.  Run: pytest tests/parity/test_harness.py"""
import io
import json
import os
import subprocess
import sys
import types
import warnings

import pytest

torch = pytest.importorskip("torch", reason="the self-tests use real torch on both sides")

from tests.parity import golden, harness, runner, standins  # noqa: E402
from tests.parity.capture import Capturer, CaptureError, normalise_message  # noqa: E402
from tests.parity.compare import Comparer  # noqa: E402
from tests.parity.harness import (collecting, case, error_case, grad_case, print_case,  # noqa: E402
                                  cases, CaseDefinitionError)
from tests.parity.pin import pin_cases  # noqa: E402

REPO = runner.REPO

# --------------------------------------------------------------------------------------- probes
# One small case per thing a stand-in breaks.  Every stand-in must fail exactly its own probe(s), at the
# expected place, and pass all the others (so the failure is the break, not the proxy).
with collecting("probe") as PROBES:
    # (data chosen so that no float result is integral except in int_valued_floats)
    case("cumsum", lambda T: T.tensor([[1.5, -2.25, 0.125], [3.25, 0.5, -1.25]]).cumsum(1))
    case("sum_f32", lambda T: T.tensor([[1.5, -2.25, 0.125], [3.25, 0.5, -1.25]]).sum(1))
    case("mul_graph", lambda T: T.tensor([1.5, -2.5], requires_grad=True) * T.tensor([0.5, 3.5]))
    grad_case("mul_op_grads", lambda T, x, y: x * y, [1.5, -2.5, 0.25], [0.5, 3.5, -1.0])
    grad_case("torch_mul_grads", lambda T, x, y: T.mul(x, y).exp(), [1.5, -2.5, 0.25], [0.5, 3.5, -1.0])
    grad_case("detach_none", lambda T, x, y: x.detach() * y, [1.5, -2.5], [0.5, 3.5])
    error_case("cat_msg", lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 4)]))
    error_case("index_type", lambda T: T.tensor([1.5, 2.5, 3.5])[5])
    print_case("repr", lambda T: T.tensor([1.5, -2.0]))
    case("softmax_warn", lambda T: T.nn.functional.softmax(T.tensor([1.5, 2.25, 0.5])), warns=True)
    case("int_valued_floats", lambda T: T.tensor([1.0, 2.0]) + 1)

# stand-in -> {probe: substring expected in the failure}
EXPECTED = {
    "offbyone": {"cumsum": "result[0][0]: lib 2.5 != torch 1.5"},
    "wrongdtype": {"sum_f32": "result.dtype: lib 'torch.float64' != torch 'torch.float32'"},
    "wronggradfn": {"mul_graph": "result.grad_fn: lib 'MulBackward1' != torch 'MulBackward0'",
                    "mul_op_grads": "result.out.grad_fn: lib 'MulBackward1'",
                    "detach_none": "result.out.grad_fn: lib 'MulBackward1'"},
    "wrongmsg": {"cat_msg": "raised message"},
    "wrongexctype": {"index_type": "raised builtin type: lib 'RuntimeError' != torch 'IndexError'"},
    "missinggrad": {"mul_op_grads": "result.grads.x1: lib None != torch tensor(",
                    "torch_mul_grads": "result.grads.x1: lib None",
                    "detach_none": "case driver under lib: grad_case: no output requires grad"},
    "extragrad": {"detach_none": "result.grads.x0: lib tensor("},
    "zerograd": {"torch_mul_grads": "result.grads.x0[0]: lib 0.0 != torch"},
    "badrepr": {"repr": "result.repr: lib 'Tensor("},
    "drift": {"sum_f32": "result[0]: lib"},
    "jitter": {},
    "intlist": {"int_valued_floats": "result[0]: lib 2 != torch 2.0 (int vs float)"},
    "nowarn": {"softmax_warn": "warnings count: lib 0 != torch 1"},
    "nocapture": {p.name: "capturing lib's result failed" for p in PROBES if p.kind in ("value", "grad")},
    "faithful": {},
}


def run(cases_, lib, mode="live"):
    return {r.id.split("::")[1]: r for r in runner.Runner(lib, mode, torch).run(cases_)[0]}


def test_every_standin_has_expectations():
    assert set(EXPECTED) == set(standins.HOOKS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_standin_caught_exactly(name):
    res = run(PROBES, standins.get(name))
    for probe, r in res.items():
        if probe in EXPECTED[name]:
            assert r.status == "fail", f"{name} not caught by {probe}: {r.status} {r.detail}"
            assert EXPECTED[name][probe] in r.detail, f"{name}/{probe}: {r.detail}"
        else:
            assert r.status == "pass", f"{name}/{probe} should pass: {r.status} {r.detail}"
            assert r.ncmp > 0


def test_torch_vs_torch_probes():
    res = run(PROBES, torch)
    assert all(r.status == "pass" and r.ncmp > 0 for r in res.values()), {k: r.detail for k, r in res.items()}


def test_case_files_pass_under_faithful_proxy():
    """The stand-in machinery is transparent: the whole suite passes through the no-op proxy."""
    cs, errors = runner.collect()
    assert not errors and len(cs) > 300
    results, _ = runner.Runner(standins.get("faithful"), "live", torch).run(cs)
    bad = [(r.id, r.detail) for r in results if r.status not in ("pass", "skip")  # skip= names wick's gaps
           and not r.id.startswith(TORCH_DIFFERS_UNDER_A_MODE)]
    assert not bad, bad[:5]


# torch itself answers differently while a TorchFunctionMode is active (the stand-ins are such a mode):
TORCH_DIFFERS_UNDER_A_MODE = (
    # the MultiheadAttention / TransformerEncoder fast paths (_native_multi_head_attention, nested tensors)
    # are skipped whenever a torch function mode is on, so the proxy sees the slow path's NaNs and non-zeros
    "cases_nn_transformer::",
    # l1_loss's handle_torch_function passes (input, target, weight) positionally: weight lands in size_average
    "cases_nn_loss::loss_l1_weight_sum",
    # unique_consecutive's handle_torch_function passes its positional bools on by keyword order, so under a mode
    # torch.unique_consecutive(x, True) means return_inverse=True (without one, torch reads position 1 as return_counts)
    "cases_sort_fuzz::unique_consecutive_positional",
    # has_torch_function is True while a mode is on (that is its job)
    "cases_compat_names::has_torch_function",
    # chain_matmul's and Tensor.dim_order's handle_torch_function calls drop out= / ambiguity_check=
    "cases_compat_names::chain_matmul_out",
    "cases_compat_names::tensor_dim_order_ambiguous",
    "cases_compat_names::tensor_dim_order_dup_strides",
    # torch.empty under a mode does not see fill_uninitialized_memory switched off
    "cases_compat_names::deterministic_fill_off",
)


def test_case_files_catch_offbyone():
    cs, _ = runner.collect(pattern="cases_reduce::cumsum")  # forward and gradient cases of cumsum itself
    results, _ = runner.Runner(standins.get("offbyone"), "live", torch).run(cs)
    value_cases = [r for r, c in zip(results, cs) if c.kind in ("value", "grad")]
    assert value_cases and all(r.status == "fail" for r in value_cases)


# ------------------------------------------------------------------------------- invalid cases
def _one(kind_fn, lib=torch):
    with collecting("adhoc") as cs:
        kind_fn()
    return run(cs, lib)[cs[0].name]


def test_torch_raising_in_value_case_is_invalid():
    r = _one(lambda: case("oops", lambda T: T.tensor([1.0, 2.0]) + T.tensor([1.0, 2.0, 3.0])))
    assert r.status == "invalid" and "torch raised RuntimeError" in r.detail


def test_error_case_that_does_not_raise_is_invalid():
    r = _one(lambda: error_case("noerr", lambda T: T.tensor([1.0]) + 1))
    assert r.status == "invalid" and "torch did not raise" in r.detail


def test_regex_must_match_torch_too():
    r = _one(lambda: error_case("badre", lambda T: T.tensor([1.0])[3], match="not what torch says"))
    assert r.status == "invalid" and "does not match torch's message" in r.detail
    r = _one(lambda: error_case("goodre", lambda T: T.tensor([1.0])[3], match=r"index 3 is out of bounds"))
    assert r.status == "pass"


def test_regex_applies_to_lib_message():
    r = _one(lambda: error_case("re_lib", lambda T: T.cat([T.zeros(2, 3), T.zeros(2, 4)]),
                                match=r"in the list\.$"), lib=standins.get("wrongmsg"))
    assert r.status == "fail" and "regex does not match" in r.detail


def test_returning_none_is_invalid():
    r = _one(lambda: case("none", lambda T: None))
    assert r.status == "invalid" and "returned None" in r.detail


def test_zero_comparisons_is_invalid():
    r = _one(lambda: case("empty", lambda T: ()))
    assert r.status == "invalid" and "zero comparisons" in r.detail


def test_grad_case_without_differentiable_output_is_invalid():
    r = _one(lambda: grad_case("nograd", lambda T, x: x.detach() * 2, [1.0, 2.0]))
    assert r.status == "invalid" and "no output requires grad" in r.detail


def test_noncontiguous_helper_checks_itself():
    r = _one(lambda: case("nc", lambda T: harness.nc_t(T, [[1.0, 2.0]]).sum()))   # 1x2 -> 2x1: contiguous
    assert r.status == "invalid" and "contiguous" in r.detail


def test_skip_needs_a_reason():
    with collecting():
        with pytest.raises(CaseDefinitionError):
            case("s", lambda T: T.zeros(1), skip="")
        with pytest.raises(CaseDefinitionError):
            case("s", lambda T: T.zeros(1), skip="todo")


def test_skip_is_counted_and_still_validated_against_torch():
    with collecting() as cs:
        case("skipped", lambda T: T.tensor([1.0]).cumsum(0), skip="wick has no cumsum kernel yet")
        case("skipped_invalid", lambda T: T.tensor([1.0])[4], skip="wick has no indexing yet (issue 7)")
    res = run(cs, standins.get("offbyone"))
    assert res["skipped"].status == "skip"
    assert res["skipped_invalid"].status == "invalid"       # a skip cannot hide a broken case
    assert run(cs[:1], torch)["skipped"].status == "pass"   # torch vs torch runs skipped cases
    out = io.StringIO()
    runner.summarize(list(res.values()), [], {}, out)
    assert "skipped 1" in out.getvalue() and "wick has no cumsum kernel yet" in out.getvalue()


def test_cpu_dependent_compared_live_only():
    with collecting() as cs:
        case("cd", lambda T: T.tensor([1.0, 2.0]).cumsum(0), cpu_dependent="probe: torch varies by CPU here")
        with pytest.raises(CaseDefinitionError):
            case("cd_short", lambda T: T.zeros(1), cpu_dependent="cpu")
    assert run(cs, standins.get("offbyone"))["cd"].status == "fail"          # live: compared like any case
    for mode in ("golden", "check-golden"):                                   # a golden may be another CPU's
        r = run(cs, standins.get("offbyone"), mode)["cd"]
        assert r.status == "skip" and "depends on the CPU" in r.skip and "probe" in r.skip


def test_bad_definitions_rejected():
    with collecting():
        with pytest.raises(CaseDefinitionError):
            case("a:b", lambda T: 1)
        with pytest.raises(CaseDefinitionError):
            harness._register("m", "value", lambda T: 1, match="x")
        with pytest.raises(CaseDefinitionError):
            grad_case("g", lambda T, x: x, order=3)


def test_case_file_importing_torch_is_rejected():
    mod = types.ModuleType("tests.parity.cases_fake")
    mod.torch = torch
    with pytest.raises(runner.LoadError, match="cases must use the module argument T"):
        runner._check_module(mod)
    mod2 = types.ModuleType("tests.parity.cases_fake2")
    mod2.tensor = torch.tensor
    with pytest.raises(runner.LoadError):
        runner._check_module(mod2)


def test_lib_returning_real_torch_tensors_is_caught():
    """A case that bypasses T (uses torch directly) gives torch tensors on the library side: refused."""
    fake = types.ModuleType("fakewick")
    fake.Tensor = type("Tensor", (), {})
    with collecting() as cs:
        case("bypass", lambda T: torch.tensor([1.0, 2.0]))
    r = run(cs, fake)["bypass"]
    assert r.status == "fail" and "did the case use torch instead of T" in r.detail


def test_exception_in_one_case_reported_at_its_name():
    with collecting() as cs:
        case("fine", lambda T: T.tensor([1.0]))
        case("boom", lambda T: T.tensor([1.0]).cumsum(0))
        case("fine2", lambda T: T.tensor([2.0]))
    broken = standins.make("boomlib", lambda f, a, k: (_ for _ in ()).throw(ValueError("kaput"))
                           if standins.name_of(f) == "cumsum" else f(*a, **k))
    res = run(cs, broken)
    assert res["boom"].status == "fail" and "lib raised ValueError: kaput" in res["boom"].detail
    assert res["fine"].status == res["fine2"].status == "pass"


# ---------------------------------------------------------------------------------------- isolation
def test_state_is_reset_between_cases():
    with collecting() as cs:
        case("sets_f64", lambda T: (T.set_default_dtype(T.float64), T.set_grad_enabled(False),
                                    T.set_printoptions(precision=1), T.tensor([1.5]))[-1])
        case("sees_defaults", lambda T: (T.tensor([1.5]).dtype, T.is_grad_enabled(), repr(T.tensor([1.2345]))))
        case("rng", lambda T: T.randn(3))
    res = run(cs, torch)
    assert all(r.status == "pass" for r in res.values()), res
    c = cs[1]
    out = runner.run_side(c, torch, "ref", {})
    assert out["ok"]["items"][0]["v"] == "torch.float32" and out["ok"]["items"][1]["v"] is True
    assert out["ok"]["items"][2]["v"] == "tensor([1.2345])"
    # the seed is per case: the same values whatever ran before
    a = runner.run_side(cs[2], torch, "ref", {})
    torch.randn(100)
    b = runner.run_side(cs[2], torch, "ref", {})
    assert a == b


# ---------------------------------------------------------------------------------------- exceptions
def test_exception_subclass_matches_builtin_base():
    with collecting() as cs:
        error_case("linalg", lambda T: T.linalg.inv(T.zeros(2, 2)))
    as_runtime = standins.make("rt", lambda f, a, k: _reraise(f, a, k, RuntimeError))
    assert run(cs, as_runtime)["linalg"].status == "pass"      # torch._C._LinAlgError vs RuntimeError

    class MyIndexError(IndexError):
        pass

    with collecting() as cs2:
        error_case("idx", lambda T: T.tensor([1.0])[3])
    sub = standins.make("sub", lambda f, a, k: _reraise(f, a, k, MyIndexError))
    r = run(cs2, sub)["idx"]
    assert r.status == "fail" and "raised type" in r.detail


def _reraise(f, a, k, cls):
    try:
        return f(*a, **k)
    except Exception as e:
        raise cls(str(e)) from None


def test_message_normalisation():
    assert normalise_message("shape '[4]' is invalid\nException raised from infer_size_impl at "
                             "/x/InferSize.h:99 (most recent call first):\n#4 ...") == "shape '[4]' is invalid"
    assert normalise_message("x.T is deprecated. (Triggered internally at "
                             "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)") == "x.T is deprecated."
    assert normalise_message("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator") == \
        "[enforce fail at <src>] err == 0. DefaultCPUAllocator"
    assert normalise_message('INTERNAL ASSERT FAILED at "../c10/core/x.cpp":12, please') == \
        "INTERNAL ASSERT FAILED at <src>, please"
    keep = "Expected size 3 but got size 4 for tensor number 1 in the list. (see model.py:12)"
    assert normalise_message(keep) == keep


def test_warning_suffix_normalised_live():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        torch.tensor([1.0, 2.0]).T
    from tests.parity.capture import capture_warnings
    msgs = [w["msg"] for w in capture_warnings(rec)]
    assert msgs and all("Triggered internally" not in m for m in msgs)


# ---------------------------------------------------------------------------------------- comparer
def _cmp(ref, lib, **kw):
    c = Comparer(**kw)
    c.node(ref, lib)
    return c


def _t(v, dtype="torch.float32", shape=None):
    cap = Capturer(torch)
    node = cap(torch.tensor(v, dtype=getattr(torch, dtype.split(".")[1])))
    return node


def test_comparer_tolerance_and_specials():
    nan, inf = float("nan"), float("inf")
    assert _cmp(_t([nan, inf, -inf, 0.0]), _t([nan, inf, -inf, -0.0])).ndiff == 0
    assert _cmp(_t([inf]), _t([-inf])).ndiff == 1
    assert _cmp(_t([nan]), _t([1.0])).ndiff == 1
    assert _cmp(_t([1.0]), _t([1.0 + 2e-5])).ndiff == 1
    assert _cmp(_t([1.0]), _t([1.0 + 5e-6])).ndiff == 0
    assert _cmp(_t([1.0], "torch.float64"), _t([1.0 + 1e-9], "torch.float64")).ndiff == 1
    assert _cmp(_t([1.0], "torch.float16"), _t([1.0009765625], "torch.float16")).ndiff == 0
    assert _cmp(_t([3], "torch.int64"), _t([4], "torch.int64")).ndiff == 1
    assert _cmp(_t([1.0]), _t([1.0 + 2e-5]), rtol=1e-4).ndiff == 0
    assert _cmp(_t([2 ** 62 + 1], "torch.int64"), _t([2 ** 62], "torch.int64")).ndiff == 1   # big ints exact


def test_comparer_types_are_exact():
    cap = Capturer(torch)
    assert _cmp(cap(1), cap(1.0)).ndiff == 1
    assert _cmp(cap(True), cap(1)).ndiff == 1
    assert _cmp(cap((1, 2)), cap([1, 2])).ndiff == 1
    assert _cmp(cap(torch.Size([2])), cap((2,))).ndiff == 1
    assert _cmp(cap(None), cap(torch.zeros(0))).ndiff == 1
    mx = torch.tensor([1.0, 3.0]).max(0)
    assert _cmp(cap(mx), cap(tuple(mx))).ndiff >= 1


def test_comparer_paths_and_counts():
    cap = Capturer(torch)
    ref = cap((torch.tensor([1.0]), torch.tensor([[0.0, 0.0, 0.5]])))
    lib = cap((torch.tensor([1.0]), torch.tensor([[0.0, 0.0, 0.50003]])))
    c = _cmp(ref, lib)
    assert c.ndiff == 1 and str(c.diffs[0]).startswith("result[1][0][2]: lib 0.500029981136322 != torch 0.5"), str(c.diffs[0])
    assert c.n > 4


def test_grad_none_vs_zero_distinguished():
    x = torch.tensor([1.0], requires_grad=True)
    y = torch.tensor([1.0], requires_grad=True)
    (y * 0).sum().backward()
    cap = Capturer(torch)
    c = _cmp(cap(x), cap(y))
    assert c.ndiff == 1 and c.diffs[0].path == "result.grad"


def test_capture_refuses_unknown_objects():
    with pytest.raises(CaptureError):
        Capturer(torch)(object())
    with pytest.raises(CaptureError):
        Capturer(torch)(torch.nn.Linear(2, 2))


# ---------------------------------------------------------------------------------------- golden
def test_golden_roundtrip_stale_and_check(tmp_path, monkeypatch):
    monkeypatch.setattr(golden, "GOLDEN_DIR", str(tmp_path))
    with collecting("gprobe") as cs:
        case("vals", lambda T: T.tensor([float("nan"), -0.0, 1e-30, 2 ** 0.5, float("-inf")]))
        case("big", lambda T: T.tensor([2 ** 62 + 3]))
        grad_case("g", lambda T, x: x.exp(), [0.5, -1.0])
        error_case("e", lambda T: T.zeros(2)[7])
        print_case("p", lambda T: T.tensor([-0.0, 1.5]))
    entries, bad = pin_cases(cs, torch, {})
    assert not bad
    golden.write("gprobe", torch.__version__, entries)
    text = open(golden.path_for("gprobe")).read()
    assert "NaN" in text and "-Infinity" in text and "NaN," not in text.replace('"NaN"', "")
    json.loads(text)  # strict JSON (no bare NaN) -- JS can read it
    assert all(r.status == "pass" for r in run(cs, torch, "golden").values())
    assert all(r.status == "pass" for r in run(cs, torch, "check-golden").values())
    assert run(cs, standins.get("offbyone"), "golden")["vals"].status == "pass"   # no cumsum in it
    # a wrong golden value is caught by --check-golden, and a lib matching the wrong value fails live
    g = json.loads(text)
    g["cases"]["vals"]["outcome"]["ok"]["v"][3] = 1.5
    with open(golden.path_for("gprobe"), "w") as f:
        json.dump(g, f)
    assert run(cs, torch, "check-golden")["vals"].status == "fail"
    assert run(cs, torch, "golden")["vals"].status == "fail"
    # a case edited after pinning is stale, even without torch
    with collecting("gprobe") as cs2:
        case("vals", lambda T: T.tensor([float("nan"), -0.0, 1e-30, 2 ** 0.5, float("inf")]))
    r = run(cs2, torch, "golden")["vals"]
    assert r.status == "invalid" and "stale" in r.detail


def test_fingerprint_sees_data_and_params():
    with collecting("fp") as cs:
        cases("sw", lambda T, dim: T.zeros(2, 3).sum(dim), dim=[0, 1])
        case("d1", lambda T: T.tensor(harness.ALL))
    a, b = cs[0], cs[1]
    assert golden.fingerprint(a) != golden.fingerprint(b)
    assert golden.fingerprint(a) == golden.fingerprint(a)


def test_committed_goldens_are_strict_json():
    for f in os.listdir(golden.GOLDEN_DIR):
        with open(os.path.join(golden.GOLDEN_DIR, f)) as fh:
            g = json.load(fh, parse_constant=lambda c: pytest.fail(f"{f}: bare {c}"))
        assert g["format"] == golden.FORMAT and g["cases"]


# ---------------------------------------------------------------------------------------- CLI
def _cli(*args):
    p = subprocess.run([sys.executable, "-m", "tests.parity", *args], cwd=REPO, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


# The CLI checks run one case file: the whole suite already runs live and against its goldens in test-parity.
def test_cli_torch_vs_torch_passes_and_counts():
    rc, out = _cli("--lib", "torch", "-k", "cases_reduce")
    assert rc == 0, out
    line = [ln for ln in out.splitlines() if ln.startswith("collected ")][0]
    n = int(line.split()[1])
    assert n > 300 and f"passed {n}, failed 0, invalid 0" in line, line


def test_cli_standin_fails_nonzero():
    rc, out = _cli("--lib", "tests.parity.standins:offbyone", "-k", "cases_reduce::cumsum")
    assert rc == 1 and "FAIL cases_reduce::cumsum[dim=-3]: result[0][0][0]: lib 1.5 != torch 0.5" in out, out


def test_cli_no_cases_is_failure():
    rc, out = _cli("--lib", "torch", "-k", "no-such-case-anywhere")
    assert rc == 1 and "collected 0 cases" in out


def test_cli_parallel_same_counts():
    rc1, out1 = _cli("--lib", "torch", "-k", "reduce")
    rc2, out2 = _cli("--lib", "torch", "-k", "reduce", "-j", "2")
    pick = lambda o: [ln for ln in o.splitlines() if ln.startswith("collected ")][0]  # noqa: E731
    assert rc1 == rc2 == 0 and pick(out1) == pick(out2)


def test_cli_golden_mode_and_check():
    rc, out = _cli("--lib", "torch", "--golden", "-k", "cases_reduce")
    assert rc == 0, out
    rc, out = _cli("--check-golden", "-k", "cases_reduce")
    assert rc == 0, out

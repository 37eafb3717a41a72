"""Builds tensors with real torch and pins torch's repr() of each into tests/print/cases.txt,
which tests/c/test_print.c replays against wk_repr / wk_repr_ex.

    python3 tests/print/make_cases.py [out_path]        # needs torch 2.13.0
    python3 tests/print/make_cases.py --fuzz 5000 7 /tmp/fuzz.txt   # a random stress set (seed 7)

File format (one record per case, all text ASCII):
    case <index> <label>
    opts <precision> <threshold> <edgeitems> <linewidth> <sci_mode -1|0|1> <default dtype name>
    tensor <dtype> <ndim> <sizes...> <strides...> <storage_offset>
    storage <number of elements> <poison element, hex> <number of runs> (<first element> <hex bytes>)...
                                         (elements outside the runs hold the poison value; bytes little-endian)
    grad <requires_grad 0|1> <grad_fn name or ->
    prefix <prefix or ->                 (a Tensor subclass prints "<Name>(")
    expect ok <nbytes>                   or: expect err <ExceptionName> <nbytes>
    <nbytes of repr text or error message>
The tensor is a strided view (sizes/strides/offset in elements) of the stored storage, so transposed, sliced,
expanded (stride 0) and overlapping (as_strided) views are replayed as views, not copies.
"""
import math
import random
import sys

import torch

args = sys.argv[1:]
FUZZ = None  # --fuzz N SEED: only N random cases with random print options (a stress run; not committed)
if args[:1] == ["--fuzz"]:
    FUZZ = (int(args[1]), int(args[2]))
    args = args[3:]
OUT = args[0] if args else __file__.rsplit("/", 1)[0] + "/cases.txt"

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
NAN, INF = float("nan"), float("inf")

R = random.Random(1234)
torch.manual_seed(1234)


cases = []  # (label, tensor, opts, prefix, default_dtype)


def add(label, t, opts=None, prefix=None, default=None):
    cases.append((label, t, opts, prefix, default))


def cast(x, dt):
    """x: float64 tensor -> dtype dt, keeping values representable."""
    if dt == torch.bool:
        return torch.nan_to_num(x) > 0
    if not dt.is_floating_point:
        info = torch.iinfo(dt)
        y = torch.nan_to_num(x, nan=0.0, posinf=info.max, neginf=info.min).round()
        y = y.clamp(max(info.min, -2.0**62), min(info.max, 2.0**62))
        return y.to(dt)
    return x.to(dt)


def vals(shape, kind):
    n = math.prod(shape)
    x = torch.randn(shape, dtype=torch.float64)
    if kind == "randn":
        return x
    if kind == "tiny":
        return x * 1e-5
    if kind == "big":
        return x * 1e5
    if kind == "huge":
        return x * 1e9
    if kind == "zero":
        return torch.zeros(shape, dtype=torch.float64)
    if kind == "intval":
        return (x * 50).round()
    if kind == "mixed":
        e = torch.randint(-8, 13, shape).to(torch.float64)
        return x * 10.0 ** e
    if kind == "pos":
        return torch.rand(shape, dtype=torch.float64) * 10
    if kind == "special":
        y = x.clone().reshape(-1)
        for i in range(n):
            r = R.random()
            if r < 0.1:
                y[i] = NAN
            elif r < 0.2:
                y[i] = INF if R.random() < 0.5 else -INF
            elif r < 0.3:
                y[i] = -0.0
            elif r < 0.4:
                y[i] = 0.0
        return y.reshape(shape)
    if kind == "tenths":
        return (x * 100).round() / 10
    raise ValueError(kind)


# ---- A. dtype x shape x values grid ----
SHAPES = [(), (1,), (5,), (0,), (2, 0), (0, 3, 2), (3, 4), (2, 3, 4), (30,), (40, 3), (1001,), (2, 2, 2, 2),
          (7, 300), (3, 1, 400), (1, 1, 1, 1, 1), (6, 7), (13,), (1, 1)]
KINDS = ["randn", "tiny", "big", "huge", "zero", "intval", "mixed", "special", "pos", "tenths"]
for dt in DTYPES:
    for shape in SHAPES:
        kinds = KINDS if math.prod(shape) <= 100 else ["randn", "mixed", "special", "intval"]
        if math.prod(shape) == 0:
            kinds = ["zero"]
        for kind in kinds:
            add(f"grid-{dt}-{shape}-{kind}".replace(" ", ""), cast(vals(shape, kind), dt))

# ---- B. special values ----
specials = [
    [1., 2., 3.], [1., NAN], [INF, -INF, 1.5], [-0.0], [0., -0.], [1.5, -0.0], [1e-5, 1.], [1., 1000.], [1., 1001.],
    [1e8, 1.], [123456789.], [0.1, 0.25], [100., 1e-4], [1e-4, 1.0], [9.99999e-5, 1.0], [65504., 1.], [2.5e8],
    [NAN, NAN], [INF], [-INF], [NAN, 1e-5], [NAN, 1.0], [INF, 2.], [-INF, 0.5], [-0.0, NAN, INF],
    [1e8], [99999999.], [100000001.], [1e8, 1e5], [999.5, 0.5], [1000.0, 1.0], [0.001, 1.0], [0.0001, 0.1],
    [0.00005], [0.00015, 1.0], [2.5, 3.5, -2.5], [0.5, 1.5, 2.5], [0.00005, 0.00015, 0.00025],
    [1.23456789, 12.3456789, 123.456789, 1234.56789], [-1.0, -10.0, -100.0], [-1e-5, 1e-5],
    [5e-324, 1.0], [1.7976931348623157e308], [-1.7976931348623157e308, 1.0], [3.4028234663852886e38],
    [1e15, 1.0], [2.0**53, 1.0], [2.0**53 + 1], [1e16], [1e20, 1e21], [1e-300, 1e-310], [6e-8, 1.0], [6e-5],
    [1e-8, 1e12], [123.0, 456.0, 789.0], [0.5], [-0.5], [1.0], [-1.0], [10.0], [100.0], [1000.0], [10000.0],
    [0.1], [0.01], [0.001], [0.0001], [0.00001], [12345.678], [1e7 + 0.5], [9.9995], [9.99995], [0.99995],
    [1.00005], [0.12345], [0.12355], [1.5e-4, 1.5e-1], [1, 2.5e7], [-3.0, 4e4], [7.0, 7000.0], [7.0, 7001.0],
]
for v in specials:
    for dt in FLOATS:
        x = torch.tensor(v, dtype=torch.float64)
        add(f"special-{dt}-{v}", x.to(dt))
    if len(v) == 1:
        for dt in [torch.float32, torch.float64]:
            add(f"special0d-{dt}-{v}", torch.tensor(v[0], dtype=dt))

# integer extremes
ints = {
    torch.uint8: [[0, 255], [255], [0], [7, 100]],
    torch.int8: [[-128, 127], [-1, 0, 1], [-5]],
    torch.int16: [[-32768, 32767], [12, -345]],
    torch.int32: [[-2**31, 2**31 - 1], [1, -20, 300]],
    torch.int64: [[-2**63, 2**63 - 1], [0], [-1], [10**12, 3], [5]],
    torch.bool: [[True], [False], [True, False], [False, False, True]],
}
for dt, vs in ints.items():
    for v in vs:
        add(f"ints-{dt}-{v}", torch.tensor(v, dtype=dt))
        add(f"ints0d-{dt}-{v[0]}", torch.tensor(v[0], dtype=dt))
        add(f"ints2d-{dt}-{v}", torch.tensor(v, dtype=dt).repeat(3, 4))

# ---- C. non-contiguous views ----
for dt in DTYPES:
    base = cast(vals((6, 8), "mixed" if dt.is_floating_point else "intval"), dt)
    add(f"view-t-{dt}", base.t())
    add(f"view-step-{dt}", base[:, ::3])
    add(f"view-step2-{dt}", base[1::2, 2::3])
    add(f"view-row-{dt}", base[2])
    add(f"view-col-{dt}", base[:, 5])
    add(f"view-elem-{dt}", base[3, 4])
    add(f"view-off-{dt}", base[1:4, 2:])
    add(f"view-expand-{dt}", base[0:1, :3].expand(4, 3))
    add(f"view-expand0d-{dt}", base[2, 2].expand(5, 2))
    add(f"view-perm-{dt}", base.reshape(2, 3, 8).permute(2, 0, 1))
    add(f"view-unsq-{dt}", base[:, 1].unsqueeze(1))
    add(f"view-empty-{dt}", base[:, 3:3])
    add(f"view-empty2-{dt}", base[4:2])
    small = cast(vals((200,), "randn"), dt)
    add(f"view-overlap-{dt}", small.as_strided((50, 60), (1, 1)))
    add(f"view-overlap2-{dt}", small.as_strided((5, 6, 40), (3, 1, 2), 7))
    add(f"view-bigexpand-{dt}", small[:7].expand(2000, 7))
    add(f"view-bigexpand2-{dt}", small[:1].expand(3, 5000))
    add(f"view-stride0-{dt}", small.as_strided((4, 4), (0, 0), 9))

# ---- D. layouts: wrapping, N-D, summarisation ----
for n in [7, 8, 9, 10, 11, 12, 13, 15, 16, 20, 25, 40, 60, 99, 100, 101, 150]:
    add(f"wrap-arange-{n}", torch.arange(n))
    add(f"wrap-arangef-{n}", torch.arange(n, dtype=torch.float32))
    add(f"wrap-randn-{n}", torch.randn(n))
    add(f"wrap-randn64-{n}", torch.randn(n, dtype=torch.float64))
    add(f"wrap-bool-{n}", torch.rand(n) > 0.5)
    add(f"wrap-int8-{n}", torch.randint(-128, 128, (n,), dtype=torch.int8))
    add(f"wrap-sci-{n}", torch.randn(n) * 1e-6)
for shape in [(2, 2, 2), (2, 3, 4, 5), (2, 1, 2, 1, 2), (3, 2, 1, 4, 1, 2), (1, 2, 3, 4, 5, 1), (2,) * 8,
              (1,) * 12 + (3,), (2, 2, 20), (3, 3, 30)]:
    add(f"nd-{shape}", torch.randn(shape))
    add(f"nd-int-{shape}", torch.randint(-1000, 1000, shape))
for shape in [(2000,), (1001, 1), (1, 1001), (50, 50), (10, 10, 11), (4, 5, 6, 10), (3, 400), (400, 3),
              (7, 7, 7, 7), (2, 2, 2, 2, 2, 2, 2, 2, 2, 2), (1000, 2), (2, 1000), (1, 1, 2000), (12, 100),
              (6, 6, 6, 6), (8, 126), (3, 3, 3, 3, 3, 3, 3)]:
    shown_whole = max(shape) <= 6  # nothing elided: keep the file small
    kinds = ["randn", "intval", "mixed", "special", "tiny"] if len(shape) <= 3 else ["special"]
    for kind in [] if shown_whole else kinds:
        add(f"summ-{shape}-{kind}", vals(shape, kind).to(torch.float32))
    add(f"summ-int64-{shape}", torch.randint(-10**6, 10**6, shape))
    if not shown_whole:
        add(f"summ-bool-{shape}", torch.rand(shape) > 0.5)
        add(f"summ-f16-{shape}", torch.randn(shape).half() * 100)
add("summ-arange2000", torch.arange(2000.).reshape(2, 1000))
add("summ-arange1001", torch.arange(1001))
# the summarised element set decides the formatter: big values hidden in the elided middle
x = torch.ones(3000)
x[1500] = 1e10
x[1501] = 1e-10
add("summ-hidden-middle", x)
y = torch.ones(40, 40)
y[20, 20] = 0.5
y[1, 20] = 123456.0
add("summ-hidden-2d", y)

# ---- E. suffixes: dtype, grad_fn, requires_grad, wrapping of suffixes ----
for n in [1, 5, 8, 9, 10, 11, 12, 15]:
    for dt in [torch.float64, torch.float16, torch.int32, torch.uint8]:
        add(f"suffix-row-{dt}-{n}", cast(vals((n,), "randn" if dt.is_floating_point else "intval"), dt))
for dt in FLOATS:
    for n in [1, 3, 6, 7, 8, 9, 10, 20]:
        leaf = cast(vals((n,), "randn"), dt).requires_grad_()
        add(f"grad-leaf-{dt}-{n}", leaf)
        add(f"grad-mul-{dt}-{n}", leaf * 2)
        add(f"grad-exp-{dt}-{n}", leaf.exp())
        add(f"grad-view-{dt}-{n}", leaf[1:])
    leaf = cast(vals((4, 5), "randn"), dt).requires_grad_()
    add(f"grad-sum-{dt}", leaf.sum())
    add(f"grad-mean-{dt}", leaf.mean())
    add(f"grad-t-{dt}", leaf.t())
    add(f"grad-mm-{dt}", leaf @ leaf.t())
    add(f"grad-reshape-{dt}", leaf.reshape(2, 10))
    add(f"grad-unsqueeze-{dt}", leaf.unsqueeze(0))
    add(f"grad-empty-{dt}", torch.zeros(0, dtype=dt, requires_grad=True))
    add(f"grad-empty2-{dt}", torch.zeros(2, 0, dtype=dt, requires_grad=True))
    add(f"grad-empty2fn-{dt}", torch.zeros(2, 0, dtype=dt, requires_grad=True) * 3)
    add(f"grad-0d-{dt}", torch.tensor(2.5, dtype=dt, requires_grad=True))
    big = cast(vals((30, 40), "randn"), dt).requires_grad_()
    add(f"grad-summ-{dt}", big * 1)
    add(f"grad-summ-leaf-{dt}", big)
long_rows = torch.randn(9, dtype=torch.float64, requires_grad=True)
add("grad-long-f64", long_rows.sigmoid())
add("grad-long-f64b", torch.nn.functional.softplus(long_rows))
add("grad-long-f64c", torch.nn.functional.log_softmax(long_rows, 0))
add("grad-long-f64d", long_rows.cumsum(0))
for w in [60, 70, 72, 73, 74, 75, 76, 78, 79, 80]:
    # the last line's length decides whether a suffix wraps
    n = (w - 9) // 8 + 1
    add(f"suffix-edge-{w}", torch.randn(n, dtype=torch.float64) * 5)
    add(f"suffix-edgeg-{w}", (torch.randn(n, dtype=torch.float64, requires_grad=True) * 5))
    add(f"suffix-edgeg2-{w}", torch.randn(n, dtype=torch.float16, requires_grad=True).tanh())

# ---- F. print options ----
OPT_SETS = [
    dict(precision=0), dict(precision=1), dict(precision=2), dict(precision=6), dict(precision=10),
    dict(precision=20), dict(precision=2, sci_mode=True), dict(sci_mode=True), dict(sci_mode=False),
    dict(precision=8, sci_mode=False), dict(threshold=0), dict(threshold=1), dict(threshold=5),
    dict(threshold=50), dict(threshold=5, edgeitems=1), dict(threshold=5, edgeitems=2), dict(threshold=5, edgeitems=0),
    dict(threshold=5, edgeitems=-1), dict(threshold=5, edgeitems=-3), dict(threshold=3, edgeitems=-20),
    dict(edgeitems=-1), dict(threshold=5, edgeitems=10), dict(edgeitems=0), dict(edgeitems=1),
    dict(linewidth=1), dict(linewidth=20), dict(linewidth=40), dict(linewidth=120), dict(linewidth=200),
    dict(linewidth=-5), dict(profile="short"), dict(profile="full"), dict(profile="short", precision=5),
    dict(precision=-1), dict(threshold=2.5), dict(threshold=float("inf"), linewidth=50),
    dict(profile="bogus"), dict(precision=3, threshold=10, edgeitems=2, linewidth=60, sci_mode=True),
]
OPT_TENSORS = [
    ("randn10", lambda: torch.randn(10)), ("randn0d", lambda: torch.randn(())),
    ("arange20", lambda: torch.arange(20.)), ("int30", lambda: torch.arange(30)),
    ("mixed", lambda: vals((12,), "mixed").float()), ("tiny", lambda: torch.randn(6) * 1e-6),
    ("zeros", lambda: torch.zeros(4)), ("intval", lambda: torch.tensor([1., 20., 300.])),
    ("2d", lambda: torch.randn(4, 9)), ("3d", lambda: torch.randn(3, 4, 5)),
    ("big2d", lambda: torch.randn(40, 40, dtype=torch.float64)), ("bool", lambda: torch.rand(12) > 0.5),
    ("f16grad", lambda: torch.randn(11, dtype=torch.float16, requires_grad=True) * 2),
    ("nan", lambda: torch.tensor([NAN, 1.5, -INF])), ("empty", lambda: torch.zeros(0, 3)),
    ("bf16", lambda: torch.randn(7, 3).bfloat16()), ("wide", lambda: torch.randn(3, 30) * 1000),
    ("int0d", lambda: torch.tensor(7, dtype=torch.int16)),
]
for opts in OPT_SETS:
    for name, make in OPT_TENSORS:
        add(f"opts-{opts}-{name}".replace(" ", ""), make(), opts=opts)

# ---- G. default dtype ----
for default in [torch.float64, torch.float16, torch.bfloat16]:
    for dt in DTYPES:
        add(f"default-{default}-{dt}", cast(vals((3,), "randn"), dt), default=default)
        add(f"default-empty-{default}-{dt}", cast(vals((0,), "zero"), dt), default=default)
    add(f"default-{default}-grad", torch.randn(3, dtype=torch.float32, requires_grad=True), default=default)

# ---- H. prefixes (Tensor subclasses) ----
for name, make in [("2d", lambda: torch.arange(30.).reshape(3, 10) * 1.5), ("1d", lambda: torch.randn(30)),
                   ("int", lambda: torch.arange(50, dtype=torch.int32)), ("0d", lambda: torch.tensor(1.5)),
                   ("empty", lambda: torch.zeros(2, 0)), ("summ", lambda: torch.randn(50, 50))]:
    add(f"prefix-{name}", make(), prefix="MyTensor")
    add(f"prefix-long-{name}", make(), prefix="AVeryLongTensorSubclassName")

# ---- I. random fuzz: shapes, dtypes, values, views ----
for i in range(300):
    dt = R.choice(DTYPES)
    nd = R.choice([0, 1, 1, 2, 2, 3, 4])
    shape = tuple(R.choice([1, 2, 3, 4, 5, 7, 9, 12]) for _ in range(nd))
    while math.prod(shape) > 1200:
        shape = shape[1:]
    nd = len(shape)
    kind = R.choice(KINDS)
    x = cast(vals(shape, kind), dt)
    if nd >= 2 and R.random() < 0.4:
        x = x.transpose(0, nd - 1)
    if nd >= 1 and R.random() < 0.3 and x.shape[0] > 2:
        x = x[1::2]
    opts = None
    if R.random() < 0.3:
        opts = R.choice([dict(threshold=R.choice([3, 10, 30])), dict(precision=R.choice([1, 2, 3, 5])),
                         dict(linewidth=R.choice([30, 50, 100])), dict(sci_mode=R.choice([True, False])),
                         dict(threshold=R.choice([3, 10]), edgeitems=R.choice([1, 2]))])
    if dt.is_floating_point and R.random() < 0.2:
        x = x.detach().requires_grad_()
        if R.random() < 0.5:
            x = x * 1
    add(f"fuzz-{i}", x, opts=opts)


# ---- J. the --fuzz stress set ----
def rand_values(shape):
    x = torch.randn(shape, dtype=torch.float64)
    style = R.random()
    if style < 0.3:
        x = x * 10.0 ** torch.randint(-12, 16, shape).to(torch.float64)
    elif style < 0.5:
        x = (x * 10 ** R.randint(0, 9)).round() / 10 ** R.randint(0, 5)
    else:
        x = x * 10.0 ** R.uniform(-10, 14)
    y = x.reshape(-1)
    for i in range(y.numel()):
        if R.random() < 0.05:
            y[i] = R.choice([NAN, INF, -INF, 0.0, -0.0, 1e-4, 9.9999e-5, 1e8, 1000.0, 0.5])
    return y.reshape(shape)


if FUZZ:
    cases.clear()
    R.seed(FUZZ[1])
    torch.manual_seed(FUZZ[1])
    for i in range(FUZZ[0]):
        dt = R.choice(DTYPES)
        nd = R.choice([0, 1, 1, 1, 2, 2, 3, 4, 5])
        shape = [R.choice([0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 30]) if R.random() < 0.9 else R.randint(1, 1500)
                 for _ in range(nd)]
        while math.prod(shape) > 4000:
            shape = shape[1:]
        x = cast(rand_values(tuple(shape)), dt)
        if x.dim() >= 2 and R.random() < 0.3:
            x = x.transpose(0, x.dim() - 1)
        if x.dim() >= 1 and R.random() < 0.2 and x.shape[0] > 2:
            x = x[R.randint(0, 1)::R.randint(1, 3)]
        opts = {}
        for k, choices in [("precision", [0, 1, 2, 3, 5, 8, 12]), ("threshold", [0, 2, 7, 20, 100, 1000, INF]),
                           ("edgeitems", [0, 1, 2, 3, 4, 6]), ("linewidth", [5, 30, 50, 79, 80, 81, 100, 150]),
                           ("sci_mode", [True, False])]:
            if R.random() < 0.25:
                opts[k] = R.choice(choices)
        if dt.is_floating_point and R.random() < 0.15:
            x = x.detach().requires_grad_()
            if R.random() < 0.5:
                x = x.sin()
        default = R.choice([None] * 6 + [torch.float64, torch.float16, torch.bfloat16])
        prefix = R.choice([None] * 10 + ["Sub", "SomeLongerSubclassName"])
        if x.requires_grad:
            prefix = None
        add(f"stress-{i}", x, opts=opts or None, prefix=prefix, default=default)


# ---- emit ----
# Storage elements that torch's repr never reads (outside the view, or elided by summarisation) are overwritten with
# a poison value that would change the formatting if it were read, and are not stored: the file stays small and a
# wick that reads them (a wrong address, a formatter over elided elements) fails the comparison.
POISON = {torch.bool: False, torch.uint8: 255, torch.int8: -128, torch.int16: -32768, torch.int32: -2**31,
          torch.int64: -2**63, torch.float16: -3.14159e-7, torch.bfloat16: -3.14159e-7, torch.float32: -3.14159e-7,
          torch.float64: -3.14159e-7}


def used_mask(t, n_storage):
    """Which storage elements repr(t) reads, under the current print options."""
    mask = torch.zeros(n_storage, dtype=torch.bool)
    if t.numel() == 0:
        return mask
    idx = torch.arange(n_storage).as_strided(t.shape, t.stride(), t.storage_offset())
    if t.numel() > torch._tensor_str.PRINT_OPTS.threshold:
        try:
            idx = torch._tensor_str.get_summarized_data(idx)
        except RuntimeError:
            pass
    mask[idx.reshape(-1)] = True
    return mask


def poisoned(t):
    """(tensor to print, storage as a flat tensor, used mask)"""
    st = t.untyped_storage()
    n = st.nbytes() // t.element_size()
    flat = torch.empty(0, dtype=t.dtype).set_(st).detach().clone()
    if t.requires_grad:  # keep the autograd history: store everything
        return t, flat, torch.ones(n, dtype=torch.bool)
    mask = used_mask(t, n)
    flat[~mask] = POISON[t.dtype]
    return flat.as_strided(t.shape, t.stride(), t.storage_offset()), flat, mask


def hexof(x):
    return x.contiguous().view(torch.uint8).numpy().tobytes().hex()


def emit(f, idx, label, t, opts, prefix, default):
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(default or torch.float32)
    if opts:
        torch.set_printoptions(**opts)
    po = torch._tensor_str.PRINT_OPTS
    sci = -1 if po.sci_mode is None else int(bool(po.sci_mode))
    optline = f"opts {po.precision} {float(po.threshold)!r} {po.edgeitems} {po.linewidth} {sci} " \
              f"{str(torch.get_default_dtype())[6:]}"
    shown, flat, mask = poisoned(t)
    if prefix:
        shown = shown.as_subclass(type(prefix, (torch.Tensor,), {}))
    try:
        text = repr(shown)
        expect = f"expect ok {len(text.encode())}"
    except Exception as e:  # noqa: BLE001 - the exception is the expected answer
        text = str(e)
        expect = f"expect err {type(e).__name__} {len(text.encode())}"
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    runs = []
    m = mask.tolist() + [False]
    i = 0
    while i < len(mask):
        if m[i]:
            j = i
            while m[j]:
                j += 1
            runs.append(f"{i} {hexof(flat[i:j])}")
            i = j
        else:
            i += 1
    gname = type(t.grad_fn).__name__ if t.grad_fn is not None else "-"
    f.write(f"case {idx} {label}\n{optline}\n")
    toks = ["tensor", str(t.dtype)[6:], t.dim(), *t.shape, *t.stride(), t.storage_offset()]
    f.write(" ".join(map(str, toks)) + "\n")
    poison = hexof(torch.tensor([POISON[t.dtype]], dtype=t.dtype))
    f.write(f"storage {len(mask)} {poison} {len(runs)}" + "".join(" " + r for r in runs) + "\n")
    f.write(f"grad {int(t.requires_grad)} {gname}\n")
    f.write(f"prefix {prefix + '(' if prefix else '-'}\n")
    f.write(expect + "\n" + text + "\n")


with open(OUT, "w") as f:
    for i, (label, t, opts, prefix, default) in enumerate(cases):
        emit(f, i, label.replace(" ", ""), t, opts, prefix, default)
print(f"wrote {len(cases)} cases to {OUT}")

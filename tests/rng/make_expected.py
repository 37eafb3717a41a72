#!/usr/bin/env python3
"""make_expected.py — runs real torch (2.13, x86 CPU) and writes tests/rng/expected.txt, the values
tests/c/test_random.c must reproduce bit for bit.

    python3 tests/rng/make_expected.py            # writes tests/rng/expected.txt
    python3 tests/rng/make_expected.py --big      # expected_big.txt: randperm at the 2^32/20 threshold

Format (one record a line, `#` starts a comment):
    case NAME                     start a case on torch's default generator
    seed S                        torch.manual_seed(S)            (S: decimal u64)
    setstate HEX                  torch.set_rng_state(bytes)      (5056 bytes in hex)
    op OP DTYPE N ARGS...         one call; floats are written with float.hex(), ints in decimal
    out COUNT FNV K HEX*K M HEX*M the output: element count, FNV-1a 64 of its raw little-endian bytes,
                                  the first K and last M elements (each element's bytes as a LE integer)
    err KIND MESSAGE...           the call raised KIND (RuntimeError, ...) with MESSAGE (first line)
    state FNV                     FNV-1a 64 of torch.get_rng_state() after the case so far
    end

The OP vocabulary (and how each maps to torch) is `run_op` below; test_random.c mirrors it.
"""
import sys
import os
import torch
import torch.nn.functional as F

DT = {'bool': torch.bool, 'uint8': torch.uint8, 'int8': torch.int8, 'int16': torch.int16,
      'int32': torch.int32, 'int64': torch.int64, 'float16': torch.float16, 'bfloat16': torch.bfloat16,
      'float32': torch.float32, 'float64': torch.float64}
FLOATS = ['float32', 'float64', 'float16', 'bfloat16']
INTS = ['int64', 'int32', 'int16', 'int8', 'uint8']
ALL = FLOATS + INTS + ['bool']


def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h


# ---- deterministic inputs shared with test_random.c (exact in every floating dtype) ----
def p_value(i):          # bernoulli probabilities: k/256, k in 0..256
    return ((i * 37 + 11) % 257) / 256.0


def rate_value(i):       # poisson rates: 0, 0.5, ..., 20
    return ((i * 13 + 5) % 41) * 0.5


def prob_value(i, j, zeros):  # multinomial weights: small integers (some zero when `zeros`; row 1 all
    if zeros == 2 and i == 1:  # zero when zeros == 2)
        return 0.0
    if zeros:
        return float((i * 7 + j * 3 + 1) % 5)
    return float(1 + (i * 7 + j * 3) % 5)


def elem_hex(t):
    """the raw bytes of each element of a contiguous tensor, as little-endian integers in hex"""
    c = torch.empty(t.shape, dtype=t.dtype).copy_(t).reshape(-1)  # dense, row-major
    b = c.view(torch.uint8).numpy().tobytes() if t.numel() else b''
    sz = t.element_size()
    return b, [int.from_bytes(b[k:k + sz], 'little') for k in range(0, len(b), sz)]


def run_op(op, dt, n, args):
    d = DT[dt]
    if op == 'uniform':                       # uniform_(from, to)
        return torch.empty(n, dtype=d).uniform_(args[0], args[1])
    if op == 'normal':                        # normal_(mean, std) on a contiguous (1) or strided (0) tensor
        mean, std, contig = args
        if contig:
            return torch.empty(n, dtype=d).normal_(mean, std)
        v = torch.empty(2 * n, dtype=d)[::2]
        return v.normal_(mean, std)
    if op == 'random':                        # random_()
        return torch.empty(n, dtype=d).random_()
    if op == 'random_from_to':                # random_(from, to)
        return torch.empty(n, dtype=d).random_(args[0], args[1])
    if op == 'random_from':                   # random_(from, None)
        return torch.empty(n, dtype=d).random_(args[0], None)
    if op == 'randperm':
        return torch.randperm(n, dtype=d)
    if op == 'bernoulli_scalar':
        return torch.empty(n, dtype=d).bernoulli_(args[0])
    if op == 'bernoulli_tensor':              # bernoulli_(p) with p[i] = p_value(i) in dtype args[0]
        p = torch.tensor([p_value(i) for i in range(n)], dtype=torch.float64).to(DT[args[0]])
        return torch.empty(n, dtype=d).bernoulli_(p)
    if op == 'bernoulli_tensor_bad':          # as bernoulli_tensor, but p[n // 2] = 1.5: fails midway
        p = torch.tensor([1.5 if i == n // 2 else p_value(i) for i in range(n)], dtype=torch.float64)
        return torch.empty(n, dtype=d).bernoulli_(p.to(DT[args[0]]))
    if op == 'exponential':
        return torch.empty(n, dtype=d).exponential_(args[0])
    if op == 'geometric':
        return torch.empty(n, dtype=d).geometric_(args[0])
    if op == 'log_normal':
        return torch.empty(n, dtype=d).log_normal_(args[0], args[1])
    if op == 'cauchy':
        return torch.empty(n, dtype=d).cauchy_(args[0], args[1])
    if op == 'poisson':                       # torch.poisson(rates), rates[i] = rate_value(i)
        r = torch.tensor([rate_value(i) for i in range(n)], dtype=d)
        return torch.poisson(r)
    if op == 'multinomial':                   # n = rows (0: a 1-D p); cols k replacement transposed zeros
        rows, (cols, k, repl, transposed, zeros) = n, args
        r = max(rows, 1)
        if transposed:
            base = torch.tensor([[prob_value(i, j, zeros) for i in range(r)] for j in range(cols)], dtype=d)
            p = base.t()
        else:
            p = torch.tensor([[prob_value(i, j, zeros) for j in range(cols)] for i in range(r)], dtype=d)
        if rows == 0:
            p = p[0]
        return torch.multinomial(p, k, bool(repl))
    if op == 'dropout':                       # F.dropout(ones(n), p): the noise itself
        return F.dropout(torch.ones(n, dtype=d), args[0], training=True)
    if op == 'dropout2d':                     # F.dropout2d(ones(n, C, 2, 2), p)[:, :, 0, 0]: one per channel
        C, p = args
        return F.dropout2d(torch.ones(n, C, 2, 2, dtype=d), p, training=True)[:, :, 0, 0]
    raise ValueError(op)


def fmt_arg(a):
    if isinstance(a, float):
        return a.hex()
    if isinstance(a, str):
        return a
    return str(int(a))


class Writer:
    def __init__(self):
        self.lines = []
        self.values = 0

    def case(self, name, seed, steps, setstate_after=None):
        """steps: (op, dtype, n, args), ('setstate', state_tensor) or ('state',) for a mid-case state hash"""
        self.lines.append('case %s' % name)
        self.lines.append('seed %d' % seed)
        torch.manual_seed(seed)
        for st in steps:
            if st[0] == 'setstate':
                s = st[1]
                self.lines.append('setstate ' + bytes(s.tolist()).hex())
                torch.set_rng_state(s)
                continue
            if st[0] == 'state':
                self.lines.append('state %016x' % fnv(bytes(torch.get_rng_state().tolist())))
                continue
            op, dt, n, args = st
            self.lines.append('op %s %s %d %s' % (op, dt, n, ' '.join(fmt_arg(a) for a in args)))
            try:
                out = run_op(op, dt, n, args)
            except Exception as e:  # noqa: BLE001 - every torch error is data here
                msg = str(e).split('\n')[0]
                self.lines.append('err %s %s' % (type(e).__name__, msg))
                continue
            b, vals = elem_hex(out)
            self.values += len(vals)
            k = min(4, len(vals))
            m = min(4, len(vals) - k)
            self.lines.append('out %d %016x %d %s %d %s' % (
                len(vals), fnv(b), k, ' '.join('%x' % v for v in vals[:k]),
                m, ' '.join('%x' % v for v in vals[len(vals) - m:])))
        self.lines.append('state %016x' % fnv(bytes(torch.get_rng_state().tolist())))
        self.lines.append('end')


SIZES = [1, 15, 16, 17, 1000, 100003]
SEEDS = [0, 1, 42, 2**40 + 77, 2**64 - 1, 123456789]


def build(big):
    w = Writer()
    if big:  # only the randperm cases around the large-n threshold (n >= 2^32 / 20 switches algorithm)
        w.case('randperm_big_int32', 0, [('randperm', 'int32', 214748364, [])])
        w.case('randperm_below_big_int32', 0, [('randperm', 'int32', 214748363, [])])
        return w
    # -- the engine and seeding: randint over the full u32 range shows raw draws; also the stream state
    for s in SEEDS:
        w.case('random_int64_seed%d' % s, s, [('random', 'int64', 1000, [])])
    # a fresh torch.Generator() is seeded with 67280421310721
    w.case('fresh_generator_seed', 67280421310721, [('uniform', 'float32', 10, [0.0, 1.0]),
                                                   ('normal', 'float32', 3, [0.0, 1.0, 1])])
    # -- uniform
    for dt in FLOATS:
        for n in SIZES:
            for si, (a, b) in enumerate([(0.0, 1.0), (-3.3, 7.1), (2.0, 5.0), (-0.5773502691896258, 0.5773502691896258)]):
                if n == 100003 and si > 1:
                    continue
                w.case('uniform_%s_%d_%d' % (dt, n, si), SEEDS[(n + si) % len(SEEDS)], [('uniform', dt, n, [a, b])])
    # uniform where the cast rounds up to `to` (the clamp to `from`)
    for dt in ['float16', 'bfloat16', 'float32']:
        w.case('uniform_clamp_%s' % dt, 3, [('uniform', dt, 5000, [1.0, 1.001])])
        w.case('uniform_clamp2_%s' % dt, 4, [('uniform', dt, 5000, [100.0, 100.5])])
    # -- normal: contiguous (vectorised at >= 16) and strided (Box–Muller with cache)
    for dt in FLOATS:
        for n in SIZES:
            for mi, (mean, std) in enumerate([(0.0, 1.0), (0.25, 1.7), (-2.0, 0.5)]):
                if n == 100003 and mi > 0:
                    continue
                for contig in (1, 0):
                    if n == 100003 and not contig and dt in ('float16', 'bfloat16'):
                        continue
                    w.case('normal_%s_%d_%d_%d' % (dt, n, mi, contig), SEEDS[(n + mi) % len(SEEDS)],
                           [('normal', dt, n, [mean, std, contig])])
    for dt in ['float16', 'bfloat16']:
        for n in [31, 32, 33, 47, 999]:
            w.case('normal_reduced_tail_%s_%d' % (dt, n), 7, [('normal', dt, n, [0.0, 1.0, 1])])
    # interleavings: the double cache survives other ops and is used by the next small normal
    w.case('interleave1', 0, [('normal', 'float32', 1, [0.0, 1.0, 1]), ('uniform', 'float32', 1, [0.0, 1.0]),
                              ('normal', 'float32', 1, [0.0, 1.0, 1]), ('normal', 'float32', 3, [0.0, 1.0, 1]),
                              ('state',), ('normal', 'float64', 20, [0.0, 1.0, 1]),
                              ('normal', 'float64', 5, [1.0, 2.0, 1]), ('uniform', 'float64', 3, [0.0, 1.0]),
                              ('normal', 'float16', 3, [0.0, 1.0, 1]), ('normal', 'float32', 16, [0.0, 1.0, 1]),
                              ('normal', 'bfloat16', 1, [0.0, 1.0, 1]), ('log_normal', 'float64', 3, [0.0, 1.0]),
                              ('normal', 'float32', 17, [0.0, 1.0, 0])])
    for s in SEEDS[:3]:
        steps = []
        for k in range(12):
            steps.append(('normal', ['float32', 'float64'][k % 2], [1, 2, 3, 5, 15, 7][k % 6], [0.0, 1.0, 1]))
            steps.append(('uniform', 'float32', k + 1, [0.0, 1.0]))
        w.case('interleave_seed%d' % s, s, steps)
    # -- random_
    for dt in ALL:
        for n in [1, 17, 1000]:
            w.case('random_%s_%d' % (dt, n), 5 + n, [('random', dt, n, [])])
    for dt in ALL:
        for (a, b) in [(0, 10), (-7, 13), (0, 2**28 - 1), (0, 2**28), (-(2**40), 2**33), (3, 4), (0, 2**24 + 3),
                       (-128, 127), (0, 256), (0, 2)]:
            w.case('random_from_to_%s_%d_%d' % (dt, a, b), 9, [('random_from_to', dt, 100, [a, b])])
    for dt in ALL:
        for a in [0, 5, -100, 2**20, -(2**63)]:
            w.case('random_from_%s_%d' % (dt, a), 11, [('random_from', dt, 100, [a])])
    for dt in ['float32', 'float64', 'float16', 'bfloat16']:
        w.case('random_from_to_big_%s' % dt, 12, [('random_from_to', dt, 50, [2**24 + 1, 2**24 + 2])])
        w.case('random_from_to_big2_%s' % dt, 12, [('random_from_to', dt, 50, [-(2**60), 2**60])])
        w.case('random_from_big_%s' % dt, 12, [('random_from', dt, 50, [2**25])])
    # -- randperm
    for dt in ['int64', 'int32', 'int16', 'int8', 'uint8', 'float32', 'float64', 'float16', 'bfloat16', 'bool']:
        for n in [0, 1, 2, 10, 128, 129, 256, 257, 1000, 2049, 2050, 100003]:
            if n == 100003 and dt not in ('int64', 'float32'):
                continue
            w.case('randperm_%s_%d' % (dt, n), n % 5, [('randperm', dt, n, [])])
    # -- bernoulli
    for dt in ALL:
        for p in [0.3, 0.0, 1.0, 0.5, 1e-7]:
            w.case('bernoulli_scalar_%s_%r' % (dt, p), 13, [('bernoulli_scalar', dt, 333, [p])])
    for dt in ['float32', 'int64', 'bool']:
        w.case('bernoulli_scalar_big_%s' % dt, 23, [('bernoulli_scalar', dt, 100003, [0.3])])
    for dt in ['float32', 'float64']:
        w.case('exponential_big_%s' % dt, 23, [('exponential', dt, 100003, [2.0])])
    for dt in ALL:
        for pdt in FLOATS:
            w.case('bernoulli_tensor_%s_%s' % (dt, pdt), 14, [('bernoulli_tensor', dt, 1000, [pdt])])
    w.case('bernoulli_tensor_int_p', 14, [('bernoulli_tensor', 'float32', 10, ['int64'])])
    # -- exponential, geometric, log_normal, cauchy
    for dt in ALL:
        for lam in [1.0, 1.5, 0.1, 1e-300]:
            w.case('exponential_%s_%r' % (dt, lam), 15, [('exponential', dt, 1000, [lam])])
        for p in [0.3, 0.01, 0.9, 1e-9]:
            w.case('geometric_%s_%r' % (dt, p), 16, [('geometric', dt, 1000, [p])])
        for (m, s) in [(0.0, 1.0), (1.0, 0.5), (-2.0, 3.0)]:
            w.case('log_normal_%s_%r_%r' % (dt, m, s), 17, [('log_normal', dt, 1001, [m, s])])
        for (m, s) in [(0.0, 1.0), (2.5, 0.25), (-1.25, 1.7)]:
            w.case('cauchy_%s_%r_%r' % (dt, m, s), 18, [('cauchy', dt, 1000, [m, s])])
    for dt in ['float32', 'float64', 'float16', 'bfloat16', 'int64']:
        w.case('poisson_%s' % dt, 19, [('poisson', dt, 2000, [])])
    # -- multinomial: rows (0 = 1-D), cols, k, replacement, transposed, zeros
    for dt in FLOATS:
        for rows, cols, k, repl, tr, z in [(0, 5, 1, 0, 0, 0), (0, 5, 3, 0, 0, 0), (0, 5, 5, 0, 0, 0),
                                          (0, 5, 1, 1, 0, 0), (0, 5, 20, 1, 0, 0), (3, 7, 4, 0, 0, 0),
                                          (3, 7, 4, 0, 1, 0), (4, 6, 10, 1, 0, 1), (4, 6, 10, 1, 1, 1),
                                          (5, 100, 30, 0, 0, 1), (2, 1000, 1, 0, 0, 0), (2, 1000, 500, 1, 0, 1),
                                          (0, 300, 1, 1, 0, 1), (0, 64, 64, 0, 0, 1), (2, 50, 50, 0, 1, 1),
                                          (3, 2000, 30, 0, 0, 1), (2, 3000, 40, 0, 0, 0), (1, 40, 33, 0, 0, 1),
                                          (2, 17, 17, 0, 0, 1), (0, 5000, 4000, 0, 0, 1)]:
            w.case('multinomial_%s_%d_%d_%d_%d_%d_%d' % (dt, rows, cols, k, repl, tr, z), 20 + cols,
                   [('multinomial', dt, rows, [cols, k, repl, tr, z])])
    # -- dropout (noise) and dropout2d (per channel)
    for dt in FLOATS:
        for p in [0.5, 0.1, 0.9, 0.3333]:
            w.case('dropout_%s_%r' % (dt, p), 21, [('dropout', dt, 1000, [p])])
        w.case('dropout2d_%s' % dt, 22, [('dropout2d', dt, 8, [16, 0.4])])
    # -- errors (texts must match)
    errs = [('uniform', 'float32', 4, [1.0, 0.0]), ('uniform', 'float32', 4, [-1e39, 0.0]),
            ('uniform', 'float16', 4, [0.0, 1e5]), ('uniform', 'float32', 4, [-3e38, 3e38]),
            ('uniform', 'int64', 4, [0.0, 1.0]), ('normal', 'float32', 4, [0.0, -1.0, 1]),
            ('normal', 'float32', 4, [0.0, -1.23456789e8, 1]), ('normal', 'int32', 4, [0.0, 1.0, 1]),
            ('normal', 'int32', 0, [0.0, 1.0, 1]),
            ('random_from_to', 'float32', 2, [5, 3]), ('random_from_to', 'int8', 2, [0, 200]),
            ('random_from_to', 'uint8', 2, [-1, 20]), ('random_from_to', 'bool', 2, [0, 3]),
            ('random_from_to', 'float16', 2, [0, 2**62]), ('random_from_to', 'int32', 2, [-(2**40), 0]),
            ('random_from', 'float32', 2, [2**25]), ('random_from', 'float16', 2, [-(2**63)]),
            ('random_from', 'int16', 2, [-(2**63)]), ('random_from', 'bool', 2, [-(2**63)]),
            ('randperm', 'int8', 129, []), ('randperm', 'int32', 2**31 + 1, []),
            ('randperm', 'float16', 2050, []), ('randperm', 'float32', 2**24 + 2, []), ('randperm', 'bool', 3, []),
            ('bernoulli_scalar', 'float32', 4, [1.5]), ('bernoulli_scalar', 'float32', 4, [-0.0]),
            ('bernoulli_tensor', 'float32', 4, ['int64']),
            ('exponential', 'float32', 4, [0.0]), ('exponential', 'int64', 4, [1.0]),
            ('exponential', 'int64', 0, [1.0]), ('geometric', 'float32', 4, [1.0]),
            ('geometric', 'bool', 4, [0.5]), ('log_normal', 'float32', 4, [0.0, 0.0]),
            ('log_normal', 'int64', 4, [0.0, 1.0]), ('cauchy', 'float32', 4, [0.0, -1.5]),
            ('cauchy', 'int64', 4, [0.0, 1.0]), ('cauchy', 'int64', 0, [0.0, 1.0]),
            ('poisson', 'int32', 4, []),
            ('multinomial', 'float32', 0, [5, 6, 0, 0, 0]), ('multinomial', 'float32', 0, [5, 0, 1, 0, 0]),
            ('multinomial', 'float32', 2, [5, 5, 0, 0, 1]), ('multinomial', 'float32', 0, [5, 5, 0, 0, 1]),
            ('multinomial', 'int64', 0, [5, 1, 0, 0, 0]), ('multinomial', 'float32', 0, [0, 1, 1, 0, 0]),
            ('multinomial', 'float32', 0, [0, 2, 1, 0, 0]), ('multinomial', 'float32', 2, [0, 1, 1, 0, 0]),
            ('multinomial', 'float32', 0, [0, 1, 0, 0, 0])]
    for i, e in enumerate(errs):
        w.case('error_%d_%s' % (i, e[0]), 0, [e])
    # failures part way: the elements before the bad one are drawn (the state hash shows it)
    for pdt in ['float32', 'float64']:
        w.case('bernoulli_tensor_bad_%s' % pdt, 5, [('bernoulli_tensor_bad', 'float32', 20, [pdt])])
    for repl in (0, 1):
        w.case('multinomial_zero_row_%d' % repl, 6, [('multinomial', 'float32', 3, [4, 2, repl, 0, 2])])
    # -- state round trip: torch's state bytes (with a cached normal) loaded in C give torch's next draws
    torch.manual_seed(99)
    torch.randn(3, dtype=torch.float64)  # leaves a cached double normal
    torch.rand(5)
    st = torch.get_rng_state()
    w.case('setstate_from_torch', 1, [('setstate', st), ('normal', 'float64', 3, [0.0, 1.0, 1]),
                                      ('random', 'int64', 700, []), ('normal', 'float32', 40, [0.0, 1.0, 1])])
    return w


def main():
    big = '--big' in sys.argv
    w = build(big)
    w.lines.insert(0, '# generated by tests/rng/make_expected.py%s with torch %s (%s)' % (
        ' --big' if big else '', torch.__version__, torch.backends.cpu.get_cpu_capability()))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'expected_big.txt' if big else 'expected.txt')
    with open(path, 'w') as f:
        f.write('\n'.join(w.lines) + '\n')
    print('wrote %s: %d lines, %d values' % (path, len(w.lines), w.values))


if __name__ == '__main__':
    main()

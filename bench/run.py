#!/usr/bin/env python3
"""bench/run.py — every workload of issue 5, wick against real torch, side by side.

    python3 bench/run.py                 # the whole table (a few minutes)
    python3 bench/run.py --quick         # fewer, shorter repetitions
    python3 bench/run.py -k gemm         # only rows whose name contains a pattern (comma-separated: any)
    python3 bench/run.py --threads 1     # threads for both sides (default: all cores)

How it measures (so the ratios are honest on a shared, noisy machine):
  * two long-lived worker processes, one importing wick and one importing torch, each with
    set_num_threads(n) for the same n;
  * for every workload each worker builds its inputs once and runs it until warm, then the parent asks the two
    workers in turn (wick, torch, wick, torch, ...) for one timed batch each; a batch runs the workload a fixed
    number of times (calibrated once, so that a batch takes about --batch seconds) and reports the mean time
    per call; the figure in the table is the median over the repetitions, and the ratio is wick's median over
    torch's median. Noise that lasts longer than a batch hits both sides;
  * `import` and peak memory are measured in fresh subprocesses, alternating too;
  * the machine's peak FMA throughput and memory bandwidth come from bench/peak.c (compiled here), and the
    load average is printed before and after, because other processes share the cores.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, 'build', 'bench')

# ---------------------------------------------------------------------------------------------------------
# Workloads. Each is (name, target ratio, group, make) where make(T) builds the inputs with the library T
# (wick or torch) and returns (fn, flops per call or None). fn() runs the workload once.
# ---------------------------------------------------------------------------------------------------------


def _gemm(n):
    def make(T):
        a, b = T.randn(n, n), T.randn(n, n)
        return (lambda: T.mm(a, b)), 2.0 * n ** 3
    return make


def _unary(op, strided):
    def make(T):
        if strided:
            x = T.randn(2048, 4096)[:, ::2]  # 4M floats, every other column: row stride 4096, column stride 2
        else:
            x = T.randn(4 * 1024 * 1024)
        y = T.randn(*x.shape) if not strided else T.randn(2048, 4096)[:, ::2]
        if op == 'add':
            return (lambda: x + y), None
        if op == 'mul':
            return (lambda: x * y), None
        if op == 'exp':
            return (lambda: T.exp(x)), None
        if op == 'sigmoid':
            return (lambda: T.sigmoid(x)), None
        raise ValueError(op)
    return make


def _reduce(op, dim):
    def make(T):
        x = T.randn(2048, 2048)
        if op == 'sum':
            return (lambda: x.sum(dim)), None
        if op == 'mean':
            return (lambda: x.mean(dim)), None
        if op == 'max':
            return (lambda: x.max(dim)), None
        if op == 'softmax':
            return (lambda: T.softmax(x, dim)), None
        if op == 'logsumexp':
            return (lambda: T.logsumexp(x, dim)), None
        raise ValueError(op)
    return make


# conv shapes: (name, N, Cin, H, W, Cout, k, stride, pad)
CONVS = [
    ('lenet_c1', 64, 1, 28, 28, 6, 5, 1, 2),
    ('lenet_c2', 64, 6, 14, 14, 16, 5, 1, 0),
    ('resnet_conv1', 64, 3, 32, 32, 64, 3, 1, 1),
    ('resnet_l1', 64, 64, 32, 32, 64, 3, 1, 1),
    ('resnet_l2', 64, 128, 16, 16, 128, 3, 1, 1),
    ('resnet_l2_down', 64, 64, 32, 32, 128, 3, 2, 1),
    ('resnet_l3', 64, 256, 8, 8, 256, 3, 1, 1),
    ('resnet_l4', 64, 512, 4, 4, 512, 3, 1, 1),
]


def _conv(spec, backward):
    _, N, C, H, W, K, k, s, p = spec
    Ho, Wo = (H + 2 * p - k) // s + 1, (W + 2 * p - k) // s + 1
    fwd_flops = 2.0 * N * K * C * k * k * Ho * Wo

    def make(T):
        F = T.nn.functional
        x = T.randn(N, C, H, W, requires_grad=backward)
        w = T.randn(K, C, k, k, requires_grad=backward)
        b = T.randn(K, requires_grad=backward)
        if not backward:
            def fwd():
                with T.no_grad():
                    return F.conv2d(x, w, b, stride=s, padding=p)
            return fwd, fwd_flops
        out = F.conv2d(x, w, b, stride=s, padding=p)
        g = T.randn(*out.shape)
        # the backward alone: input, weight and bias gradients of one recorded convolution
        return (lambda: T.autograd.grad(out, (x, w, b), g, retain_graph=True)), 2 * fwd_flops
    return make


def _mlp_model(T):
    nn = T.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def _mlp_step(T):
    T.manual_seed(0)
    model = _mlp_model(T)
    opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = T.randn(64, 784), T.randint(0, 10, (64,))
    F = T.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    fwd = 2.0 * 64 * (784 * 256 + 256 * 10)
    return step, 3 * fwd


def _lenet_model(T):
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))


def _lenet_step(T):
    T.manual_seed(0)
    model = _lenet_model(T)
    opt = T.optim.Adam(model.parameters(), lr=1e-3)
    x, y = T.randn(64, 1, 28, 28), T.randint(0, 10, (64,))
    F = T.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    fwd = 2.0 * 64 * (6 * 25 * 28 * 28 + 16 * 6 * 25 * 10 * 10 + 400 * 120 + 120 * 84 + 84 * 10)
    return step, 3 * fwd


def _add1(T):
    a, b = T.randn(1), T.randn(1)
    return (lambda: a + b), None


def _tiny_graph(T):
    a = T.randn(100, requires_grad=True)

    def f():
        (a * 2).sum().backward()
    return f, None


WORKLOADS = [('add_1elem', 0.3, 'overhead', _add1), ('tiny_graph_fwd_bwd', 0.3, 'overhead', _tiny_graph)]
WORKLOADS += [('sgemm_%d' % n, 1.0, 'gemm', _gemm(n)) for n in (64, 256, 1024, 2048)]
WORKLOADS += [('%s_4M_%s' % (op, 'strided' if st else 'contig'), 1.0, 'pointwise', _unary(op, st))
              for op in ('add', 'mul', 'exp', 'sigmoid') for st in (False, True)]
WORKLOADS += [('%s_2048x2048_dim%d' % (op, d), 1.0, 'reduce', _reduce(op, d))
              for op in ('sum', 'mean', 'max', 'softmax', 'logsumexp') for d in (0, 1)]
WORKLOADS += [('conv_%s_%s' % (c[0], 'bwd' if bw else 'fwd'), 1.2, 'conv', _conv(c, bw)) for c in CONVS
              for bw in (False, True)]
WORKLOADS += [('mlp_sgd_step', 0.6, 'train', _mlp_step), ('lenet_adam_step', 1.0, 'train', _lenet_step)]
BY_NAME = {w[0]: w for w in WORKLOADS}
EXTRA = [('import', 0.05, 'overhead'), ('mlp_peak_rss', 0.5, 'memory')]  # measured in fresh subprocesses


# ---------------------------------------------------------------------------------------------------------
# The worker: one process per library, answering JSON requests on stdin.
# ---------------------------------------------------------------------------------------------------------
def worker(lib, threads):
    if lib == 'wick':
        sys.path.insert(0, ROOT)
    T = __import__(lib)
    import importlib
    importlib.import_module(lib + '.nn.functional')
    importlib.import_module(lib + '.optim')
    T.set_num_threads(threads)
    made = {}  # name -> (fn, flops, calls per batch)
    out = sys.stdout
    sys.stdout = sys.stderr  # anything the workloads print must not corrupt the protocol
    for line in sys.stdin:
        req = json.loads(line)
        name = req['name']
        try:
            if name not in made:
                fn, flops = BY_NAME[name][3](T)
                fn()  # warm-up: first call, allocator, lazy init
                t0 = time.perf_counter()
                fn()
                one = max(time.perf_counter() - t0, 1e-7)
                calls = max(1, int(req['batch'] / one))
                for _ in range(min(calls, 3)):  # a little more warm-up
                    fn()
                made[name] = (fn, flops, calls)
            fn, flops, calls = made[name]
            if req.get('calls'):
                calls = req['calls']
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            dt = (time.perf_counter() - t0) / calls
            res = {'time': dt, 'flops': flops, 'calls': calls}
        except Exception as e:  # a workload the library cannot run yet: report it, keep going
            res = {'error': '%s: %s' % (type(e).__name__, str(e).splitlines()[0] if str(e) else '')}
        out.write(json.dumps(res) + '\n')
        out.flush()


# --isa avx2: the project's machines (AVX2 + FMA, no AVX-512) on an AVX-512 host, for both sides alike:
# wick's GEMM and vector kernels, and torch's ATen kernels, MKL and oneDNN, all capped at AVX2.
ISA_ENV = {'native': {},
           'avx2': {'WICK_NO_AVX512': '1', 'ATEN_CPU_CAPABILITY': 'avx2', 'MKL_ENABLE_INSTRUCTIONS': 'AVX2',
                    'ONEDNN_MAX_CPU_ISA': 'AVX2'}}
ISA = 'native'


class Worker:
    def __init__(self, lib, threads, tree=ROOT, env=None):
        """a worker process running `tree`'s bench/run.py (another checkout's, for bench/ab.py), with `env` added"""
        env = dict(os.environ, **ISA_ENV[ISA], **(env or {}))
        self.p = subprocess.Popen([sys.executable, os.path.join(tree, 'bench', 'run.py'), '--worker', lib, '--threads',
                                   str(threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  cwd='/', env=env)

    def ask(self, **req):
        self.p.stdin.write(json.dumps(req) + '\n')
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            return {'error': 'worker died'}
        return json.loads(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ---------------------------------------------------------------------------------------------------------
# Fresh-subprocess measurements: import time and peak resident memory.
# ---------------------------------------------------------------------------------------------------------
def _env_for(lib):
    env = dict(os.environ, **ISA_ENV[ISA])
    if lib == 'wick':
        env['PYTHONPATH'] = ROOT + (os.pathsep + env['PYTHONPATH'] if env.get('PYTHONPATH') else '')
    return env


def import_time(lib):
    """wall seconds from process start to `import lib` done (a fresh interpreter each time)"""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, '-c', 'import %s' % lib], env=_env_for(lib), cwd='/', check=True)
    return time.perf_counter() - t0


RSS_SCRIPT = r'''
import resource, sys, gc, json
lib, steps, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
T = __import__(lib)
import importlib
importlib.import_module(lib + '.nn.functional'); importlib.import_module(lib + '.optim')
T.set_num_threads(threads)
gc.collect()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sys.path.insert(0, sys.argv[4])
from run import _mlp_model
T.manual_seed(0)
model = _mlp_model(T)
opt = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
F = T.nn.functional
for i in range(steps):
    x, y = T.randn(64, 784), T.randint(0, 10, (64,))
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({'base_kb': base, 'peak_kb': peak}))
'''


def peak_rss(lib, threads, steps=200):
    r = subprocess.run([sys.executable, '-c', RSS_SCRIPT, lib, str(steps), str(threads),
                        os.path.dirname(os.path.abspath(__file__))], env=_env_for(lib), cwd='/', check=True,
                       capture_output=True, text=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------------------
# Machine figures: bench/peak.c
# ---------------------------------------------------------------------------------------------------------
def machine_peak(threads, reps):
    os.makedirs(BUILD, exist_ok=True)
    exe = os.path.join(BUILD, 'peak')
    src = os.path.join(ROOT, 'bench', 'peak.c')
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(['cc', '-O2', '-pthread', src, '-o', exe], check=True)
    r = subprocess.run([exe, str(threads), str(reps)], check=True, capture_output=True, text=True)
    return {k: float(v) for k, v in (line.split() for line in r.stdout.splitlines())}


# ---------------------------------------------------------------------------------------------------------
def _fmt_time(t):
    if t is None:
        return '-'
    if t < 1e-3:
        return '%.2f us' % (t * 1e6)
    if t < 1:
        return '%.3f ms' % (t * 1e3)
    return '%.3f s' % t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='3 repetitions of ~0.05 s batches')
    ap.add_argument('-k', default='', help='only workloads whose name contains one of these (comma-separated)')
    ap.add_argument('--threads', type=int, default=os.cpu_count())
    ap.add_argument('--reps', type=int, default=None, help='timed repetitions per side (default 7, quick 3)')
    ap.add_argument('--batch', type=float, default=None, help='seconds per timed batch (default 0.2, quick 0.05)')
    ap.add_argument('--json', default=None, help='also write the rows to this file')
    ap.add_argument('--isa', choices=sorted(ISA_ENV), default='native',
                    help='avx2: cap both sides at AVX2 (the project machines) on an AVX-512 host')
    ap.add_argument('--worker', default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker, args.threads)
    global ISA
    ISA = args.isa
    reps = args.reps or (3 if args.quick else 7)
    batch = args.batch or (0.05 if args.quick else 0.2)
    pats = [p for p in args.k.split(',') if p]

    def wanted(name):
        return not pats or any(p in name for p in pats)

    print('bench/run.py: wick vs torch, %d thread(s) each, %d alternating repetitions, ~%.2f s batches, medians'
          % (args.threads, reps, batch))
    if ISA != 'native':
        print('isa: both sides capped at %s (%s)' % (ISA, ' '.join('%s=%s' % kv for kv in ISA_ENV[ISA].items())))
    print('load average before: %.2f %.2f %.2f' % os.getloadavg())
    import platform
    print('machine: %s, %d cores, python %s' % (_cpu_name(), os.cpu_count(), platform.python_version()))
    peak = machine_peak(args.threads, 3 if args.quick else 5)
    peak_flops = max(peak.get('fma_avx512_allcores_gflops', 0) if ISA == 'native' else 0,
                     peak.get('fma_avx2_allcores_gflops', 0))
    print('measured peak (bench/peak.c, best of runs): FMA AVX2 %.1f GFLOP/s/core, %.1f all cores; '
          'AVX-512 %.1f /core, %.1f all cores' % (peak.get('fma_avx2_1core_gflops', 0),
                                                  peak.get('fma_avx2_allcores_gflops', 0),
                                                  peak.get('fma_avx512_1core_gflops', 0),
                                                  peak.get('fma_avx512_allcores_gflops', 0)))
    print('memory bandwidth: copy %.1f GB/s (1 thread) %.1f (all); triad %.1f (1 thread) %.1f (all)'
          % (peak['copy_1thread_gbs'], peak['copy_allthreads_gbs'], peak['triad_1thread_gbs'],
             peak['triad_allthreads_gbs']))
    print()
    rows = []

    # fresh-subprocess rows first (they must not run while the workers hold memory)
    if wanted('import'):
        tw, tt = [], []
        for _ in range(reps):
            tw.append(import_time('wick'))
            tt.append(import_time('torch'))
        py = statistics.median(import_time('sys') for _ in range(3))
        rows.append(dict(name='import', target=0.05, wick=statistics.median(tw), torch=statistics.median(tt),
                         note='fresh `python -c "import X"`, whole process (bare python: %s)' % _fmt_time(py)))
    if wanted('mlp_peak_rss'):
        rw, rt = [], []
        for _ in range(max(1, reps // 2)):
            rw.append(peak_rss('wick', args.threads))
            rt.append(peak_rss('torch', args.threads))
        wb = statistics.median(r['base_kb'] for r in rw)
        wp = statistics.median(r['peak_kb'] for r in rw)
        tb = statistics.median(r['base_kb'] for r in rt)
        tp = statistics.median(r['peak_kb'] for r in rt)
        rows.append(dict(name='mlp_peak_rss', target=0.5, wick=(wp - wb) * 1024, torch=(tp - tb) * 1024, unit='B',
                         note='ratio = loop increase over post-import baseline; whole process: wick %.0f MB, '
                              'torch %.0f MB (x%.3f); baseline wick %.0f MB, torch %.0f MB'
                              % (wp / 1024, tp / 1024, wp / tp, wb / 1024, tb / 1024)))

    names = [w[0] for w in WORKLOADS if wanted(w[0])]
    if names:
        ww, wt = Worker('wick', args.threads), Worker('torch', args.threads)
        for name in names:
            _, target, group, _ = BY_NAME[name]
            rw = ww.ask(name=name, batch=batch)
            rt = wt.ask(name=name, batch=batch)
            row = dict(name=name, target=target, wick=None, torch=None)
            if 'error' in rw or 'error' in rt:
                row['note'] = 'wick: ' + rw['error'] if 'error' in rw else 'torch: ' + rt['error']
                rows.append(row)
                _print_row(row, peak_flops, live=True)
                continue
            tw, tt = [], []
            nreps = reps if rw['time'] * rw['calls'] < 2 else max(2, reps // 2)  # very slow rows: fewer reps
            for i in range(nreps):
                # alternate who goes first, so a drift in load does not favour one side
                first, second = (ww, wt) if i % 2 == 0 else (wt, ww)
                a = first.ask(name=name, batch=batch)
                time.sleep(0.01)  # let the other side's OpenMP spinners go to sleep
                b = second.ask(name=name, batch=batch)
                time.sleep(0.01)
                ra, rb = (a, b) if first is ww else (b, a)
                tw.append(ra['time'])
                tt.append(rb['time'])
            row.update(wick=statistics.median(tw), torch=statistics.median(tt), flops=rw['flops'],
                       spread='%.0f%%/%.0f%%' % (100 * _spread(tw), 100 * _spread(tt)))
            rows.append(row)
            _print_row(row, peak_flops, live=True)
        ww.close()
        wt.close()
    print()
    print('load average after: %.2f %.2f %.2f' % os.getloadavg())
    print()
    _print_table(rows, peak_flops, args.threads)
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(dict(rows=rows, peak=peak, threads=args.threads), f, indent=1)


def _spread(xs):
    """(max - min) / median: how noisy the repetitions were"""
    m = statistics.median(xs)
    return (max(xs) - min(xs)) / m if m else 0


def _cpu_name():
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return 'unknown cpu'


def _print_row(row, peak_flops, live=False):
    if live:
        r = row['wick'] / row['torch'] if row.get('wick') and row.get('torch') else None
        print('  %-32s wick %-12s torch %-12s ratio %s %s' % (row['name'], _fmt_time(row.get('wick')),
                                                             _fmt_time(row.get('torch')),
                                                             '%.2f' % r if r else '-', row.get('note', '')),
              flush=True)


def _print_table(rows, peak_flops, threads):
    hdr = ('workload', 'wick', 'torch', 'ratio', 'wick GF/s', 'torch GF/s', '%peak', 'target', 'met', 'spread w/t')
    lines = []
    met_n = 0
    for row in rows:
        w, t = row.get('wick'), row.get('torch')
        ratio = w / t if w and t else None
        fl = row.get('flops')
        if row.get('unit') == 'B':
            ws, ts = '%.1f MB' % (w / 2 ** 20), '%.1f MB' % (t / 2 ** 20)
        else:
            ws, ts = _fmt_time(w), _fmt_time(t)
        met = ratio is not None and ratio <= row['target']
        met_n += met
        lines.append((row['name'], ws, ts, '%.2f' % ratio if ratio else '-',
                      '%.1f' % (fl / w / 1e9) if fl and w else '', '%.1f' % (fl / t / 1e9) if fl and t else '',
                      '%.0f%%' % (100 * fl / w / 1e9 / peak_flops) if fl and w and peak_flops else '',
                      '<= %.2g' % row['target'], 'met' if met else 'NOT met', row.get('spread', '')))
    widths = [max(len(str(x[i])) for x in lines + [hdr]) for i in range(len(hdr))]
    fmt = '  '.join('%%-%ds' % wd if i == 0 else '%%%ds' % wd for i, wd in enumerate(widths))
    print(fmt % hdr)
    print('  '.join('-' * wd for wd in widths))
    for x in lines:
        print(fmt % x)
    print()
    print('%d of %d rows meet their target; threads %d each side; %%peak is wick GFLOP/s over the measured '
          'all-core FMA peak (%.1f GFLOP/s)' % (met_n, len(lines), threads, peak_flops))
    notes = [r for r in rows if r.get('note')]
    for r in notes:
        print('  %s: %s' % (r['name'], r['note']))


if __name__ == '__main__':
    main()

"""Ports parity cases to the JS API: each case is run once under real torch through a recording stand-in for the
module T, and what it did becomes a straight-line program of JS API calls (functions, methods, attributes,
torch.tensor with its dtype made explicit), written to tests/wasm/golden_port.json. tests/wasm/golden.mjs runs
those programs through the wasm core and compares what they give with the pinned goldens
(tests/parity/golden/*.json, from real torch), never with the values seen while recording.

A case the stand-in cannot express (a name the JS API lacks -- the Python layer's nn.functional, autograd.grad,
indexing, ... -- or Python reading a tensor's value to decide what to do) is listed by name with the reason,
never dropped.  Metadata read while recording (shape, dtype, requires_grad, ...) is recorded as a check the JS run
must pass too.

    python3 tests/wasm/port_golden.py [cases_file ...]      (default: the slice in SLICE)
"""
import importlib
import json
import math
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, ROOT)
SLICE = ['cases_pointwise', 'cases_pointwise_binary', 'cases_pointwise_unary', 'cases_pointwise_compare',
         'cases_pointwise_layout', 'cases_reduce', 'cases_reduce_sort', 'cases_reduce_scan', 'cases_shape',
         'cases_shape_join', 'cases_shape_inplace', 'cases_creation', 'cases_creation_dtype', 'cases_creation_scalars',
         'cases_linalg', 'cases_linalg_dense', 'cases_index_ops', 'cases_random', 'cases_nn_act', 'cases_nn_loss',
         'cases_errors', 'cases_autograd', 'cases_extra', 'cases_arg_types', 'cases_safety']
OUT = os.path.join(ROOT, 'tests', 'wasm', 'golden_port.json.gz')


class Untranslatable(Exception):
    pass


def camel(name):
    trail = '_' if name.endswith('_') and not name.endswith('__') else ''
    core = name[:-1] if trail else name
    parts = core.split('_')
    return parts[0] + ''.join(p[:1].upper() + p[1:] for p in parts[1:]) + trail


def load_bindings():
    d = json.load(open(os.path.join(ROOT, 'build', 'gen', 'ops.json')))
    b = d['bindings']
    return (set(n for n in b['function'] if not n.startswith('_')), set(n for n in b['method'] if not n.startswith('_')),
            set(n[len('linalg_'):] for n in b['linalgfunction'] if n.startswith('linalg_')),
            set(n for n in b['nnfunction'] if not n.startswith('_')))


FUNCS, METHODS, LINALG, NN = load_bindings()
# Tensor members js/core.mjs defines by hand (the generated surface never shadows them)
CORE_METHODS = {'item', 'backward', 'requires_grad_', 'float', 'double', 'half', 'bfloat16', 'long', 'int', 'short',
                'char', 'byte', 'bool'}
# metadata methods: their Python value is recorded, and the JS run must give the same (js/core.mjs has them)
META_METHODS = {'size', 'dim', 'numel', 'stride', 'is_contiguous', 'element_size', 'nelement', 'ndimension',
                'is_floating_point'}
META = {'shape', 'dtype', 'requires_grad', 'is_leaf', 'ndim'}
BINOPS = {'__add__': 'add', '__sub__': 'sub', '__mul__': 'mul', '__truediv__': 'div', '__matmul__': 'matmul',
          '__pow__': 'pow', '__eq__': 'eq', '__ne__': 'ne', '__lt__': 'lt', '__le__': 'le', '__gt__': 'gt',
          '__ge__': 'ge', '__and__': 'bitwise_and', '__or__': 'bitwise_or', '__xor__': 'bitwise_xor',
          '__floordiv__': 'floor_divide', '__mod__': 'remainder', '__radd__': 'add', '__rmul__': 'mul'}
UNOPS = {'__neg__': 'neg', '__abs__': 'abs', '__invert__': 'bitwise_not'}


class Recorder:
    def __init__(self, torch):
        self.torch = torch
        self.steps = []
        self.by_id = {}  # id(python value) -> step index, for metadata/repr values that reach the output
        self.keep = []   # keeps those values alive so their ids stay unique

    def add(self, step, value):
        self.steps.append(step)
        return len(self.steps) - 1

    def enc(self, v):
        t = self.torch
        if isinstance(v, Node):
            return {'ref': v._i}
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int):
            if abs(v) > 2 ** 53:
                raise Untranslatable('an integer beyond 2^53')
            return v
        if isinstance(v, float):
            return {'f': v if math.isfinite(v) else ('NaN' if v != v else ('Infinity' if v > 0 else '-Infinity'))}
        if isinstance(v, (list, tuple)):
            return [self.enc(x) for x in v]
        if isinstance(v, t.dtype):
            if v.is_complex:
                raise Untranslatable('complex dtypes')
            return {'dtype': str(v)[6:]}
        if isinstance(v, str):
            return v
        raise Untranslatable('an argument of type %s' % type(v).__name__)

    def unwrap(self, v):
        if isinstance(v, Node):
            return v._v
        if isinstance(v, list):
            return [self.unwrap(x) for x in v]
        if isinstance(v, tuple):
            return tuple(self.unwrap(x) for x in v)
        return v

    def wrap(self, value, idx):
        t = self.torch
        if isinstance(value, t.Tensor):
            return Node(self, idx, value)
        if isinstance(value, (tuple, list)) and all(isinstance(x, t.Tensor) for x in value):
            nodes = []
            for k, x in enumerate(value):
                j = self.add({'op': 'index', 'of': idx, 'i': k}, x)
                nodes.append(Node(self, j, x))
            return type(value)(nodes) if type(value) in (tuple, list) else tuple(nodes)
        if isinstance(value, (bool, int, float)):
            boxed = Scalar(value) if not isinstance(value, bool) else value
            if not isinstance(value, bool):
                self.by_id[id(boxed)] = idx
                self.keep.append(boxed)
                return boxed
            return value
        if value is None:
            return None
        if isinstance(value, t.dtype):
            self.by_id[id(value)] = idx
            return value
        raise Untranslatable('a result of type %s' % type(value).__name__)

    def call(self, step, fn, args, kwargs):
        s = dict(step)
        s['args'] = [self.enc(a) for a in args]
        s['kw'] = {camel(k): self.enc(v) for k, v in kwargs.items()}
        idx = self.add(s, None)
        try:
            value = fn(*self.unwrap(list(args)), **{k: self.unwrap(v) for k, v in kwargs.items()})
        except Exception:
            s['raises'] = True
            raise
        return self.wrap(value, idx)


class Scalar(float):
    """A Python number that came out of a recorded step (item()): arithmetic on it is Python's, not the JS API's."""

    def __new__(cls, v):
        o = float.__new__(cls, v)
        o.orig = v
        return o

    def _no(self, *a):
        raise Untranslatable('Python arithmetic on a value read from a tensor')

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __bool__ = _no
    __lt__ = __le__ = __gt__ = __ge__ = __int__ = __index__ = __neg__ = __abs__ = __pow__ = __rpow__ = _no
    __round__ = __floor__ = __ceil__ = __float__ = __format__ = _no


class MetaInt(int):
    """An int read from a tensor's metadata (numel(), size(d), ...): the JS run checks it, then Python uses it."""


class Node:
    """A tensor made through the JS API (step _i), backed while recording by torch's tensor _v."""
    __slots__ = ('_r', '_i', '_v')

    def __init__(self, r, i, v):
        object.__setattr__(self, '_r', r)
        object.__setattr__(self, '_i', i)
        object.__setattr__(self, '_v', v)

    def __getattr__(self, name):
        r, v = self._r, self._v
        if name in META:
            val = getattr(v, name)
            enc = list(val) if name == 'shape' else (str(val)[6:] if name == 'dtype' else val)
            idx = r.add({'op': 'meta', 'of': self._i, 'name': name, 'expect': enc}, None)
            if name == 'dtype':
                r.by_id[id(val)] = idx
            return val
        if name in META_METHODS:
            def meta(*args):
                if any(isinstance(a, Node) for a in args):
                    raise Untranslatable('a tensor passed to Tensor.%s' % name)
                val = getattr(v, name)(*args)
                enc = list(val) if isinstance(val, tuple) or type(val).__name__ == 'Size' else val
                idx = r.add({'op': 'metacall', 'of': self._i, 'name': camel(name), 'args': list(args), 'expect': enc}, None)
                if isinstance(val, int) and not isinstance(val, bool):
                    boxed = MetaInt(val)
                    r.by_id[id(boxed)] = idx
                    r.keep.append(boxed)
                    return boxed
                return val
            return meta
        if name == 'grad':
            idx = r.add({'op': 'attr', 'of': self._i, 'name': 'grad'}, None)
            return r.wrap(v.grad, idx)
        if name == 'grad_fn':
            raise Untranslatable('grad_fn objects')
        if name in METHODS or name in CORE_METHODS:
            if name in ('tolist', 'numpy', 'data_ptr'):
                raise Untranslatable('tolist() inside a case')

            def method(*args, **kwargs):
                return r.call({'op': 'method', 'of': self._i, 'name': camel(name)}, getattr(v, name), args, kwargs)
            return method
        raise Untranslatable('Tensor.%s' % name)

    def __setattr__(self, name, value):
        raise Untranslatable('setting Tensor.%s' % name)

    def _bin(name):
        def f(self, other):
            return self._r.call({'op': 'method', 'of': self._i, 'name': camel(BINOPS[name])},
                                getattr(self._v, name), (other,), {})
        return f

    for _n in BINOPS:
        locals()[_n] = _bin(_n)

    def _un(name):
        def f(self):
            return self._r.call({'op': 'method', 'of': self._i, 'name': camel(UNOPS[name])}, getattr(self._v, name), (), {})
        return f

    for _n in UNOPS:
        locals()[_n] = _un(_n)

    def __rsub__(self, other):
        return self._r.call({'op': 'fn', 'name': 'rsub'}, self._r.torch.rsub, (self, other), {})

    def __repr__(self):
        s = repr(self._v)
        idx = self._r.add({'op': 'repr', 'of': self._i}, None)
        s = type('ReprStr', (str,), {})(s)
        self._r.by_id[id(s)] = idx
        self._r.keep.append(s)
        return s

    __str__ = __repr__
    __hash__ = object.__hash__

    def __bool__(self):
        raise Untranslatable('bool() of a tensor')

    def __len__(self):
        raise Untranslatable('len() of a tensor')

    def __iter__(self):
        raise Untranslatable('iterating a tensor')

    def _items(self, k):
        tup = isinstance(k, tuple)
        items = []
        for it in (k if tup else (k,)):
            if isinstance(it, Node):
                items.append({'ref': it._i})
            elif it is None:
                items.append({'none': 1})
            elif it is Ellipsis:
                items.append({'ellipsis': 1})
            elif isinstance(it, bool):
                items.append({'bool': it})
            elif isinstance(it, int):
                items.append({'i': int(it)})
            elif isinstance(it, slice):
                parts = [it.start, it.stop, it.step]
                if not all(x is None or (isinstance(x, int) and not isinstance(x, bool) and abs(x) < 2 ** 53) for x in parts):
                    raise Untranslatable('a slice of non-integers')
                items.append({'slice': [None if x is None else int(x) for x in parts]})
            elif isinstance(it, list) and all(isinstance(x, (int, bool)) for x in _flat(it)) and it:
                items.append({'list': _plain(it)})
            else:
                raise Untranslatable('an index of type %s' % type(it).__name__)
        return items, tup

    def __getitem__(self, k):
        items, tup = self._items(k)
        return self._r.call({'op': 'getitem', 'of': self._i, 'items': items, 'tuple': tup},
                            lambda: self._v[self._r.unwrap(k) if not isinstance(k, Node) else k._v], (), {})

    def __setitem__(self, k, v):
        items, tup = self._items(k)
        r = self._r

        def do(value):
            self._v[r.unwrap(k) if not isinstance(k, Node) else k._v] = value
        r.call({'op': 'setitem', 'of': self._i, 'items': items, 'tuple': tup}, do, (v,), {})

    def __float__(self):
        raise Untranslatable('float() of a tensor')

    __int__ = __index__ = __float__


class Namespace:
    def __init__(self, r, prefix, names):
        self._r, self._prefix, self._names = r, prefix, names

    def __getattr__(self, name):
        if name not in self._names:
            raise Untranslatable('torch.%s.%s' % (self._prefix, name))
        fn = getattr(getattr(self._r.torch, self._prefix), name)
        return lambda *a, **k: self._r.call({'op': 'fn', 'ns': self._prefix, 'name': camel(name)}, fn, a, k)


class TraceModule:
    """The stand-in for T: torch's names the JS API has, recorded."""
    __name__ = 'torch'

    def __init__(self, r):
        self._r = r
        self.Tensor = Node
        self.linalg = Namespace(r, 'linalg', LINALG)

    def __getattr__(self, name):
        r, torch = self._r, self._r.torch
        v = getattr(torch, name, None)
        if isinstance(v, torch.dtype):
            return v
        if name == 'tensor':
            def tensor(data, dtype=None, requires_grad=False):
                if any(isinstance(x, Node) for x in _flat(data)):
                    raise Untranslatable('tensors inside torch.tensor data')
                val = torch.tensor(data, dtype=dtype)
                kw = {'dtype': val.dtype}
                if requires_grad:
                    kw['requires_grad'] = True
                node = r.call({'op': 'fn', 'name': 'tensor'}, torch.tensor, (data,), kw)
                r.steps[node._i]['args'] = [_plain(data)]  # the dtype is explicit: elements as plain numbers
                return node
            return tensor
        if name == 'einsum':  # torch.einsum(eq, *operands): the JS API takes einsum(eq, [operands])
            def einsum(eq, *ops, **k):
                ops = list(ops[0]) if len(ops) == 1 and isinstance(ops[0], (list, tuple)) else list(ops)
                return r.call({'op': 'fn', 'name': 'einsum'}, lambda e, o, **kk: torch.einsum(e, *o, **kk), (eq, ops), k)
            return einsum
        if name == 'manual_seed':
            def manual_seed(s):
                # beyond 2^53 as a decimal string (manualSeed takes it as a BigInt)
                r.add({'op': 'fn', 'name': 'manualSeed', 'args': [s if abs(s) <= 2 ** 53 else str(s)], 'kw': {}}, None)
                torch.manual_seed(s)
            return manual_seed
        if name in FUNCS:
            return lambda *a, **k: r.call({'op': 'fn', 'name': camel(name)}, v, a, k)
        raise Untranslatable('torch.%s' % name)


def _plain(x):
    if isinstance(x, (list, tuple)):
        return [_plain(y) for y in x]
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, int):
        if abs(x) > 2 ** 53:
            raise Untranslatable('an integer beyond 2^53')
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else ('NaN' if x != x else ('Infinity' if x > 0 else '-Infinity'))
    raise Untranslatable('torch.tensor data of type %s' % type(x).__name__)


def _flat(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flat(y)
    else:
        yield x


def encode_output(r, v, torch):
    """The case's value as a tree whose leaves refer to the steps that made them."""
    if isinstance(v, Node):
        return {'ref': v._i}
    if id(v) in r.by_id:
        return {'ref': r.by_id[id(v)], 'as': 'dtype'} if isinstance(v, torch.dtype) else {'ref': r.by_id[id(v)]}
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise Untranslatable('a dict with non-string keys in the result')
        return {'dict': [[{'str': k}, encode_output(r, x, torch)] for k, x in v.items()]}
    if isinstance(v, (list, tuple)):
        return {'seq': [encode_output(r, x, torch) for x in v]}
    if v is None:
        return {'none': True}
    raise Untranslatable('a %s computed in Python in the result' % type(v).__name__)


def port_file(name, torch, harness):
    mod_name = 'tests.parity.' + name
    before = set(harness._BY_MODULE.get(mod_name, []) if isinstance(harness._BY_MODULE.get(mod_name), list) else [])
    mod = importlib.import_module(mod_name)
    cases = harness._BY_MODULE.get(mod_name) or harness._BY_MODULE.get(name) or []
    del before, mod
    golden = json.load(open(os.path.join(ROOT, 'tests', 'parity', 'golden', name + '.json')))['cases']
    ported, skipped = {}, {}
    for c in (cases.values() if isinstance(cases, dict) else cases):
        if c.name not in golden:
            continue
        if c.skip:
            skipped[c.name] = 'skipped in the suite: ' + c.skip
            continue
        if c.cpu_dependent:
            skipped[c.name] = 'cpu-dependent'
            continue
        r = Recorder(torch)
        T = TraceModule(r)
        torch.manual_seed(c.seed)
        raised = False
        try:
            out = c.execute(T)
        except Untranslatable as e:
            skipped[c.name] = str(e)
            continue
        except Exception as e:  # noqa: BLE001 -- torch raised: an error case, the raising step is marked
            if not (r.steps and r.steps[-1].get('raises')):
                skipped[c.name] = 'raised outside a recorded step: %s' % type(e).__name__
                continue
            raised = True
        if not raised and any(st.get('raises') for st in r.steps):
            skipped[c.name] = 'Python catches a torch exception and returns its text'
            continue
        try:
            spec = {'raises': True} if raised else encode_output(r, out, torch)
        except Untranslatable as e:
            skipped[c.name] = str(e)
            continue
        if c.kind == 'print' and not raised:
            spec = {'print': spec}
        ported[c.name] = {'kind': c.kind, 'seed': c.seed, 'steps': r.steps, 'out': spec,
                          'rtol': c.rtol, 'atol': c.atol, 'match': c.match}
    return ported, skipped


def main(files):
    import torch
    from tests.parity import harness
    harness.SIDE = 'ref'
    result = {'format': 'wick-js-port/1', 'torch': torch.__version__, 'files': {}}
    total = ported_n = 0
    for f in files:
        ported, skipped = port_file(f, torch, harness)
        result['files'][f] = {'ported': ported, 'not_ported': skipped}
        total += len(ported) + len(skipped)
        ported_n += len(ported)
        print('%-28s %5d ported, %5d not (need a front the JS API lacks)' % (f, len(ported), len(skipped)))
    import gzip
    with gzip.GzipFile(OUT, 'wb', compresslevel=9, mtime=0) as fh:  # mtime 0: the same cases give the same bytes
        fh.write(json.dumps(result, separators=(',', ':'), sort_keys=True).encode() + b'\n')
    print('%d of %d cases ported -> %s' % (ported_n, total, OUT))


if __name__ == '__main__':
    main(sys.argv[1:] or [f for f in SLICE if os.path.exists(os.path.join(ROOT, 'tests', 'parity', f + '.py'))])

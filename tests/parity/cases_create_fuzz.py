"""Random creation / conversion / Python-scalar expressions (fixed seeds), drawn by the differential fuzzer of
/tmp/fz-create: torch.tensor from nested lists (numpy scalars, ragged, empty), set_default_dtype, arange / range,
full / zeros / ones / empty (sizes in every spelling), *_like / new_*, eye, tril / triu_indices, cartesian_prod,
.to / .type / casts, item / tolist / int / float / bool / __index__, Python operators with scalars on either side,
in-place ops (dtype checks first), result_type / promote_types / can_cast, finfo / iinfo, dtype attributes and
torch.Size -- each drawn with valid and invalid arguments; the value (strides too) or torch's error must agree.
Left out of the draws: Python ints beyond int64 (torch takes 2**63..2**64-1 as uint64 scalars), meshgrid (its
error prints a tensor as C++ does), pow of an empty tensor by 1e308."""
import random

import numpy as np

from .harness import *  # noqa: F401,F403

DT = ['bool','uint8','int8','int16','int32','int64','float16','bfloat16','float32','float64']
def dt(r): return 'T.' + r.choice(DT)
def scal(r):
    return r.choice(['0','1','-1','2','3','-3','7','2.5','-0.5','0.0','-0.0','True','False',"float('nan')","float('inf')","-float('inf')",
                     '1e10','-1e10','300','-129','2**31','2**63-1','-2**63','65504.0','70000.0','0.1'])
def elem(r):
    return r.choice(['0','1','-1','2','3','2.5','-0.5','True','False',"float('nan')",'1e20','2**40','-7','0.1','np.int64(3)','np.float32(1.5)','np.bool_(True)','np.float64(2.5)','np.int32(-4)','np.uint8(200)','np.float16(0.5)'])
def data(r, depth=0):
    c = r.random()
    if depth > 0 and c < 0.3: return elem(r)
    if depth >= 3: return elem(r)
    n = r.choice([0,1,2,3])
    ragged = r.random() < 0.08
    sub = data(r, depth+1) if r.random() < 0.5 else None
    items = []
    for i in range(n):
        if sub is not None and not ragged: items.append(sub)
        else: items.append(data(r, depth+1) if (sub is None or ragged) else sub)
    br = '[]' if r.random() < 0.8 else '()'
    s = br[0] + ', '.join(items) + (',' if br == '()' and n == 1 else '') + br[1]
    return s
def shape(r):
    return r.choice([[], [0], [1], [3], [2,3], [2,0], [1,1,1], [3,1,2], [2,2,2]])
def tens(r, d=None):
    sh = shape(r); d = d or dt(r)
    n = 1
    for s in sh: n *= s
    base = r.choice(['T.arange(%d, dtype=T.float64) - %d' % (n, n//2), 'T.tensor([%s]*%d, dtype=T.float64)[:%d]' % (','.join(r.choice(['0.5','-1.5','2.7','-0.0','1e10',"float('nan')","float('inf')",'300.9','-129.5','65504.0','3']) for _ in range(4)), max(1,(n+3)//4), n)])
    e = '(%s).reshape(%s).to(%s)' % (base, sh, d)
    if len(sh) >= 2 and r.random() < 0.3: e += '.transpose(0, 1)'
    return e

G = {}
def g(f): G[f.__name__] = f; return f

@g
def tensor_(r):
    kw = []
    if r.random() < 0.4: kw.append('dtype=' + (dt(r) if r.random() < .85 else r.choice(['int','float','bool','None'])))
    if r.random() < 0.2: kw.append('requires_grad=True')
    d = data(r) if r.random() < 0.85 else scal(r)
    return 'T.tensor(%s%s)' % (d, ''.join(', ' + k for k in kw))
@g
def tensor_default(r):
    return '(T.set_default_dtype(%s), T.tensor(%s), T.get_default_dtype())' % (r.choice(['T.float64','T.float16','T.bfloat16','T.float32','T.int64','T.int32']), data(r))
@g
def arange_(r):
    n = r.choice([1,2,3])
    args = [r.choice(['0','1','5','-3','2.5','0.1','-1.5','10','3.3','0','T.tensor(3)','T.tensor(2.5)','1e20',"float('nan')","float('inf')",'True','2**62']) for _ in range(n)]
    if n == 3 and r.random() < .5: args[2] = r.choice(['0','-1','0.25','-0.3','1e-9','0.0','-2'])
    if r.random() < .4: args.append('dtype=' + dt(r))
    fn = r.choice(['arange','arange','range'])
    if fn == 'range' and n == 3 and any(('int' in a or 'bool' in a) for a in args[3:]) and args[2] in ('0.1','-1.5','2.5','3.3','0.25','-0.3','1e-9','T.tensor(2.5)'):
        args[2] = '1'  # torch.range with an integer dtype divides by the truncated step: SIGFPE in torch
    return 'T.%s(%s)' % (fn, ', '.join(args))
@g
def linspace_(r):
    a = r.choice(['0','1','-2.5','10','3','T.tensor(1.5)','True','-1'])
    b = r.choice(['0','1','5','-2','10.5','100','T.tensor(4)'])
    s = r.choice(['0','1','2','5','7','-1','2.5','None','T.tensor(3)'])
    fn = r.choice(['linspace','logspace'])
    extra = ''
    base = ', base=' + r.choice(['2','2.0','0.5','-2','0']) if fn == 'logspace' and r.random() < .4 else ''
    if r.random() < .5: extra += ', dtype=' + dt(r)
    extra += base  # (torch's 'got (...)' lists dtype= before base= whatever the call's order; wick's follows the call)
    return 'T.%s(%s, %s, %s%s)' % (fn, a, b, s, extra)
@g
def full_(r):
    szs = r.choice(['2, 3','(2, 3)','[2, 3]','T.Size([2, 3])','()','[]','0','-1','(2, -1)','3','(3,)','[0, 2]','2.5','(2.0,)','T.tensor(3)','(T.tensor(2), 2)','None','"a"'])
    fn = r.choice(['full','zeros','ones','empty','full'])
    if fn == 'full':
        if szs.startswith('(') or szs.startswith('[') or szs.startswith('T.Size'):
            a = szs
        else:
            a = '(%s,)' % szs if szs not in ('()', '[]') else szs
        e = 'T.full(%s, %s' % (a, scal(r))
    else:
        e = 'T.%s(%s' % (fn, szs)
    if r.random() < .5: e += ', dtype=' + dt(r)
    if r.random() < .15: e += ', requires_grad=True'
    e += ')'
    if fn == 'empty': e = '(lambda z: (z.shape, z.dtype, z.stride()))(%s)' % e
    return e
@g
def like_(r):
    x = tens(r)
    fn = r.choice(['zeros_like','ones_like','full_like','empty_like','rand_like_','new_zeros','new_ones','new_full','new_empty','new_tensor'])
    if fn == 'full_like': e = 'T.full_like(%s, %s' % (x, scal(r))
    elif fn == 'rand_like_': e = 'T.zeros_like(%s' % x
    elif fn == 'new_full': e = '(%s).new_full(%s, %s' % (x, r.choice(['(2,)','[2, 1]','()','3','(-1,)']), scal(r))
    elif fn == 'new_tensor': e = '(%s).new_tensor(%s' % (x, data(r))
    elif fn.startswith('new_'): e = '(%s).%s(%s' % (x, fn, r.choice(['(2,)','2, 3','[2, 1]','()','3','(-1,)','[]']))
    else: e = 'T.%s(%s' % (fn, x)
    if r.random() < .4: e += ', dtype=' + dt(r)
    e += ')'
    if 'empty' in fn: e = '(lambda z: (z.shape, z.dtype, z.stride()))(%s)' % e
    return e
@g
def eye_(r):
    a = [r.choice(['0','1','3','-1','2.5','None','T.tensor(2)'])]
    if r.random() < .5: a.append(r.choice(['0','2','4','-2']))
    if r.random() < .4: a.append('dtype=' + dt(r))
    return 'T.eye(%s)' % ', '.join(a)
@g
def tri_idx(r):
    fn = r.choice(['tril_indices','triu_indices'])
    a = [r.choice(['0','1','3','4','-1']), r.choice(['0','1','3','5','-2'])]
    if r.random() < .6: a.append(r.choice(['0','1','-1','2','-3','10','-10']))
    if r.random() < .3: a.append('dtype=' + r.choice(['T.int32','T.int64','T.float32','T.int16','T.bool']))
    return 'T.%s(%s)' % (fn, ', '.join(a))
@g
def meshgrid_(r):
    n = r.choice([0,1,2,3])
    ts = [r.choice(['T.tensor([1, 2, 3])','T.tensor([1.5, 2.5])','T.tensor(4)','T.tensor([])','T.tensor([[1, 2]])','T.tensor([True])']) for _ in range(n)]
    kw = ''
    if r.random() < .6: kw = ', indexing=' + r.choice(['"ij"','"xy"','"foo"','None'])
    if r.random() < .3:
        return 'T.meshgrid([%s]%s)' % (', '.join(ts), kw)
    if n == 0: return 'T.meshgrid(%s)' % kw[2:]
    return 'T.meshgrid(%s%s)' % (', '.join(ts), kw)
@g
def cartesian(r):
    n = r.choice([0,1,2,3])
    ts = [r.choice(['T.tensor([1, 2, 3])','T.tensor([1.5, 2.5])','T.tensor(4)','T.tensor([])','T.tensor([[1, 2]])','T.tensor([True, False])','T.tensor([1, 2], dtype=T.int8)']) for _ in range(n)]
    return 'T.cartesian_prod(%s)' % ', '.join(ts)
@g
def convert(r):
    x = tens(r)
    m = r.choice(['to','type','float','double','half','bfloat16','long','int','short','char','byte','bool','to_kw','type_str'])
    if m == 'to': return '(%s).to(%s)' % (x, dt(r))
    if m == 'to_kw': return '(%s).to(dtype=%s, copy=%s)' % (x, dt(r), r.choice(['True','False']))
    if m == 'type': return '(%s).type(%s)' % (x, dt(r))
    if m == 'type_str': return '(%s).type(%s)' % (x, r.choice(['"torch.FloatTensor"','"torch.LongTensor"','"torch.BoolTensor"','"torch.HalfTensor"','"torch.Foo"','"float"','"torch.float32"']))
    return '(%s).%s()' % (x, m)
@g
def scalar_conv(r):
    x = tens(r)
    m = r.choice(['item','tolist','int','float','bool','index','len','range','hex'])
    if m in ('item','tolist'): return '(%s).%s()' % (x, m)
    if m == 'index': return '[10, 20, 30, 40][%s]' % x
    if m == 'range': return 'list(range(%s))' % x
    if m == 'hex': return 'hex(%s)' % x
    if m == 'complex': return 'complex(%s)' % x
    return '%s(%s)' % (m, x)
OPS = ['+','-','*','/','//','%','**','&','|','^','<<','>>','==','!=','<','<=','>','>=']
@g
def pyops(r):
    x = tens(r)
    op = r.choice(OPS)
    s = scal(r) if r.random() < .8 else tens(r)
    if r.random() < .5: return '(%s) %s (%s)' % (x, op, s)
    return '(%s) %s (%s)' % (s, op, x)
@g
def unops(r):
    x = tens(r)
    op = r.choice(['-','~','+','abs','not'])
    if op == 'abs': return 'abs(%s)' % x
    if op == 'not': return 'not (%s)' % x
    return '%s(%s)' % (op, x)
@g
def inplace(r):
    x = tens(r)
    op = r.choice(['+=','-=','*=','/=','//=','%=','**=','&=','|=','^=','<<=','>>='])
    s = scal(r) if r.random() < .7 else tens(r)
    return '(lambda x: (exec("x %s (%s)", {"T": T, "x": x, "np": np}), x)[1])(%s)' % (op, s.replace('"', "'"), x) if False else \
        '(lambda x: [x.__%s__(%s), x][1])(%s)' % ({'+=':'iadd','-=':'isub','*=':'imul','/=':'itruediv','//=':'ifloordiv','%=':'imod','**=':'ipow','&=':'iand','|=':'ior','^=':'ixor','<<=':'ilshift','>>=':'irshift'}[op], s, x)
@g
def inplace_m(r):
    x = tens(r)
    m = r.choice(['add_','sub_','mul_','div_','floor_divide_','remainder_','pow_','fill_','copy_','zero_','neg_','abs_','exp_','floor_','round_','sigmoid_','bitwise_not_','logical_not_','lerp_'])
    if m in ('zero_','neg_','abs_','exp_','floor_','round_','sigmoid_','bitwise_not_','logical_not_'): return '(lambda x: [x.%s(), x][1])(%s)' % (m, x)
    if m == 'clamp_': return '(lambda x: [x.clamp_(%s, %s), x][1])(%s)' % (scal(r), scal(r), x)
    if m == 'copy_': return '(lambda x: [x.copy_(%s), x][1])(%s)' % (tens(r), x)
    if m == 'lerp_': return '(lambda x: [x.lerp_(%s, %s), x][1])(%s)' % (tens(r), scal(r), x)
    if m == 'div_' and r.random() < .4: return '(lambda x: [x.div_(%s, rounding_mode=%s), x][1])(%s)' % (scal(r), r.choice(['"floor"','"trunc"','None']), x)
    return '(lambda x: [x.%s(%s), x][1])(%s)' % (m, scal(r) if r.random() < .7 else tens(r), x)
@g
def promo(r):
    def arg():
        c = r.random()
        if c < .4: return tens(r)
        if c < .7: return scal(r)
        return dt(r)
    fn = r.choice(['result_type','promote_types','can_cast'])
    if fn == 'result_type': return 'T.result_type(%s, %s)' % (tens(r) if r.random() < .5 else scal(r), tens(r) if r.random() < .5 else scal(r))
    return 'T.%s(%s, %s)' % (fn, dt(r) if r.random() < .9 else arg(), dt(r) if r.random() < .9 else arg())
@g
def info(r):
    d = dt(r)
    fn = r.choice(['finfo','iinfo'])
    a = r.choice(['bits','eps','max','min','tiny','smallest_normal','resolution','dtype','__repr__()','__str__()','is_floating_point','itemsize'])
    if a in ('is_floating_point','itemsize'): return '%s.%s' % (d, a)
    if r.random() < .1: return 'T.%s()' % fn
    return 'T.%s(%s).%s' % (fn, d, a)
@g
def dtype_attr(r):
    d = dt(r)
    return r.choice(['%s.is_floating_point','%s.is_signed','%s.itemsize','repr(%s)','str(%s)','%s.is_complex','%s.to_real()','hash(%%s) == hash(%s)' % 'T.float32']) % d
@g
def size_(r):
    s = 'T.Size(%s)' % r.choice(['[2, 3, 4]','()','[0]','[1, 2, 2]','(5,)'])
    m = r.choice(['numel()','index(2)','index(7)','count(2)','[1:]','[::-1]','[0]','[-1]','[5]','+ (1, 2)','+ [1]','* 2','* 0','__repr__()','__str__()','== (2, 3, 4)','__add__(T.Size([1]))','(1,) + %s','2 * %s','type(%s.__add__((1,))).__name__','type(%s[1:]).__name__','type(%s * 2).__name__','hash(%s) == hash(tuple(%s))','index(2, 1)','index(2, 0, 1)','__reduce__()[1]','numel() + 0'])
    if '%s' in m: return m.replace('%s', s)
    return s + ('.' if not m[0] in '[+*=_' else ' ' if m[0] in '+*=' else '') + m if not m.startswith('__') else s + '.' + m
@g
def size_ctor(r):
    return 'T.Size(%s)' % r.choice(['[2.5]','[-1]','[T.tensor(2)]','["a"]','None','3','[True]','(1, 2)','[T.tensor([1, 2])]','[2**70]'])



_GROUPS = sorted(n for n in G if n != "meshgrid_")


def _expr(seed):
    r = random.Random(seed)
    name = r.choice(_GROUPS)
    return name, G[name](r)


def _create(T, seed):
    name, e = _expr(seed)
    try:
        v = eval("lambda T: " + e, {"np": np})(T)
        if isinstance(v, type):  # type(size * 2) and such: its name
            return name, v.__name__
        if isinstance(v, (T.finfo, T.iinfo)):
            return name, repr(v)
        return name, v
    except (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError, AttributeError, OverflowError) as ex:
        return name, type(ex).__name__, str(ex).split("\nException raised from")[0]


cases("create", _create, seed=list(range(500)))

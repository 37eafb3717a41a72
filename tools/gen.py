#!/usr/bin/env python3
"""gen.py — the op table compiler.

Reads every ops/<name>.def file (the single source of truth for ops; format in ops/README.md) and writes, into an
output directory (build/gen by default):

  wick_ops.h    public C prototypes: wk_<op>, wk_<op>_ (in-place), wk_<op>_out (out=)
  ops_impl.h    internal prototypes of the hand-written implementations: wk_impl_<op>; the op ids (WK_OP_<impl>)
                and each kernel's type (wk_impl_<impl>_fn) of the device table (Note [Device table])
  ops.c         the dispatch wrappers: argument checks, the kernel taken from the tensors' device, autograd
                recording, in-place/out= handling, and one backward node type per differentiable op, with its
                derivative formulas; the CPU device's kernel table (wk__cpu_kernels)
  py_ops.c      the CPython bindings: signatures for the runtime argument parser and the method/function tables
  wick_ops.pyi  type stubs
  ops.json      the signatures as data (Note [ops.json]): what another door (a Pyodide _C, a JS API) is generated
                from; the CPython bindings in py_ops.c come from the same model (py_bindings)
  ops.md        the support table

Nothing this program writes is edited by hand.
"""
import copy
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---------------------------------------------------------------------------------------------------------------
# schema parsing


ENUM_DEFAULTS = {'Mean': '0'}  # Note [Enum defaults]


class Param:
    def __init__(self, typ, name, default, kwonly):
        self.raw_type = typ
        self.mutable = '!' in typ
        typ = re.sub(r'\([a-z!]+(?:\s*->\s*\*)?\)', '', typ)  # Tensor(a!) -> Tensor, Tensor(a -> *) -> Tensor
        typ = typ.replace('SymInt', 'int')
        m = re.match(r'^(\w+)(\[(\d*)\])?(\?)?(\[\])?$', typ)
        if not m:
            raise ValueError('bad type %r' % typ)
        base, lst, n, opt, optlist = m.groups()
        self.base = base
        self.is_list = bool(lst) or bool(optlist)
        self.list_size = int(n) if n else 0
        self.optional = bool(opt) and not optlist
        self.elem_optional = bool(opt) and bool(optlist)  # Tensor?[]
        if optlist:  # Tensor?[]
            self.type = base + '?[]'
        elif lst:
            self.type = base + '[]' + ('?' if opt else '')
        else:
            self.type = base + ('?' if opt else '')
        self.name = name
        # Note [Enum defaults]: torch's native_functions.yaml writes `int reduction=Mean`; its Python binding reads an
        # int default that is not a number as 0 (so torch.kl_div(a, b) and torch._C._nn.mse_loss(a, b) do not reduce:
        # reduction 0 is 'none'), while the JIT schema says 1. The table keeps torch's spelling; Python gets torch's 0.
        self.schema_default = default
        self.default = ENUM_DEFAULTS.get(default, default) if self.base == 'int' else default
        self.kwonly = kwonly

    @property
    def is_tensor(self):
        return self.base == 'Tensor' and not self.is_list

    @property
    def pyonly(self):
        return self.base in ('Device', 'Layout', 'MemoryFormat') or self.name == 'pin_memory'


class Ret:
    def __init__(self, typ, name):
        self.type = typ
        self.name = name


def split_top(s, sep=','):
    parts, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def parse_schema(text):
    m = re.match(r'^([\w]+)(?:\.(\w+))?\((.*)\)\s*->\s*(.*)$', text.strip())
    if not m:
        raise ValueError('bad schema: %s' % text)
    name, overload, params, ret = m.groups()
    out, kwonly = [], False
    for p in split_top(params):
        if p == '*':
            kwonly = True
            continue
        dm = re.match(r'^(.+?)\s+(\w+)(?:\s*=\s*(.+))?$', p)
        if not dm:
            raise ValueError('bad param %r in %s' % (p, text))
        out.append(Param(dm.group(1), dm.group(2), dm.group(3), kwonly))
    ret = ret.strip()
    rets = []
    if ret.startswith('('):
        for r in split_top(ret[1:-1]):
            bits = r.split()
            rets.append(Ret(re.sub(r'\([a-z!]+\)', '', bits[0]), bits[1] if len(bits) > 1 else None))
    elif ret:
        bits = ret.split()
        rets.append(Ret(re.sub(r'\([a-z!]+\)', '', bits[0]), bits[1] if len(bits) > 1 else None))
    return name, overload or '', out, rets


# ---------------------------------------------------------------------------------------------------------------
# the op table


class Op:
    def __init__(self, schema, fields, where):
        self.schema = schema
        self.where = where
        self.name, self.overload, self.params, self.rets = parse_schema(schema)
        self.fields = fields
        self.cname = fields.get('c', self.name + ('_' + self.overload if self.overload else ''))
        self.python = fields.get('python', self.name).split()
        v = fields.get('variants', 'function').split()
        self.variants = set(v)
        self.view = fields.get('view', '') == 'true'
        self.autograd = fields.get('autograd', 'auto')  # auto | none | manual
        self.wrap_numbers = fields.get('wrap_numbers', '') == 'true'
        self.nondiff = set(fields.get('nondiff', '').split())
        # `nondiff_outputs: P`: named results that never carry a gradient (torch's output_differentiability)
        self.nondiff_outputs = set(fields.get('nondiff_outputs', '').split())
        self.formulas = {k: v for k, v in fields.items() if k in {p.name for p in self.params}}
        # `inplace_<arg>: formula`: the in-place variant's own derivative (torch's elu_ differentiates through its
        # result, elu through self); the in-place node is then a type of its own (Note [In-place formulas])
        self.inplace_formulas = {k[8:]: v for k, v in fields.items()
                                 if k.startswith('inplace_') and k[8:] in {p.name for p in self.params}}
        self.multi_formula = fields.get('grads')  # one formula returning a tensor list for a Tensor[] input
        self.node_name = fields.get('node', self._default_node_name())
        # Note [jvp formulas] (ops/README.md): `jvp:` element_wise | linear | none | refuse | a C expression
        base = os.path.basename(where.split(':')[0])
        self.jvp = fields.get('jvp') or ('element_wise' if base in ELEMENTWISE_FILES else
                                         'refuse' if base == 'random.def' else None)
        self.doc = fields.get('doc', '')
        self.dtypes = fields.get('dtypes', '')
        self.impl = fields.get('impl', self.cname)
        self.mutates_self = fields.get('mutates', '') == 'self'  # Note [Ops that write into self]
        self.out_impl = fields.get('out_impl', '') == 'true'     # out= is written by wk_impl_<impl>_out
        self.out_check = fields.get('out_check', '')  # int <fn>(const wk_tensor *out, const wk_tensor *result): out='s dtype rule
        for k in self.formulas:
            p = self.param(k)
            if not (p.is_tensor or p.type in ('Tensor?', 'Tensor[]')):
                raise ValueError('%s: derivative given for non-tensor %s' % (where, k))

    def _default_node_name(self):
        base = ''.join(w[:1].upper() + w[1:] for w in self.name.strip('_').split('_'))
        return base + 'Backward0'

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def cparams(self):
        return [p for p in self.params if not p.pyonly]

    @property
    def tensor_rets(self):
        return [r for r in self.rets if r.type == 'Tensor']

    @property
    def ret_kind(self):
        if len(self.rets) == 0:
            return 'none'
        if len(self.rets) == 1:
            t = self.rets[0].type
            return {'Tensor': 'tensor', 'Tensor[]': 'tensorlist', 'Scalar': 'scalar', 'bool': 'bool',
                    'int': 'int', 'float': 'float', 'ScalarType': 'dtype'}[t]
        assert all(r.type == 'Tensor' for r in self.rets), self.schema
        return 'tuple'

    @property
    def differentiable(self):
        return self.autograd == 'auto' and (self.formulas or self.multi_formula)


# files whose differentiable ops are elementwise: their backward formulas, with the input's tangent for grad, are
# their jvp formulas (torch's auto_element_wise); an op there that is not elementwise says `jvp:` itself
ELEMENTWISE_FILES = {'unary.def', 'pointwise.def', 'nn_act.def'}


def read_table(paths):
    ops = []
    for path in paths:
        cur, fields, lineno = None, {}, 0
        with open(path) as f:
            lines = f.read().split('\n')
        for i, line in enumerate(lines + ['']):
            s = line.split('#', 1)[0].rstrip() if not line.lstrip().startswith('#') else ''
            if '#' in line and not line.lstrip().startswith('#'):
                # keep '#' inside formulas out: comments must start with ' #'
                s = re.split(r'\s#\s', line, 1)[0].rstrip()
            if not s.strip():
                continue
            if not s[0].isspace():
                if cur:
                    ops.append(Op(cur, fields, '%s:%d' % (path, lineno)))
                cur, fields, lineno = s.strip(), {}, i + 1
            else:
                k, _, v = s.strip().partition(':')
                if k in fields:
                    raise ValueError('%s:%d duplicate key %s' % (path, i + 1, k))
                fields[k.strip()] = v.strip()
        if cur:
            ops.append(Op(cur, fields, '%s:%d' % (path, lineno)))
    seen = {}
    for op in ops:
        if op.cname in seen:
            raise ValueError('%s: C name %s already used at %s' % (op.where, op.cname, seen[op.cname]))
        seen[op.cname] = op.where
    return ops


# ---------------------------------------------------------------------------------------------------------------
# C types

CTYPE = {
    'Tensor': 'wk_tensor *', 'Tensor?': 'wk_tensor *', 'Tensor[]': 'wk_tensorlist', 'Tensor?[]': 'wk_opttensorlist',
    'Scalar': 'wk_scalar', 'Scalar?': 'wk_scalar', 'int': 'int64_t', 'int?': 'wk_optint', 'int[]': 'wk_intlist',
    'int[]?': 'wk_intlist', 'float': 'double', 'float?': 'wk_optfloat', 'bool': 'bool', 'bool?': 'wk_optbool',
    'str': 'const char *', 'str?': 'const char *', 'ScalarType': 'wk_dtype', 'ScalarType?': 'wk_dtype',
    'Generator?': 'wk_generator *', 'float[]': 'wk_floatlist', 'float[]?': 'wk_floatlist',
}


def cdecl(p):
    t = CTYPE[p.type]
    return t + ('' if t.endswith('*') else ' ') + cident(p.name)


C_KEYWORDS = {'default', 'int', 'float', 'double', 'char', 'return', 'if', 'else', 'for', 'while', 'switch', 'case',
              'break', 'continue', 'struct', 'union', 'const', 'static', 'auto', 'register', 'signed', 'unsigned',
              'long', 'short', 'void', 'volatile', 'goto', 'sizeof', 'enum', 'extern', 'typedef', 'do', 'bool'}


# `n` is the generated code's node variable: a parameter of that name (polygamma's n) is renamed too
RESERVED = C_KEYWORDS | {'n'}


def cident(name):
    return (name + '_arg' if name == 'n' else name + '_') if name in RESERVED else name


def proto(op, suffix='', with_out=False):
    """C prototype for wk_<cname><suffix>."""
    args = []
    k = op.ret_kind
    if with_out:  # out=: one tensor, or (tuple results) an array of them, written in place
        args.append('wk_tensor *const *out /* [%d] */' % len(op.rets) if k == 'tuple' else 'wk_tensor *out')
    args += [cdecl(p) for p in op.cparams]
    if k == 'tensor':
        rt = 'wk_tensor *'
    elif k == 'tensorlist':
        rt = 'wk_tensorvec '
    else:
        rt = 'int '
        if k == 'tuple' and not with_out:
            args.append('wk_tensor **outs /* [%d] */' % len(op.rets))
        elif k == 'scalar':
            args.append('wk_scalar *result')
        elif k == 'bool':
            args.append('bool *result')
        elif k == 'int':
            args.append('int64_t *result')
        elif k == 'float':
            args.append('double *result')
        elif k == 'dtype':
            args.append('wk_dtype *result')
    return '%swk_%s%s(%s)' % (rt, op.cname, suffix, ', '.join(args) or 'void')


def impl_proto(op):
    s = proto(op)
    return s.replace('wk_%s(' % op.cname, 'wk_impl_%s(' % op.impl, 1)


def call_args(op, names=None):
    return ', '.join(cident(p.name) if not names else names.get(p.name, cident(p.name)) for p in op.cparams)


def fail_value(op):
    k = op.ret_kind
    if k == 'tensor':
        return 'NULL'
    if k == 'tensorlist':
        return '(wk_tensorvec){NULL, 0}'
    return '-1'


# ---------------------------------------------------------------------------------------------------------------
# derivative formulas (Note [Derivative formulas] in ops/README.md)

TOKEN = re.compile(r'[A-Za-z_]\w*|\d+\.\d*(?:e[-+]?\d+)?|\d+|->|&&|\|\||[<>=!]=|\S')


def rewrite_formula(expr, opnames, params=()):
    """Wraps every op call `f(...)` as `A(wk_f(...))` so its result joins the autorelease pool; renames the op's
    parameters that are reserved in the generated C (cident)."""
    toks = [cident(t) if t in params and t in RESERVED else t for t in TOKEN.findall(expr)]
    out, stack = [], []
    i = 0
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ''
        if re.match(r'[A-Za-z_]\w*$', t) and nxt == '(' and t in opnames and (not out or out[-1] not in ('.', '->')):
            out.append('A(wk_%s(' % t)
            stack.append(True)
            i += 2
            continue
        if t == '(':
            stack.append(False)
        elif t == ')':
            if stack and stack.pop():
                out.append('))')
                i += 1
                continue
        out.append(t)
        i += 1
    s = ''
    for t in out:  # re-join with minimal spaces
        if s and (re.match(r'\w', t[0]) and re.match(r'\w', s[-1])):
            s += ' '
        s += t
    return s


def formula_names(expr):
    return set(re.findall(r'[A-Za-z_]\w*', expr))


# ---------------------------------------------------------------------------------------------------------------
# emitters

HEADER = '/* Generated by tools/gen.py from ops/<name>.def. Do not edit. */\n'


def emit_public_header(ops):
    o = [HEADER, '#ifndef WICK_OPS_H\n#define WICK_OPS_H\n', '#ifdef __cplusplus\nextern "C" {\n#endif\n']
    o.append('typedef struct { wk_tensor **data; int64_t len; } wk_tensorvec; /* owned list; free with wk_tensorvec_free */')
    o.append('typedef struct { const double *data; int64_t len; } wk_floatlist;')
    o.append('WK_API void wk_tensorvec_free(wk_tensorvec v);\n')
    for op in ops:
        o.append('/* %s */' % op.schema)
        o.append('WK_API %s;' % proto(op))
        if 'inplace' in op.variants:
            o.append('WK_API %s;' % proto(op, '_'))
        if 'out' in op.variants:
            o.append('WK_API %s;' % proto(op, '_out', with_out=True))
    o.append('\n#ifdef __cplusplus\n}\n#endif\n#endif')
    return '\n'.join(o) + '\n'


def out_impl_proto(op):
    return proto(op, '_out', with_out=True).replace('wk_%s_out(' % op.cname, 'wk_impl_%s_out(' % op.impl, 1)


def inplace_impl_proto(op):  # writes into self directly: int wk_impl_<name>(<the op's C args>)
    return 'int wk_impl_%s(%s)' % (op.fields['inplace_impl'], ', '.join(cdecl(p) for p in op.cparams))


def kernels(ops):
    """Note [Device table] (src/core/device.h): one op id per hand-written implementation, as (name, prototype) in
    table order; a device's kernel table has one slot per id."""
    ks = {}
    for op in ops:
        if op.impl in ks:
            continue
        ks[op.impl] = impl_proto(op)
        if op.out_impl:
            ks[op.impl + '_out'] = out_impl_proto(op)
        if op.fields.get('inplace_impl'):
            ks.setdefault(op.fields['inplace_impl'], inplace_impl_proto(op))
    return list(ks.items())


def emit_kernel_ids(ops):
    o = ['\n/* Note [Device table] (src/core/device.h): the op ids, each kernel\'s type, the CPU device\'s table */',
         'typedef enum {']
    ks = kernels(ops)
    o += ['    WK_OP_%s,' % name for name, _ in ks]
    o.append('    WK_NUM_OPS\n} wk_op_id;')
    for name, pr in ks:
        o.append('typedef %s;' % pr.replace('wk_impl_%s(' % name, '(*wk_impl_%s_fn)(' % name, 1))
    o.append('WK_INTERNAL extern const wk_kernel_fn wk__cpu_kernels[WK_NUM_OPS]; /* ops.c, for src/cpu/device.c */')
    return o


def emit_cpu_kernels(ops):
    o = ['/* Note [Device table]: the CPU device\'s kernel table (src/cpu/device.c), every slot filled */',
         'const wk_kernel_fn wk__cpu_kernels[WK_NUM_OPS] = {']
    o += ['    [WK_OP_%s] = (wk_kernel_fn)wk_impl_%s,' % (name, name) for name, _ in kernels(ops)]
    o.append('};')
    return '\n'.join(o)


def aten_name(op, variant=''):
    """torch's operator name for the errors of a device without the kernel: aten::add.Tensor, add_.Tensor, add.out"""
    name = op.name + ('_' if variant == 'inplace' else '')
    ov = op.overload
    if variant == 'out':
        ov = ov + '_out' if ov else 'out'
    return 'aten::%s%s' % (name, '.' + ov if ov else '')


def dispatch(op, kname, variant='', outputs=(), indent='    '):
    """Note [Device table]: the lines that pick the op's device from its tensors (wk__pick, src/ops/ops_support.h)
    and take kernel `kname` from that device's table as k_; the call site then calls k_(...)."""
    fail = 'NULL' if variant in ('inplace', 'mutating') else fail_value(op)
    picks = ['wk__pick(&dp_, %s, true);' % x for x in outputs]
    for p in op.cparams:
        c = cident(p.name)
        if op.fields.get('device') == 'self' and p.name != 'self':
            continue  # copy_: runs on self's device, reads its other tensors from any device
        if p.type in ('Tensor', 'Tensor?'):
            picks.append('wk__pick(&dp_, %s, false);' % c)
        elif p.type in ('Tensor[]', 'Tensor?[]'):
            picks.append('wk__pick_list(&dp_, (const wk_tensor *const *)%s.data, %s.len);' % (c, c))
    o = [indent + ' '.join(['wk_devpick dp_ = {0};'] + picks)]
    o.append(indent + 'wk_impl_%s_fn k_ = (wk_impl_%s_fn)wk__kernel(&dp_, WK_OP_%s, "%s");' % (
        kname, kname, kname, aten_name(op, 'out' if variant == 'out' else 'inplace' if variant == 'inplace' else '')))
    o.append(indent + 'if (!k_) return %s;' % fail)
    return o


def emit_impl_header(ops):
    o = [HEADER, '#ifndef WK_OPS_IMPL_H\n#define WK_OPS_IMPL_H\n#include "core/core.h"\n']
    seen = set()
    for op in ops:
        if op.impl in seen:
            continue
        seen.add(op.impl)
        o.append('WK_INTERNAL %s;' % impl_proto(op))
        if op.out_impl:
            o.append('WK_INTERNAL %s;' % out_impl_proto(op))
        if op.out_check:
            o.append('WK_INTERNAL int %s(const wk_tensor *out, const wk_tensor *result);' % op.out_check)
        if op.fields.get('inplace_impl'):
            o.append('WK_INTERNAL %s;' % inplace_impl_proto(op))
    o += emit_kernel_ids(ops)
    o.append('#endif')
    return '\n'.join(o) + '\n'


def arg_null_checks(op, indent='    '):
    """The C API's contract from the schema (issue 25): a required Tensor is not NULL; a list has len >= 0 (or is
    None: NULL data, len -1), data unless it is empty, and a Tensor[] no NULL entry; else an error."""
    o = []
    for p in op.cparams:
        if p.type == 'Tensor':
            o.append('%sif (!%s) return wk__null_arg("%s", "%s"), %s;' % (indent, cident(p.name), op.name, p.name,
                                                                         fail_value(op)))
        elif p.type in ('int[]', 'int[]?', 'float[]', 'float[]?', 'Tensor[]', 'Tensor?[]'):
            c = cident(p.name)
            o.append('%sif (wk__check_list("%s", "%s", %s.data, %s.len, %s, %s) < 0) return %s;'
                     % (indent, op.name, p.name, c, c, 'true' if p.type in ('int[]?', 'float[]?', 'Tensor?[]') else 'false',
                        'true' if p.type == 'Tensor[]' else 'false', fail_value(op)))
    return o


def saved_fields(op, names, inplace):
    """Which names the formulas use, mapped to how they are stored in the node."""
    fields = []  # (kind, name, param)
    pnames = {p.name: p for p in op.cparams}
    for nm in sorted(names):
        if nm in ('grad', 'grads'):
            continue
        if nm == 'result' or re.match(r'result\d$', nm):
            fields.append(('result', nm, None))
        elif nm in pnames:
            p = pnames[nm]
            if p.is_tensor:
                fields.append(('tensor', nm, p))
            elif p.type in ('Tensor[]', 'Tensor?[]'):
                fields.append(('tensorlist', nm, p))
            else:
                fields.append(('value', nm, p))
        else:
            m = re.match(r'^(\w+?)_(sizes|dtype|ndim|numel|strides|storage_offset|options|device)$', nm)
            if m and m.group(1) in pnames and pnames[m.group(1)].is_tensor:
                fields.append(('meta_' + m.group(2), nm, pnames[m.group(1)]))
            elif m and m.group(1) in pnames and pnames[m.group(1)].type == 'Tensor[]' and m.group(2) in ('sizes', 'dtype'):
                fields.append(('listmeta_' + m.group(2), nm, pnames[m.group(1)]))
    return fields


def node_struct_fields(fields):
    o = []
    for kind, nm, p in fields:
        if kind in ('tensor', 'result'):
            o.append('    wk_saved %s;' % nm)
        elif kind == 'tensorlist':
            o.append('    wk_saved *%s; int64_t %s_len;' % (nm, nm))
        elif kind == 'value':
            t = p.type
            if t in ('int[]', 'int[]?'):
                o.append('    int64_t *%s_data; int64_t %s_len;' % (nm, nm))
            elif t in ('str', 'str?'):
                o.append('    char *%s;' % nm)
            elif t in ('float[]', 'float[]?'):
                o.append('    double *%s_data; int64_t %s_len;' % (nm, nm))
            elif t == 'Tensor?':
                o.append('    wk_saved %s;' % nm)
            else:  # the field keeps the schema name (n->n); the C locals use cident
                t_ = CTYPE[p.type]
                o.append('    %s%s%s;' % (t_, '' if t_.endswith('*') else ' ', nm))
        elif kind == 'meta_sizes' or kind == 'meta_strides':
            o.append('    int64_t %s[WK_MAX_DIM]; int %s_n;' % (nm, nm))
        elif kind == 'meta_dtype':
            o.append('    wk_dtype %s;' % nm)
        elif kind == 'meta_device':
            o.append('    wk_device *%s;' % nm)
        elif kind in ('meta_ndim', 'meta_numel', 'meta_storage_offset'):
            o.append('    int64_t %s;' % nm)
        elif kind == 'listmeta_sizes':
            o.append('    int64_t *%s; int64_t %s_n; /* [n][WK_MAX_DIM+1]: ndim then sizes */' % (nm, nm))
        elif kind == 'listmeta_dtype':
            o.append('    wk_dtype *%s; int64_t %s_n;' % (nm, nm))
    return o


def field_condition(op, nm, node='n'):
    """C condition under which a saved field is needed: some edge whose formula mentions it needs a gradient."""
    edges = diff_inputs(op)
    idx = []
    for i, p in enumerate(edges):
        if p.type == 'Tensor[]':
            return None
        f = op.formulas.get(p.name, '')
        if nm in formula_names(f):
            idx.append(i)
    if not idx:
        return None
    return ' || '.join('wk__needs_grad(&%s->base, %d)' % (node, i) for i in idx)


def emit_save(op, fields, indent, node='n', result_var='r', self_var=None, written=None):
    # written: the tensor an in-place op wrote into before recording (its version from before is `v0_`)
    o = []
    for kind, nm, p in fields:
        src = cident(nm) if p else nm
        if kind in ('tensor', 'result') or (kind == 'value' and p.type == 'Tensor?'):
            cond = field_condition(op, nm, node)
            if cond:  # save only what a needed gradient uses (as torch does; it matters for version checks)
                o.append('%sif (%s)' % (indent, cond))
                indent_ = indent + '    '
            else:
                indent_ = indent
            if kind == 'result':
                idx = int(nm[6:]) if nm != 'result' else 0
                rv = result_var if op.ret_kind == 'tensor' else 'outs[%d]' % idx
                # saved before the outputs get their history: its slot on unpack (double backward) is idx
                o.append('%s{ if (wk__save(&%s->%s, %s, true, &%s->base) < 0) goto fail_node; %s->%s.output_nr = %d; }'
                         % (indent_, node, nm, rv, node, node, nm, idx))
            else:
                v = self_var if (self_var and nm == 'self') else cident(nm)
                save = 'if (wk__save(&%s->%s, %s, false, &%s->base) < 0) goto fail_node;' % (node, nm, v, node)
                if written and v != self_var:
                    save = '{ %s wk__saved_rewind(&%s->%s, %s, v0_); }' % (save, node, nm, written)
                o.append(indent_ + save)
            continue
        if kind == 'tensorlist':
            o.append('%s%s->%s = wk__calloc((size_t)(%s.len ? %s.len : 1), sizeof(wk_saved));' % (indent, node, nm, src, src))
            o.append('%sif (!%s->%s) goto fail_node;' % (indent, node, nm))
            o.append('%s%s->%s_len = %s.len;' % (indent, node, nm, src))
            o.append('%sfor (int64_t i_ = 0; i_ < %s.len; i_++) if (wk__save(&%s->%s[i_], %s.data[i_], false, &%s->base) < 0) goto fail_node;'
                     % (indent, src, node, nm, src, node))
        elif kind == 'value':
            t = p.type
            if t in ('int[]', 'int[]?'):
                o.append('%sif (wk__copy_intlist(%s, &%s->%s_data, &%s->%s_len) < 0) goto fail_node;'
                         % (indent, src, node, nm, node, nm))
            elif t in ('str', 'str?'):
                o.append('%s%s->%s = %s ? wk__strdup(%s) : NULL;' % (indent, node, nm, src, src))
            elif t in ('float[]', 'float[]?'):  # a None list keeps data NULL, len -1
                o.append('%sif (wk__copy_floatlist(%s, &%s->%s_data, &%s->%s_len) < 0) goto fail_node;'
                         % (indent, src, node, nm, node, nm))
            else:
                o.append('%s%s->%s = %s;' % (indent, node, nm, src))
        elif kind == 'meta_sizes':
            t = cident(p.name)
            o.append('%smemcpy(%s->%s, %s->sizes, sizeof(int64_t) * (size_t)%s->ndim); %s->%s_n = %s->ndim;'
                     % (indent, node, nm, t, t, node, nm, t))
        elif kind == 'meta_strides':
            t = cident(p.name)
            o.append('%smemcpy(%s->%s, %s->strides, sizeof(int64_t) * (size_t)%s->ndim); %s->%s_n = %s->ndim;'
                     % (indent, node, nm, t, t, node, nm, t))
        elif kind == 'meta_dtype':
            o.append('%s%s->%s = %s->dtype;' % (indent, node, nm, cident(p.name)))
        elif kind == 'meta_device':
            o.append('%s%s->%s = %s->storage->device;' % (indent, node, nm, cident(p.name)))
        elif kind == 'meta_ndim':
            o.append('%s%s->%s = %s->ndim;' % (indent, node, nm, cident(p.name)))
        elif kind == 'meta_numel':
            o.append('%s%s->%s = wk_numel(%s);' % (indent, node, nm, cident(p.name)))
        elif kind == 'meta_storage_offset':
            o.append('%s%s->%s = %s->offset;' % (indent, node, nm, cident(p.name)))
        elif kind == 'listmeta_sizes':
            o.append('%sif (wk__save_list_sizes(%s, &%s->%s, &%s->%s_n) < 0) goto fail_node;'
                     % (indent, src.replace('_sizes', ''), node, nm, node, nm))
        elif kind == 'listmeta_dtype':
            o.append('%sif (wk__save_list_dtypes(%s, &%s->%s, &%s->%s_n) < 0) goto fail_node;'
                     % (indent, src.replace('_dtype', ''), node, nm, node, nm))
    return o


def emit_node(op, opnames):
    """The backward node type for op: struct, apply, release_saved, vtable."""
    names = set()
    for f in op.formulas.values():
        names |= formula_names(f)
    if op.multi_formula:
        names |= formula_names(op.multi_formula)
    fields = saved_fields(op, names, False)
    S = 'node_%s' % op.cname
    o = ['/* %s: %s */' % (op.node_name, op.schema)]
    o.append('typedef struct {\n    wk_node base;')
    o += node_struct_fields(fields)
    nout = len(op.tensor_rets)
    if nout > 1 or op.ret_kind == 'tensorlist':
        o.append('    wk_input_meta *out_meta; int64_t n_out; /* shapes of the outputs, to materialise zero grads */')
    o.append('} %s;' % S)
    # apply
    o.append('static int %s_apply(wk_node *n_, wk_tensor **gi, wk_tensor **go) {' % S)
    o.append('    %s *n = (%s *)n_;' % (S, S))
    o.append('    wk_pool pool = {0};')
    o.append('    (void)n;')
    multi = nout > 1 or op.ret_kind == 'tensorlist'
    if multi:
        o.append('    wk_tensor **grads = gi;')
        o.append('    if (wk__materialize_grads(&pool, gi, n->out_meta, n->n_out) < 0) return wk__pool_end(&pool, -1);')
        o.append('    wk_tensorlist grads_list = {grads, n->n_out}; (void)grads_list;')
        o.append('    wk_tensor *grad = gi[0]; (void)grad;')
    else:
        o.append('    wk_tensor *grad = gi[0]; (void)grad;')
    # locals for saved values
    for kind, nm, p in fields:
        if kind in ('tensor', 'result') or (kind == 'value' and p.type == 'Tensor?'):
            o.append('    wk_tensor *%s = wk__pool_keep(&pool, wk__unpack(&n->%s, n_));' % (cident(nm), nm))
            o.append('    if (n->%s.defined && !%s) return wk__pool_end(&pool, -1);' % (nm, cident(nm)))
        elif kind == 'tensorlist' and p.type == 'Tensor?[]':  # entries may be undefined (NULL)
            o.append('    wk_tensor **%s_arr = wk__pool_array(&pool, n->%s_len);' % (nm, nm))
            o.append('    if (!%s_arr) return wk__pool_end(&pool, -1);' % nm)
            o.append('    for (int64_t i_ = 0; i_ < n->%s_len; i_++) {' % nm)
            o.append('        %s_arr[i_] = wk__pool_keep(&pool, wk__unpack(&n->%s[i_], n_));' % (nm, nm))
            o.append('        if (n->%s[i_].defined && !%s_arr[i_]) return wk__pool_end(&pool, -1);' % (nm, nm))
            o.append('    }')
            o.append('    wk_opttensorlist %s = {(const wk_tensor *const *)%s_arr, n->%s_len};' % (cident(nm), nm, nm))
        elif kind == 'tensorlist':
            o.append('    wk_tensor **%s_arr = wk__pool_array(&pool, n->%s_len);' % (nm, nm))
            o.append('    if (!%s_arr) return wk__pool_end(&pool, -1);' % nm)
            o.append('    for (int64_t i_ = 0; i_ < n->%s_len; i_++) %s_arr[i_] = A(wk__unpack(&n->%s[i_], n_));' % (nm, nm, nm))
            o.append('    wk_tensorlist %s = {%s_arr, n->%s_len};' % (cident(nm), nm, nm))
        elif kind == 'value':
            t = p.type
            if t in ('int[]', 'int[]?'):
                o.append('    wk_intlist %s = {n->%s_data, n->%s_len};' % (cident(nm), nm, nm))
            elif t in ('float[]', 'float[]?'):
                o.append('    wk_floatlist %s = {n->%s_data, n->%s_len};' % (cident(nm), nm, nm))
            elif t in ('str', 'str?'):
                o.append('    const char *%s = n->%s;' % (cident(nm), nm))
            else:
                o.append('    %s = n->%s;' % (cdecl(p), nm))
            o.append('    (void)%s;' % cident(nm))
        elif kind in ('meta_sizes', 'meta_strides'):
            o.append('    wk_intlist %s = {n->%s, n->%s_n}; (void)%s;' % (nm, nm, nm, nm))
        elif kind == 'meta_dtype':
            o.append('    wk_dtype %s = n->%s; (void)%s;' % (nm, nm, nm))
        elif kind == 'meta_device':
            o.append('    wk_device *%s = n->%s; (void)%s;' % (nm, nm, nm))
        elif kind in ('meta_ndim', 'meta_numel', 'meta_storage_offset'):
            o.append('    int64_t %s = n->%s; (void)%s;' % (nm, nm, nm))
        elif kind == 'listmeta_sizes':
            o.append('    const int64_t *%s = n->%s; int64_t %s_n = n->%s_n; (void)%s; (void)%s_n;' % (nm, nm, nm, nm, nm, nm))
        elif kind == 'listmeta_dtype':
            o.append('    const wk_dtype *%s = n->%s; (void)%s;' % (nm, nm, nm))
    # formulas, one per differentiable input, in edge order
    edges = diff_inputs(op)
    o.append('    if (pool.failed) return wk__pool_end(&pool, -1);')
    for i, p in enumerate(edges):
        if p.type == 'Tensor[]':
            f = op.multi_formula or op.formulas.get(p.name)
            o.append('    { /* %s: %s */' % (p.name, f))
            o.append('        bool any_ = false;')
            o.append('        for (uint32_t k_ = %d; k_ < n_->num_next; k_++) any_ |= wk__needs_grad(n_, k_);' % i)
            o.append('        if (any_) {')
            o.append('            wk_tensorvec v_ = %s;' % rewrite_formula(f, opnames).replace('A(wk_', 'AV(wk_', 1)
                     if False else '            wk_tensorvec v_ = %s;' % f_list(f, opnames))
            o.append('            if (!v_.data) return wk__pool_end(&pool, -1);')
            o.append('            for (int64_t k_ = 0; k_ < v_.len && %d + k_ < n_->num_next; k_++) {' % i)
            o.append('                if (wk__needs_grad(n_, (uint32_t)(%d + k_))) go[%d + k_] = v_.data[k_]; else wk_release(v_.data[k_]);' % (i, i))
            o.append('                v_.data[k_] = NULL;')
            o.append('            }')
            o.append('            wk_tensorvec_free(v_);')
            o.append('        }')
            o.append('    }')
            continue
        f = op.formulas.get(p.name)
        if f is None:
            continue
        cond = ''
        m = re.match(r'^undefined_if\((.*)\)$', f.strip())
        if m:  # undefined_if(COND, EXPR): no gradient at all (None, not zeros) when COND holds
            parts = split_top(m.group(1))
            cond, f = ' && !(%s)' % parts[0], ', '.join(parts[1:])
        o.append('    if (wk__needs_grad(n_, %d)%s) { /* %s: %s */' % (i, cond, p.name, f))
        o.append('        go[%d] = wk_retain(%s);' % (i, rewrite_formula(f, opnames, {p.name for p in op.params})))
        o.append('        if (!go[%d]) return wk__pool_end(&pool, -1);' % i)
        o.append('    }')
    o.append('    return wk__pool_end(&pool, 0);')
    o.append('}')
    # release
    o.append('static void %s_release(wk_node *n_) {' % S)
    o.append('    %s *n = (%s *)n_;' % (S, S))
    o.append('    (void)n;')
    for kind, nm, p in fields:
        if kind in ('tensor', 'result') or (kind == 'value' and p.type == 'Tensor?'):
            o.append('    wk__saved_release(&n->%s);' % nm)
        elif kind == 'tensorlist':
            o.append('    for (int64_t i_ = 0; i_ < n->%s_len && n->%s; i_++) wk__saved_release(&n->%s[i_]);' % (nm, nm, nm))
    o.append('}')
    o.append('static void %s_destroy(wk_node *n_) {' % S)
    o.append('    %s *n = (%s *)n_;' % (S, S))
    o.append('    (void)n;')
    for kind, nm, p in fields:
        if kind == 'tensorlist':
            o.append('    free(n->%s);' % nm)
        elif kind == 'value' and p.type in ('int[]', 'int[]?', 'float[]', 'float[]?'):
            o.append('    free(n->%s_data);' % nm)
        elif kind == 'value' and p.type in ('str', 'str?'):
            o.append('    free(n->%s);' % nm)
        elif kind in ('listmeta_sizes', 'listmeta_dtype'):
            o.append('    free(n->%s);' % nm)
    if multi:
        o.append('    wk__free_meta(n->out_meta, n->n_out);')
    o.append('}')
    o.append('static const wk_node_vtable VT_%s = {"%s", %s_apply, %s_release, NULL, %s_destroy};'
             % (op.cname, op.node_name, S, S, S))
    if op.fields.get('inplace_node') and not op.inplace_formulas:  # torch's in-place native: its own node name
        o.append('static const wk_node_vtable VT_%s_inplace = {"%s", %s_apply, %s_release, NULL, %s_destroy};'
                 % (op.cname, op.fields['inplace_node'], S, S, S))
    return '\n'.join(o), fields


def f_list(f, opnames):
    """A formula returning a tensor list (wk_tensorvec): its outer call is not pooled."""
    r = rewrite_formula(f, opnames)
    if r.startswith('A(wk_') and r.endswith(')'):
        r = r[2:-1]
    return r


def diff_inputs(op):
    """The forward inputs that get edges (next_functions), in schema order."""
    return [p for p in op.cparams if (p.is_tensor or p.type in ('Tensor?', 'Tensor[]'))
            and p.name not in op.nondiff and (p.name in op.formulas or (p.type == 'Tensor[]' and op.multi_formula))]


def undiff_tensor_inputs(op):
    return [p for p in op.cparams if (p.is_tensor or p.type in ('Tensor?', 'Tensor[]'))
            and p.name not in op.nondiff and p not in diff_inputs(op)]


def emit_record(op, fields, outvar, indent, self_var=None, vt_suffix='', written=None):
    # self_var: where the saved `self` comes from (in-place ops save a copy of self from before the write);
    # edges always come from the inputs themselves.
    """Code that builds the node after the forward ran (outputs in outvar / outs / v)."""
    S = 'node_%s' % op.cname
    edges = diff_inputs(op)
    o = []
    nedges = ' + '.join(['1' if p.type != 'Tensor[]' else '(uint32_t)%s.len' % cident(p.name) for p in edges]) or '0'
    k = op.ret_kind
    nout = '1' if k == 'tensor' else ('(uint32_t)v.len' if k == 'tensorlist' else str(len(op.rets)))
    o.append('%s%s *n = (%s *)wk__node_new(&VT_%s%s, sizeof(%s), %s, %s);' % (indent, S, S, op.cname, vt_suffix, S, nout,
                                                                             nedges))
    o.append('%sif (!n) goto fail;' % indent)
    idx = 0
    cur = '0'
    for p in edges:
        if p.type == 'Tensor[]':
            o.append('%sfor (int64_t i_ = 0; i_ < %s.len; i_++)' % (indent, cident(p.name)))
            o.append('%s    if (wk__node_set_next(&n->base, (uint32_t)(%s + i_), %s.data[i_]) < 0) goto fail_node;'
                     % (indent, cur, cident(p.name)))
            cur = '%s + (uint32_t)%s.len' % (cur, cident(p.name))
        else:
            o.append('%sif (wk__node_set_next(&n->base, %s, %s) < 0) goto fail_node;' % (indent, cur, cident(p.name)))
            cur = '%s + 1' % cur if cur != '0' else '1'
        idx += 1
    if k == 'tuple' or k == 'tensorlist':
        if k == 'tuple':
            o.append('%sif (wk__save_meta(outs, %d, &n->out_meta, &n->n_out) < 0) goto fail_node;' % (indent, len(op.rets)))
        else:
            o.append('%sif (wk__save_meta(v.data, v.len, &n->out_meta, &n->n_out) < 0) goto fail_node;' % indent)
    o += emit_save(op, fields, indent, result_var=outvar, self_var=self_var, written=written)
    return o


# Note [Write overlap] (src/ops/ops_support.h): the ops torch runs on TensorIterator check what their in-place and out=
# variants write. By file, or per op with `overlap_check: true | false | internal` (internal: only that the written
# tensor reaches no element twice, for ops torch builds on copy_ or mul_ of a temporary).
OVERLAP_FILES = {'pointwise.def', 'unary.def', 'compare.def', 'nn_act.def'}


def is_iter_op(op):
    """an op torch runs on TensorIterator: its in-place / out= variants check overlap, shape and cast first"""
    v = op.fields.get('overlap_check')
    return not (v is None and os.path.basename(op.where.split(':')[0]) not in OVERLAP_FILES or v == 'false')


def overlap_check(op, dst):
    if not is_iter_op(op):
        return []
    v = op.fields.get('overlap_check')
    ins = [] if v == 'internal' else [cident(p.name) for p in op.cparams if p.type in ('Tensor', 'Tensor?')]
    return ['    if (wk__check_write_overlap(%s, %d, (const wk_tensor *const[]){%s}) < 0) return NULL;'
            % (dst, len(ins), ', '.join(ins) or 'NULL')]


def emit_mutating(op, opnames):
    """Note [Ops that write into self]: with `mutates: self` the impl writes into self itself and returns a new
    reference to it (a random in-place op must visit self's elements in self's own memory order, so it cannot be
    computed out of place and copied). The wrapper does what the in-place variant does around it: the in-place
    checks, grad mode off while the impl runs, the version bump, and the autograd record, whose edges come from
    the inputs as they were before the write. Formulas must not use self's values."""
    assert op.ret_kind == 'tensor' and op.params and op.params[0].name == 'self', op.schema
    o = []
    fields = []
    if op.differentiable:
        node_code, fields = emit_node(op, opnames)
        o.append(node_code)
    diff = diff_inputs(op) if op.differentiable else []
    assert not any('self' in formula_names(f) for f in op.formulas.values()), op.schema
    o.append('%s {' % proto(op))
    o += arg_null_checks(op)
    o += fw_refuse_line(op, fw_inputs(op), op.name, 'NULL')
    o.append('    if (wk__check_inplace(self) < 0) return NULL;')
    o += dispatch(op, op.impl, 'mutating', outputs=('self',))
    parts = ['wk__tensor_requires_grad(%s)' % cident(p.name) for p in diff]
    o.append('    bool rg_ = %s;' % ('(wk__grad_enabled() && (%s))' % ' || '.join(parts) if parts else 'false'))
    if diff:
        o.append('    if (!rg_ && wk__grad_enabled() && self->is_view && self->view_base && wk__tensor_requires_grad(self->view_base)) rg_ = true;')
    o.append('    wk_tensor *r = NULL;')
    if diff:
        o.append('    uint32_t v0_ = self->version->version; /* for the saved inputs: wk__saved_rewind */')
    o.append('    {')
    o.append('        bool prev_ = wk_set_grad_enabled(false);')
    o.append('        r = k_(%s);' % call_args(op))
    o.append('        wk_set_grad_enabled(prev_);')
    o.append('    }')
    o.append('    if (!r) return NULL;')
    o.append('    wk__bump_version(self);')
    if diff:
        o.append('    if (!rg_) return r;')
        o.append('    {')
        o += emit_record(op, fields, 'self', '        ', written='self')
        o.append('        if (wk__rebase_history(self, &n->base) < 0) { wk__node_release(&n->base); goto fail; }')
        o.append('        wk__node_release(&n->base);')
        o.append('        return r;')
        o.append('    fail_node:')
        o.append('        wk__node_release(&n->base);')
        o.append('    }')
        o.append('fail:')
        o.append('    wk_release(r);')
        o.append('    return NULL;')
    else:
        o.append('    return r;')
    o.append('}')
    return '\n'.join(o)


def inplace_node_op(op):
    """Note [In-place formulas]: an op whose in-place variant has formulas of its own (`inplace_<arg>`) records a
    node of its own type, node_<cname>_inplace, named by `inplace_node`; `result` there is self after the write."""
    iop = copy.copy(op)
    iop.formulas = dict(op.formulas, **op.inplace_formulas)
    iop.cname = op.cname + '_inplace'
    iop.node_name = op.fields.get('inplace_node', op.node_name)
    iop.fields = {k: v for k, v in op.fields.items() if k != 'inplace_node'}
    iop.inplace_formulas = {}
    return iop


# Note [An op returning its input]: an impl may return one of its tensor arguments itself (a new reference, no copy),
# as _cumsum_backward does for a 0-d or empty grad, as torch's formulas return grad itself. The result is then that
# input, unchanged, so the op is the identity on it there and the input's own history is the right one: the wrapper
# records no node. Setting history on it would rewrite the caller's tensor (a leaf would stop being a leaf, and the
# node would hold the tensor that holds it: a cycle that leaks both).
def fw_inputs(op):
    return [p for p in op.cparams if p.type in ('Tensor', 'Tensor?', 'Tensor[]')]


def fw_any(ps, extra=()):
    """C expression: a dual level is open and one of the tensors has a tangent at it"""
    parts = ['wk__fw_list_any(%s)' % cident(p.name) if p.type == 'Tensor[]' else 'wk__fw_get(%s)' % cident(p.name)
             for p in ps] + ['wk__fw_get(%s)' % e for e in extra]
    return '(wk__fw_level && (%s))' % ' || '.join(parts) if parts else 'false'


def fw_refuse_line(op, ps, name, fail, extra=()):
    if not ps and not extra:
        return []
    return ['    if (%s) return wk__fw_refuse("%s"), %s;' % (fw_any(ps, extra), name, fail)]


META_SUFFIX = {'_sizes': 'wk_intlist {n} = {{{c}->sizes, {c}->ndim}};', '_strides': 'wk_intlist {n} = {{{c}->strides, {c}->ndim}};',
               '_dtype': 'wk_dtype {n} = {c}->dtype;', '_ndim': 'int64_t {n} = {c}->ndim;',
               '_numel': 'int64_t {n} = wk__numel({c});', '_storage_offset': 'int64_t {n} = {c}->offset;'}


def emit_fw(op, opnames, indent='    ', tuple_out=False):
    """Note [Forward AD] (src/autograd/forward_ad.c): after the kernel of a differentiable op returning one tensor,
    the result's tangent from the inputs' tangents by the op's jvp formula. For an op returning several tensors
    (tuple_out) the formula gives the first output's tangent (`result0`, `result1`, ... name the outputs); the
    others get none (indices, or statistics such as nll_loss's total_weight)."""
    ins = fw_inputs(op)
    diff = [p for p in diff_inputs(op)]
    pnames = {p.name for p in op.params}
    j = op.jvp
    alias = [cident(p.name) for p in op.cparams if p.type in ('Tensor', 'Tensor?')]
    guard = fw_any(ins)
    R, FAIL = ('outs[0]', 'goto fw_fail_') if tuple_out else ('r', None)
    if alias and not op.view and not tuple_out:  # Note [An op returning its input]: it keeps that input's tangent
        guard = '%s && %s' % (' && '.join('r != %s' % a for a in alias), guard)
    o = ['%sif (%s) {' % (indent, guard)]
    I = indent + '    '
    if j == 'none':
        return []
    if j is None or j == 'refuse' or (j in ('element_wise',) and any(p.type == 'Tensor[]' for p in diff)):
        o.append('%swk__fw_refuse("%s");' % (I, op.name))
        o.append('%s%s;' % (I, FAIL) if FAIL else '%swk_release(r);\n%sreturn NULL;' % (I, I))
        o.append('%s}' % indent)
        return o
    o.append('%swk_pool pool = {0};' % I)
    for p in ins:
        if p.type == 'Tensor[]':
            o.append('%sbool %s_any = wk__fw_list_any(%s); (void)%s_any;' % (I, p.name, cident(p.name), p.name))
            continue
        o.append('%swk_tensor *%s_t = wk__fw_get(%s); (void)%s_t;' % (I, p.name, cident(p.name), p.name))
    o.append('%suint64_t fwl_ = wk__fw_level; wk__fw_level = 0; /* the formula sees primals */' % I)
    o.append('%swk_tensor *t_ = NULL;' % I)
    if j == 'element_wise':
        forms = [(p, op.formulas[p.name]) for p in diff if p.name in op.formulas]
    else:
        forms = []
    names = set()
    for _, f in forms:
        names |= formula_names(f)
    if j not in ('element_wise', 'linear'):
        names |= formula_names(j)
    if tuple_out:
        nr = len(op.rets)
        if names & ({'result'} | {'result%d' % i for i in range(nr)}):  # Note [Forward AD]: recomputed when recorded
            o.append('%swk_tensor *ro_[%d] = {0};' % (I, nr))
            o.append('%sif (rg_) { if (wk_%s(%s, ro_) < 0) pool.failed = true; for (int i_ = 0; i_ < %d; i_++) A(ro_[i_]); }'
                     % (I, op.cname, call_args(op), nr))
            o.append('%selse for (int i_ = 0; i_ < %d; i_++) ro_[i_] = outs[i_];' % (I, nr))
            for i in range(nr):
                o.append('%swk_tensor *result%d = ro_[%d]; (void)result%d;' % (I, i, i, i))
            o.append('%swk_tensor *result = ro_[0]; (void)result;' % I)
    elif 'result' in names:  # Note [Forward AD]: a recomputed result when the output gets history
        o.append('%swk_tensor *result = rg_ ? A(wk_%s(%s)) : r; (void)result;' % (I, op.cname, call_args(op)))
    for p in op.cparams:
        if p.type not in ('Tensor', 'Tensor?'):
            continue
        for suf, decl in META_SUFFIX.items():
            nm = p.name + suf
            if nm in names:
                o.append(I + decl.format(n=nm, c=cident(p.name)) + ' (void)%s;' % nm)
    if j == 'element_wise':
        for p, f in forms:
            cond = ''
            m = re.match(r'^undefined_if\((.*)\)$', f.strip())
            if m:
                parts = split_top(m.group(1))
                cond, f = ' && !(%s)' % parts[0], ', '.join(parts[1:])
            # as torch's: an input without a tangent contributes with zeros (so the tangent has the history of every
            # primal the formula reads, as torch's does)
            o.append('%sif (%s%s) { /* %s */' % (I, cident(p.name), cond, f))
            o.append('%s    wk_tensor *grad = %s_t ? %s_t : A(wk_zeros_like(%s, WK_DTYPE_NONE, false));'
                     % (I, p.name, p.name, cident(p.name)))
            o.append('%s    wk_tensor *c_ = %s;' % (I, rewrite_formula(f, opnames, pnames)))
            o.append('%s    t_ = t_ && c_ ? A(wk_add(t_, c_, wk_int(1))) : (t_ ? t_ : c_);' % I)
            o.append('%s    if (!c_) pool.failed = true;' % I)
            o.append('%s}' % I)
    elif j == 'linear':  # linear in each tensor argument: the sum over inputs with a tangent of op(.., x_t, ..)
        for p in diff:
            if p.type == 'Tensor[]':
                c = cident(p.name)
                o.append('%sif (%s_any) {' % (I, p.name))
                o.append('%s    wk_tensor **a_ = wk__pool_array(&pool, %s.len);' % (I, c))
                o.append('%s    for (int64_t i_ = 0; a_ && i_ < %s.len; i_++) {' % (I, c))
                o.append('%s        wk_tensor *x_ = %s.data[i_];' % (I, c))
                o.append('%s        a_[i_] = x_->fw_grad && x_->fw_level == fwl_ ? x_->fw_grad : A(wk_zeros_like(x_, WK_DTYPE_NONE, false));' % I)
                o.append('%s    }' % I)
                o.append('%s    wk_tensor *c_ = a_ ? A(wk_%s(%s)) : NULL;' % (I, op.cname, call_args(op, {p.name: '(wk_tensorlist){(wk_tensor *const *)a_, %s.len}' % c})))
            elif tuple_out:
                o.append('%sif (%s_t) {' % (I, p.name))
                o.append('%s    wk_tensor *o_[%d] = {0};' % (I, len(op.rets)))
                o.append('%s    int orc_ = wk_%s(%s, o_);' % (I, op.cname, call_args(op, {p.name: p.name + '_t'})))
                o.append('%s    for (int i_ = 1; i_ < %d; i_++) A(o_[i_]);' % (I, len(op.rets)))
                o.append('%s    wk_tensor *c_ = orc_ < 0 ? NULL : A(o_[0]);' % I)
            else:   # inputs without a tangent contribute with zeros, as torch's (when another input has one)
                many = len([q for q in diff if q.type != 'Tensor[]']) > 1
                o.append('%sif (%s) {' % (I, cident(p.name) if many else p.name + '_t'))
                if many:
                    o.append('%s    if (!%s_t) %s_t = A(wk_zeros_like(%s, WK_DTYPE_NONE, false));' % (I, p.name, p.name, cident(p.name)))
                o.append('%s    wk_tensor *c_ = A(wk_%s(%s));' % (I, op.cname, call_args(op, {p.name: p.name + '_t'})))
            o.append('%s    t_ = t_ && c_ ? A(wk_add(t_, c_, wk_int(1))) : (t_ ? t_ : c_);' % I)
            o.append('%s    if (!c_) pool.failed = true;' % I)
            o.append('%s}' % I)
    else:  # a formula over the tangents (`<arg>_t`, zeros where an input has none) and the primals
        for p in diff:
            if p.type == 'Tensor[]':
                continue
            if (p.name + '_t') in names:
                o.append('%sif (!%s_t && %s) %s_t = A(wk_zeros_like(%s, WK_DTYPE_NONE, false));' % (
                    I, p.name, cident(p.name), p.name, cident(p.name)))
        o.append('%st_ = %s;' % (I, rewrite_formula(j, opnames, pnames)))
        o.append('%sif (!t_) pool.failed = true;' % I)
    o.append('%swk__fw_level = fwl_;' % I)
    o.append('%sint rc_ = pool.failed ? -1 : wk__fw_set(%s, t_);' % (I, R))
    if tuple_out:
        o.append('%sif (wk__pool_end(&pool, rc_) < 0) goto fw_fail_;' % I)
    else:
        o.append('%sif (wk__pool_end(&pool, rc_) < 0) { wk_release(r); return NULL; }' % I)
    o.append('%s}' % indent)
    return o


def emit_wrappers(op, opnames):
    if op.mutates_self:
        return emit_mutating(op, opnames)
    o = []
    fields = []
    if op.differentiable:
        node_code, fields = emit_node(op, opnames)
        o.append(node_code)
    iop, ifields = op, fields  # the in-place variant's node
    if op.differentiable and op.inplace_formulas and 'inplace' in op.variants:
        iop = inplace_node_op(op)
        node_code, ifields = emit_node(iop, opnames)
        o.append(node_code)
    k = op.ret_kind
    tens_inputs = [p for p in op.cparams if p.is_tensor or p.type in ('Tensor?', 'Tensor[]')]

    def requires_grad_expr(ps):
        parts = []
        for p in ps:
            if p.type == 'Tensor[]':
                parts.append('wk__list_requires_grad(%s)' % cident(p.name))
            else:
                parts.append('wk__tensor_requires_grad(%s)' % cident(p.name))
        return '(wk__grad_enabled() && (%s))' % (' || '.join(parts) or 'false')

    # ---- out-of-place ----
    o.append('%s {' % proto(op))
    o += arg_null_checks(op)
    undiff = undiff_tensor_inputs(op)
    if op.autograd == 'manual' or op.autograd == 'none' or not op.differentiable:
        if op.autograd == 'auto' and undiff and k in ('tensor', 'tuple', 'tensorlist'):
            o.append('    if (%s) return wk__not_differentiable("%s", "%s"), %s;' % (
                requires_grad_expr(undiff), op.name, undiff[0].name, fail_value(op)))
        ret = 'return k_(%s);' % ', '.join(filter(None, [call_args(op), {'tuple': 'outs', 'scalar': 'result', 'bool': 'result', 'int': 'result', 'float': 'result', 'dtype': 'result'}.get(k)]))
        o += dispatch(op, op.impl)
        fwm = op.autograd == 'manual' and op.jvp != 'none' and fw_inputs(op)
        if op.view and k == 'tensor':
            o.append('    wk_tensor *r = k_(%s);' % call_args(op))
            o.append('    if (r) wk__mark_view(r, self);')
            if fwm:  # a composite (manual) op's tangent comes from the ops it ran; none there: refused
                o.append('    if (r && !wk__fw_get(r) && wk_dtype_is_floating(r->dtype) && %s) { wk_release(r); return wk__fw_refuse("%s"), NULL; }' % (fw_any(fw_inputs(op)), op.name))
            o.append('    return r;')
        elif fwm and k == 'tensor':
            o.append('    wk_tensor *res_ = k_(%s);' % call_args(op))
            o.append('    if (res_ && !wk__fw_get(res_) && wk_dtype_is_floating(res_->dtype) && %s) { wk_release(res_); return wk__fw_refuse("%s"), NULL; }' % (fw_any(fw_inputs(op)), op.name))
            o.append('    return res_;')
        else:
            o.append('    ' + ret)
        o.append('}')
    else:
        if undiff:
            o.append('    if (%s) return wk__not_differentiable("%s", "%s"), %s;' % (
                requires_grad_expr(undiff), op.name, undiff[0].name, fail_value(op)))
        diff = diff_inputs(op)
        o += dispatch(op, op.impl)
        o.append('    bool rg_ = %s;' % requires_grad_expr(diff))
        if k == 'tensor':
            o.append('    wk_tensor *r = k_(%s);' % call_args(op))
            o.append('    if (!r) return NULL;')
            if op.view:
                o.append('    wk__mark_view(r, self);')
            o += emit_fw(op, opnames)
            o.append('    if (!rg_) return r;')
            ins = [cident(p.name) for p in op.cparams if p.type in ('Tensor', 'Tensor?')]
            if ins and not op.view:  # Note [An op returning its input]
                o.append('    if (%s) return r;' % ' || '.join('r == %s' % a for a in ins))
            o.append('    {')
            o += emit_record(op, fields, 'r', '        ')
            o.append('        wk__set_history(r, &n->base, 0);')
            o.append('        wk__node_release(&n->base);')
            o.append('        return r;')
            o.append('    fail_node:')
            o.append('        wk__node_release(&n->base);')
            o.append('    }')
            o.append('fail:')
            o.append('    wk_release(r);')
            o.append('    return NULL;')
        elif k == 'tuple':
            nr = len(op.rets)
            o.append('    if (k_(%s, outs) < 0) return -1;' % call_args(op))
            if op.view:
                o.append('    for (int i_ = 0; i_ < %d; i_++) wk__mark_view(outs[i_], self);' % nr)
            fwc = emit_fw(op, opnames, tuple_out=True)
            o += fwc
            o.append('    if (!rg_) return 0;')
            o.append('    {')
            o += emit_record(op, fields, None, '        ')
            ins = [cident(p.name) for p in op.cparams if p.type in ('Tensor', 'Tensor?')]
            alias = ''.join(' && outs[i_] != %s' % a for a in ins) if not op.view else ''  # Note [An op returning its input]
            skip = ''.join(' && i_ != %d' % i for i, r in enumerate(op.rets) if r.name in op.nondiff_outputs)
            o.append('        for (int i_ = 0; i_ < %d; i_++)' % nr)
            o.append('            if (wk_dtype_is_floating(outs[i_]->dtype)%s%s) wk__set_history(outs[i_], &n->base, (uint32_t)i_);' % (alias, skip))
            o.append('        wk__node_release(&n->base);')
            o.append('        return 0;')
            o.append('    fail_node:')
            o.append('        wk__node_release(&n->base);')
            o.append('    }')
            o.append('fail:')
            if fwc:
                o.append('fw_fail_:')
            o.append('    for (int i_ = 0; i_ < %d; i_++) { wk_release(outs[i_]); outs[i_] = NULL; }' % nr)
            o.append('    return -1;')
        elif k == 'tensorlist':
            lin = op.jvp == 'linear' and len([p for p in diff if p.type == 'Tensor']) == 1 and len(diff) == 1
            if op.jvp != 'none' and not lin:
                o += fw_refuse_line(op, diff, op.name, '(wk_tensorvec){NULL, 0}')
            o.append('    wk_tensorvec v = k_(%s);' % call_args(op))
            o.append('    if (!v.data) return v;')
            if lin:  # one tangent per output: the op on the input's tangent
                p = diff[0]
                o.append('    if (wk__fw_get(%s)) {' % cident(p.name))
                o.append('        uint64_t fwl_ = wk__fw_level; wk__fw_level = 0;')
                o.append('        wk_tensorvec tv_ = wk_%s(%s);' % (op.cname, call_args(op, {p.name: 'wk__fw_get_at(%s, fwl_)' % cident(p.name)})))
                o.append('        wk__fw_level = fwl_;')
                o.append('        int frc_ = tv_.data && tv_.len == v.len ? 0 : -1;')
                o.append('        for (int64_t i_ = 0; frc_ == 0 && i_ < v.len; i_++) frc_ = wk__fw_set(v.data[i_], tv_.data[i_]);')
                o.append('        if (tv_.data) wk_tensorvec_free(tv_);')
                o.append('        if (frc_ < 0) { wk_tensorvec_free(v); return (wk_tensorvec){NULL, 0}; }')
                o.append('    }')
            if op.view:
                o.append('    for (int64_t i_ = 0; i_ < v.len; i_++) wk__mark_view_multi(v.data[i_], self);')
            o.append('    if (!rg_) return v;')
            o.append('    {')
            o += emit_record(op, fields, None, '        ')
            o.append('        for (int64_t i_ = 0; i_ < v.len; i_++) wk__set_history(v.data[i_], &n->base, (uint32_t)i_);')
            o.append('        wk__node_release(&n->base);')
            o.append('        return v;')
            o.append('    fail_node:')
            o.append('        wk__node_release(&n->base);')
            o.append('    }')
            o.append('fail:')
            o.append('    wk_tensorvec_free(v);')
            o.append('    return (wk_tensorvec){NULL, 0};')
        else:
            raise ValueError('%s: differentiable op must return tensors' % op.where)
        o.append('}')

    # ---- in-place: compute out of place, then write into self (Note [In-place ops] in ops/README.md) ----
    if 'inplace' in op.variants:
        assert k == 'tensor', op.schema
        o.append('%s {' % proto(op, '_'))
        o += arg_null_checks(op)
        if op.fields.get('inplace_check'):  # a C expression (int, < 0 = error set) over the arguments
            o.append('    if ((%s) < 0) return NULL;' % op.fields['inplace_check'])
        o += fw_refuse_line(op, fw_inputs(op), op.name + '_', 'NULL')
        diff = diff_inputs(iop) if op.differentiable else []
        uses_self = any('self' in formula_names(f) for f in iop.formulas.values()) if op.differentiable else False
        o.append('    bool rg_ = %s;' % (requires_grad_expr(diff) if diff else 'false'))
        if op.differentiable:
            o.append('    if (!rg_ && wk__grad_enabled() && self->is_view && self->view_base && wk__tensor_requires_grad(self->view_base)) rg_ = true;')
        o.append('    if (wk__check_inplace_rg(self, rg_) < 0) return NULL;')
        o += overlap_check(op, 'self')
        if op.fields.get('inplace_impl'):
            o += dispatch(op, op.fields['inplace_impl'], 'inplace', outputs=('self',))
        else:
            o += dispatch(op, op.impl, 'inplace', outputs=('self',))
        if uses_self:  # the formulas need self as it was before the write: keep a (recorded) copy
            users = [p for p in diff if 'self' in formula_names(iop.formulas.get(p.name, ''))]
            cond = ' || '.join('wk__tensor_requires_grad(%s)' % cident(p.name) for p in users) or 'true'
            o.append('    wk_tensor *self_orig = rg_ && (%s) ? wk_clone(self) : NULL;' % cond)
            o.append('    if (rg_ && (%s) && !self_orig) return NULL;' % cond)
        o.append('    wk_tensor *r = NULL;')
        if op.differentiable:
            o.append('    uint32_t v0_ = self->version->version; /* for the saved inputs: wk__saved_rewind */')
        rel = ' wk_release(self_orig);' if uses_self else ''
        if op.fields.get('inplace_impl'):  # a kernel that writes into self (no out-of-place result and copy-back)
            o.append('    {')
            o.append('        bool prev_ = wk_set_grad_enabled(false);')
            o.append('        int rc_ = k_(%s);' % call_args(op))
            o.append('        wk_set_grad_enabled(prev_);')
            o.append('        if (rc_ < 0) {%s return NULL; }' % rel)
            o.append('    }')
            o.append('    wk__bump_version(self);')
            o.append('    r = wk_retain(self);')
        else:
            o.append('    {')
            o.append('        bool prev_ = wk_set_grad_enabled(false);')
            if op.fields.get('writes_dest'):  # Note [Writing into the destination] (src/ops/ops_support.h)
                o.append('        wk__set_dest(self);')
            if is_iter_op(op):  # Note [Checks before the kernel] (src/ops/ops_support.h)
                o.append('        wk__set_write_target(self, true);')
            o.append('        r = k_(%s);' % call_args(op))
            if op.fields.get('writes_dest'):
                o.append('        wk__set_dest(NULL);')
            if is_iter_op(op):
                o.append('        wk__set_write_target(NULL, false);')
            o.append('        wk_set_grad_enabled(prev_);')
            o.append('    }')
            o.append('    if (!r) {%s return NULL; }' % rel)
            o.append('    if (wk__write_inplace(self, r, "%s") < 0) { wk_release(r);%s return NULL; }' % (op.name, rel))
        if op.differentiable:
            o.append('    if (!rg_) { wk_release(r); return wk_retain(self); }')
            o.append('    wk_release(r);')
            o.append('    r = wk_retain(self);')
            o.append('    {')
            o += emit_record(iop, ifields, 'self', '        ', self_var='self_orig' if uses_self else None, written='self',
                             vt_suffix='_inplace' if iop.fields.get('inplace_node') else '')
            o.append('        if (wk__rebase_history(self, &n->base) < 0) { wk__node_release(&n->base); goto fail; }')
            o.append('        wk__node_release(&n->base);%s' % rel)
            o.append('        return r;')
            o.append('    fail_node:')
            o.append('        wk__node_release(&n->base);')
            o.append('    }')
            o.append('fail:')
            o.append('    wk_release(r);%s' % rel)
            o.append('    return NULL;')
        else:
            o.append('    wk_release(r);')
            o.append('    return wk_retain(self);')
        o.append('}')

    # ---- out= ----
    if 'out' in op.variants and k == 'tuple':
        # out=(values, indices): each result must match its out tensor's dtype exactly (torch's check), then is
        # written into it (resized when needed)
        nr = len(op.rets)
        o.append('%s {' % proto(op, '_out', with_out=True))
        o.append('    for (int i_ = 0; i_ < %d; i_++)' % nr)
        o.append('        if (!out || !out[i_]) return wk__null_arg("%s", "out"), -1;' % op.name)
        o += arg_null_checks(op)
        if tens_inputs:
            o.append('    bool rg_ = false;')
            o.append('    for (int i_ = 0; i_ < %d; i_++) rg_ |= wk__tensor_requires_grad(out[i_]);' % nr)
            o.append('    if (wk__grad_enabled() && (rg_ || %s)) {' % ' || '.join(
                'wk__list_requires_grad(%s)' % cident(p.name) if p.type == 'Tensor[]' else 'wk__tensor_requires_grad(%s)' % cident(p.name)
                for p in tens_inputs))
            o.append('        wk__error(WK_RUNTIME_ERROR, "%s(): functions with out=... arguments don\'t support automatic '
                     'differentiation, but one of the arguments requires grad.");' % op.name)
            o.append('        return -1;')
            o.append('    }')
        outs = ['out[%d]' % i for i in range(nr)]
        if op.out_impl:  # the op checks out's dtypes itself, in torch's order among its other checks, and writes it
            o += dispatch(op, op.impl + '_out', 'out', outputs=outs)
            o.append('    return k_(%s);' % ', '.join(['out'] + ([call_args(op)] if op.cparams else [])))
            o.append('}')
            return '\n'.join(o)
        o += dispatch(op, op.impl, 'out', outputs=outs)
        o.append('    wk_tensor *r_[%d] = {0};' % nr)
        o.append('    if (k_(%s) < 0) return -1;' % ', '.join(filter(None, [call_args(op), 'r_'])))
        o.append('    int rc_ = wk__check_out_dtypes(out, r_, %d);' % nr)
        o.append('    for (int i_ = 0; i_ < %d && rc_ == 0; i_++) rc_ = wk__write_out(out[i_], r_[i_]);' % nr)
        o.append('    for (int i_ = 0; i_ < %d; i_++) wk_release(r_[i_]);' % nr)
        o.append('    return rc_;')
        o.append('}')
    elif 'out' in op.variants:
        assert k == 'tensor', op.schema
        o.append('%s {' % proto(op, '_out', with_out=True))
        o.append('    if (!out) return wk__null_arg("%s", "out"), NULL;' % op.name)
        o += arg_null_checks(op)
        o += fw_refuse_line(op, fw_inputs(op), op.name, 'NULL', extra=('out',))
        if tens_inputs:
            o.append('    if (wk__grad_enabled() && (wk__tensor_requires_grad(out) || %s))' % ' || '.join(
                'wk__list_requires_grad(%s)' % cident(p.name) if p.type == 'Tensor[]' else 'wk__tensor_requires_grad(%s)' % cident(p.name)
                for p in tens_inputs))
            o.append('        return WK_FAIL(WK_RUNTIME_ERROR, "%s(): functions with out=... arguments don\'t support automatic '
                     'differentiation, but one of the arguments requires grad.");' % op.name)
        o += overlap_check(op, 'out')
        if op.out_impl:
            o += dispatch(op, op.impl + '_out', 'out', outputs=('out',))
            o.append('    return k_(%s);' % ', '.join(['out'] + ([call_args(op)] if op.cparams else [])))
            o.append('}')
            return '\n'.join(o)
        if not tens_inputs and any(p.name == 'dtype' and p.type == 'ScalarType?' for p in op.cparams):
            # factories with out=: the result takes out's dtype unless one is given (torch.zeros(2, out=t))
            o.append('    if (dtype == WK_DTYPE_NONE) dtype = out->dtype;')
        o += dispatch(op, op.impl, 'out', outputs=('out',))
        if op.fields.get('writes_dest'):  # Note [Writing into the destination] (src/ops/ops_support.h)
            assert not op.out_check, op.where
            o.append('    wk__set_dest(out);')
        if is_iter_op(op) and not op.out_check:  # Note [Checks before the kernel] (src/ops/ops_support.h)
            o.append('    wk__set_write_target(out, false);')
        o.append('    wk_tensor *r = k_(%s);' % call_args(op))
        if op.fields.get('writes_dest'):
            o.append('    wk__set_dest(NULL);')
        if is_iter_op(op) and not op.out_check:
            o.append('    wk__set_write_target(NULL, false);')
        o.append('    if (!r) return NULL;')
        if op.out_check:  # the op's own rule for out's dtype (most linalg ops want it exact)
            o.append('    if (%s(out, r) < 0) { wk_release(r); return NULL; }' % op.out_check)
        o.append('    int rc_ = wk__write_out(out, r);')
        o.append('    wk_release(r);')
        o.append('    return rc_ < 0 ? NULL : wk_retain(out);')
        o.append('}')
    return '\n'.join(o)


def emit_ops_c(ops):
    opnames = {op.cname for op in ops}
    o = [HEADER, '#include "ops/ops_support.h"\n']
    for op in ops:
        o.append(emit_wrappers(op, opnames))
        o.append('')
    o.append(emit_cpu_kernels(ops))
    return '\n'.join(o) + '\n'


# ---------------------------------------------------------------------------------------------------------------
# Python bindings

PYKIND = {
    'Tensor': 'PT_TENSOR', 'Tensor?': 'PT_OPT_TENSOR', 'Tensor[]': 'PT_TENSORLIST', 'Tensor?[]': 'PT_OPT_TENSORLIST',
    'Scalar': 'PT_SCALAR', 'Scalar?': 'PT_OPT_SCALAR', 'int': 'PT_INT', 'int?': 'PT_OPT_INT', 'int[]': 'PT_INTLIST',
    'int[]?': 'PT_OPT_INTLIST', 'float': 'PT_FLOAT', 'float?': 'PT_OPT_FLOAT', 'bool': 'PT_BOOL', 'bool?': 'PT_OPT_BOOL',
    'str': 'PT_STR', 'str?': 'PT_OPT_STR', 'ScalarType': 'PT_DTYPE', 'ScalarType?': 'PT_OPT_DTYPE',
    'Generator?': 'PT_GENERATOR', 'Device?': 'PT_DEVICE', 'Layout?': 'PT_LAYOUT', 'MemoryFormat?': 'PT_MEMFMT',
    'Device': 'PT_DEVICE', 'MemoryFormat': 'PT_MEMFMT', 'Layout': 'PT_LAYOUT', 'float[]': 'PT_FLOATLIST', 'float[]?': 'PT_OPT_FLOATLIST',
}

PYFIELD = {
    'PT_TENSOR': 't', 'PT_OPT_TENSOR': 't', 'PT_TENSORLIST': 'tl', 'PT_OPT_TENSORLIST': 'otl', 'PT_SCALAR': 's',
    'PT_OPT_SCALAR': 's', 'PT_INT': 'i', 'PT_OPT_INT': 'oi', 'PT_INTLIST': 'il', 'PT_OPT_INTLIST': 'il',
    'PT_FLOAT': 'f', 'PT_OPT_FLOAT': 'of', 'PT_BOOL': 'b', 'PT_OPT_BOOL': 'ob', 'PT_STR': 'str', 'PT_OPT_STR': 'str',
    'PT_DTYPE': 'dt', 'PT_OPT_DTYPE': 'dt', 'PT_GENERATOR': 'gen', 'PT_FLOATLIST': 'fl', 'PT_OPT_FLOATLIST': 'fl',
}


def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def py_signature_entries(op, method):
    """Params as the Python parser sees them: for functions a Tensor self is called `input` (a Scalar self keeps its
    name: `pow(Number self, Tensor exponent)`); methods drop self."""
    ps = []
    for p in op.params:
        if method and p.name == 'self':
            continue
        name = 'input' if (p.name == 'self' and not method and p.type.startswith('Tensor')) else p.name
        ps.append((name, p))
    return ps


def is_dunder(name):
    return name.startswith('__') and name.endswith('__')


TENSOR_OPTIONS = ('dtype', 'layout', 'device', 'pin_memory', 'requires_grad')


def out_position(ps):
    """Where torch's Python signatures put `Tensor out=None`: before the keyword-only TensorOptions arguments
    (dtype, layout, device, pin_memory, requires_grad) of a factory, else last."""
    for i, (name, p) in enumerate(ps):
        if p.kwonly and name in TENSOR_OPTIONS:
            return i
    return len(ps)


def py_bindings(ops):
    """The Python names every op is bound under: {(kind, pyname): [(op, variant)]}, kind one of function,
    nnfunction (torch._C._nn), linalgfunction (torch._C._linalg), method; read by emit_py and emit_ops_json."""
    groups = {}  # (kind, pyname) -> [(op, variant)]
    for op in ops:
        if 'c' in op.variants:  # C-only helpers (also `c inplace`: a C-only in-place op) get no Python binding
            continue
        # torch._C._nn.<name> / torch._C._linalg.<name>
        fkind = {'nn': 'nnfunction', 'linalg': 'linalgfunction'}.get(op.fields.get('python_module'), 'function')
        for pyname in op.python:
            if 'function' in op.variants:
                groups.setdefault((fkind, pyname), []).append((op, 'function'))
            if 'method' in op.variants:
                groups.setdefault(('method', pyname), []).append((op, 'method'))
            if 'inplace' in op.variants:
                groups.setdefault(('method', pyname + '_'), []).append((op, 'inplace'))
                if 'function_inplace' in op.fields.get('extra', ''):
                    groups.setdefault((fkind, pyname + '_'), []).append((op, 'inplace'))
        # extra Python method names: `python_method` (e.g. __mod__ __rand__), `python_inplace` (e.g. __imod__)
        for pyname in op.fields.get('python_method', '').split():
            groups.setdefault(('method', pyname), []).append((op, 'method'))
        for pyname in op.fields.get('python_inplace', '').split():
            groups.setdefault(('method', pyname), []).append((op, 'inplace'))
    return groups


def emit_py(ops):
    o = [HEADER, '#include "pyext.h"\n']
    groups = py_bindings(ops)  # signatures grouped by python name, separately for functions and methods
    sig_id = 0
    funcs = []
    for (kind, pyname), entries in sorted(groups.items()):
        method = kind == 'method'
        sigs = []
        for op, variant in entries:
            ps = py_signature_entries(op, method)
            with_out = variant == 'function' and 'out' in op.variants
            arr = 'P%d' % sig_id
            sig_id += 1
            o.append('static const wk_param %s[] = {' % arr)
            out_at = out_position(ps) if with_out else -1
            for i, (name, p) in enumerate(ps + [(None, None)]):
                if i == out_at:
                    o.append('    {"out", %s, 0, 1, "None"},' % ('PT_OPT_TENSORLIST' if op.ret_kind == 'tuple' else 'PT_OPT_TENSOR'))
                if p is None:
                    break
                dflt = 'NULL' if p.default is None else c_str(p.default)
                o.append('    {%s, %s, %d, %d, %s},' % (c_str(name), PYKIND[p.type], p.list_size, int(p.kwonly), dflt))
            o.append('    {NULL, 0, 0, 0, NULL}};')
            sigs.append((op, variant, arr, ps, with_out))
        fname = 'py_%s_%s' % (kind[0], pyname)
        o.append('static wk_sig S_%s[] = {' % fname)
        for op, variant, arr, ps, with_out in sigs:
            o.append('    {%s, %s, %d, %d},' % (c_str(pyname), arr, int(method), int(op.wrap_numbers)))
        o.append('    {NULL, NULL, 0, 0}};')
        # dispatcher
        o.append('static PyObject *%s(PyObject *self_, PyObject *args, PyObject *kwargs) {' % fname)
        o.append('    (void)self_;')
        o.append('    wk_pyval a[WK_PY_MAXARGS];')
        o.append('    wk_argscope sc_ = {0};')
        o.append('    int sig = wk_parse_args(S_%s, %s, args, kwargs, a, &sc_);' % (fname, 'self_' if method else 'NULL'))
        # binary dunders answer NotImplemented to a TypeError, as torch's TypeError_to_NotImplemented_ (x == None)
        binary_dunder = method and is_dunder(pyname) and all(len(sg[3]) >= 1 for sg in sigs)
        if binary_dunder:
            o.append('    if (sig < 0 && PyErr_ExceptionMatches(PyExc_TypeError)) { PyErr_Clear(); Py_RETURN_NOTIMPLEMENTED; }')
        o.append('    if (sig < 0) return sig == WK_PARSE_HOOKED ? sc_.hooked : NULL;  /* WK_PARSE_HOOKED: vmap (pyext/vmap.c) */')
        o.append('    PyObject *res = NULL;')
        o.append('    switch (sig) {')
        for si, (op, variant, arr, ps, with_out) in enumerate(sigs):
            o.append('    case %d: {' % si)
            # map python positions to C args
            pos = {}
            idx = 0
            out_at = out_position(ps) if with_out else -1
            if method:
                pos['self'] = '(sc_.self ? sc_.self : wk_py_self(self_))'
            for i, (name, p) in enumerate(ps):
                if i == out_at:
                    idx += 1
                pos[p.name] = 'a[%d].%s' % (idx, PYFIELD.get(PYKIND[p.type], 'obj'))
                idx += 1
            if with_out:
                idx = out_at  # where `out` sits among the parsed arguments
            cargs = [pos[p.name] for p in op.cparams]
            k = op.ret_kind
            suffix = '_' if variant == 'inplace' else ''
            if with_out and k == 'tuple':  # out=(t1, t2): returns torch.return_types.<name>_out of those tensors
                nr = len(op.rets)
                o.append('        if (a[%d].otl.data) {' % idx)
                o.append('            if (a[%d].otl.len != %d) {' % (idx, nr))
                o.append('                PyErr_Format(PyExc_TypeError, "expected tuple of %d elements but got %%d", (int)a[%d].otl.len);' % (nr, idx))
                o.append('                break;')
                o.append('            }')
                o.append('            wk_tensor *o_[%d];' % nr)
                o.append('            for (int i_ = 0; i_ < %d; i_++) o_[i_] = (wk_tensor *)a[%d].otl.data[i_];' % (nr, idx))
                o.append('            if (wk_%s_out(%s) < 0) { res = wk_py_raise(); break; }' % (op.cname, ', '.join(['o_'] + cargs)))
                o.append('            for (int i_ = 0; i_ < %d; i_++) wk_retain(o_[i_]);' % nr)
                if all(r.name for r in op.rets):
                    o.append('            res = wk_py_wrap_named(%s, o_, %d);' % (c_str(op.fields.get('return_type', op.name) + '_out'), nr))
                else:
                    o.append('            res = wk_py_wrap_tuple(o_, %d);' % nr)
                o.append('            break;')
                o.append('        }')
            elif with_out:
                o.append('        if (a[%d].t) {' % idx)
                o.append('            res = wk_py_wrap(wk_%s_out(%s));' % (op.cname, ', '.join(['a[%d].t' % idx] + cargs)))
                o.append('            break;')
                o.append('        }')
            if variant == 'inplace':
                o.append('        wk_tensor *r = wk_%s_(%s);' % (op.cname, ', '.join(cargs)))
                # torch.f_(x, ...) (function_inplace) returns its first argument's Python object
                o.append('        res = r ? wk_py_wrap_inplace(%s, r) : wk_py_raise();' % ('self_' if method else 'a[0].obj'))
            elif k == 'tensor':
                o.append('        res = wk_py_wrap(wk_%s(%s));' % (op.cname, ', '.join(cargs)))
            elif k == 'tensorlist':
                o.append('        res = wk_py_wrap_vec(wk_%s(%s));' % (op.cname, ', '.join(cargs)))
            elif k == 'tuple':
                names = [r.name for r in op.rets]
                o.append('        wk_tensor *outs[%d] = {0};' % len(op.rets))
                o.append('        if (wk_%s(%s) < 0) { res = wk_py_raise(); break; }' % (op.cname, ', '.join(cargs + ['outs'])))
                if all(names):
                    o.append('        res = wk_py_wrap_named(%s, outs, %d);' % (c_str(op.fields.get('return_type', op.name)), len(op.rets)))
                else:
                    o.append('        res = wk_py_wrap_tuple(outs, %d);' % len(op.rets))
            elif k == 'none':  # `-> ()`: a C status, None in Python
                o.append('        res = wk_%s(%s) < 0 ? wk_py_raise() : Py_NewRef(Py_None);' % (op.cname, ', '.join(cargs)))
            else:
                ct = {'scalar': 'wk_scalar', 'bool': 'bool', 'int': 'int64_t', 'float': 'double', 'dtype': 'wk_dtype'}[k]
                o.append('        %s out_;' % ct)
                o.append('        if (wk_%s(%s) < 0) { res = wk_py_raise(); break; }' % (op.cname, ', '.join(cargs + ['&out_'])))
                o.append('        res = wk_py_from_%s(out_);' % k)
            o.append('        break;')
            o.append('    }')
        o.append('    }')
        o.append('    wk_argscope_free(&sc_);')
        o.append('    res = wk_py_flush_warnings(res);')
        if binary_dunder:
            o.append('    if (!res && PyErr_ExceptionMatches(PyExc_TypeError)) { PyErr_Clear(); Py_RETURN_NOTIMPLEMENTED; }')
        o.append('    return res;')
        o.append('}')
        funcs.append((kind, pyname, fname))
    o.append('PyMethodDef wk_generated_functions[] = {')
    for kind, pyname, fname in funcs:
        if kind == 'function':
            o.append('    {%s, (PyCFunction)(void (*)(void))%s, METH_VARARGS | METH_KEYWORDS, NULL},' % (c_str(pyname), fname))
    o.append('    {NULL, NULL, 0, NULL}};')
    o.append('PyMethodDef wk_generated_nn_functions[] = {')
    for kind, pyname, fname in funcs:
        if kind == 'nnfunction':
            o.append('    {%s, (PyCFunction)(void (*)(void))%s, METH_VARARGS | METH_KEYWORDS, NULL},' % (c_str(pyname), fname))
    o.append('    {NULL, NULL, 0, NULL}};')
    o.append('PyMethodDef wk_generated_linalg_functions[] = {')
    for kind, pyname, fname in funcs:
        if kind == 'linalgfunction':
            o.append('    {%s, (PyCFunction)(void (*)(void))%s, METH_VARARGS | METH_KEYWORDS, NULL},' % (c_str(pyname), fname))
    o.append('    {NULL, NULL, 0, NULL}};')
    o.append('PyMethodDef wk_generated_methods[] = {')
    for kind, pyname, fname in funcs:
        if kind == 'method':  # dunder methods replace the number-protocol slot wrappers (METH_COEXIST)
            o.append('    {%s, (PyCFunction)(void (*)(void))%s, METH_VARARGS | METH_KEYWORDS%s, NULL},'
                     % (c_str(pyname), fname, ' | METH_COEXIST' if is_dunder(pyname) else ''))
    o.append('    {NULL, NULL, 0, NULL}};')
    o += emit_vmap_pointwise(groups)
    return '\n'.join(o) + '\n'


VMAP_POINTWISE_FILES = ('unary.def', 'pointwise.def', 'compare.def', 'nn_act.def')
VMAP_NOT_POINTWISE = ('prelu', '_prelu_kernel')  # a weight broadcast over dim 1, not from the right


def emit_vmap_pointwise(groups):
    """Note [vmap]: the Python names whose every signature is an elementwise op of the table (unary / pointwise /
    compare families, one Tensor result, no dim or list argument): vmap's pointwise batching rule serves them
    (wick/func/_vmap.py reads the list through _C._vmap_pointwise())."""
    def elementwise(op):
        return (os.path.basename(op.where.rsplit(':', 1)[0]) in VMAP_POINTWISE_FILES and len(op.rets) == 1
                and op.name not in VMAP_NOT_POINTWISE
                and op.rets[0].type == 'Tensor' and not any(p.name == 'dim' or p.type.endswith('[]') or
                                                            p.type.endswith('[]?') for p in op.params))
    names = sorted({pyname for (kind, pyname), entries in groups.items() if all(elementwise(op) for op, _ in entries)})
    return ['const char *const wk_generated_vmap_pointwise[] = {'] + ['    %s,' % c_str(n) for n in names] + \
        ['    NULL};']


def emit_ops_json(ops):
    """Note [ops.json]: every op of the table as data: its schema and names, parameters (the C ones and the
    Python-only ones: device, layout, ...), results, variants, the kernels' op ids (Note [Device table]), autograd
    (node name, which inputs are differentiable), and the Python bindings grouped as py_ops.c binds them
    (`bindings`: kind -> name -> the signatures tried in order, as op index and variant). tests/test_ops_json.py
    checks it against the names wick._C binds."""
    ids = {name: i for i, (name, _) in enumerate(kernels(ops))}
    index = {id(op): i for i, op in enumerate(ops)}
    out = []
    for op in ops:
        kern = {'function': op.impl}
        if op.out_impl:
            kern['out'] = op.impl + '_out'
        if op.fields.get('inplace_impl'):
            kern['inplace'] = op.fields['inplace_impl']
        out.append({
            'schema': op.schema, 'name': op.name, 'overload': op.overload, 'c': 'wk_' + op.cname,
            'python': op.python, 'python_module': op.fields.get('python_module', ''),
            'python_method': op.fields.get('python_method', '').split(),
            'python_inplace': op.fields.get('python_inplace', '').split(),
            'variants': sorted(op.variants),
            'params': [{'name': p.name, 'type': p.type, 'default': p.default, 'kwonly': p.kwonly,
                        'python_only': p.pyonly, 'list_size': p.list_size} for p in op.params],
            'returns': [{'name': r.name, 'type': r.type} for r in op.rets],
            'kernels': {v: {'impl': 'wk_impl_' + k, 'op_id': ids[k]} for v, k in kern.items()},
            'view': op.view, 'wrap_numbers': op.wrap_numbers,
            'autograd': op.autograd, 'node': op.node_name if op.differentiable else None,
            'differentiable': sorted(op.formulas) + (['grads'] if op.multi_formula else []),
            'dtypes': op.dtypes, 'doc': op.doc,
        })
    bindings = {}
    for (kind, pyname), entries in sorted(py_bindings(ops).items()):
        bindings.setdefault(kind, {})[pyname] = [{'op': index[id(op)], 'variant': v} for op, v in entries]
    return json.dumps({'format': 1, 'num_op_ids': len(ids), 'ops': out, 'bindings': bindings}, sort_keys=True,
                      separators=(',', ':')) + '\n'


def emit_pyi(ops):
    o = ['# Generated by tools/gen.py from ops/<name>.def. Do not edit.', 'from typing import Any', '']
    for op in ops:
        if 'function' in op.variants:
            for pyname in op.python:
                args = ', '.join(('input' if p.name == 'self' and p.type.startswith('Tensor') else p.name) + ': Any' + ('' if p.default is None else ' = ...')
                                 for p in op.params)
                o.append('def %s(%s) -> Any: ...  # %s' % (pyname, args, op.schema))
    return '\n'.join(o) + '\n'


def emit_md(ops):
    o = ['# Ops in the op table', '', 'Generated by `python3 tools/gen.py` from `ops/<name>.def`.', '',
         '| schema | variants | derivative of | dtypes |', '|---|---|---|---|']
    for op in ops:
        d = ', '.join(sorted(op.formulas)) if op.differentiable else ('manual' if op.autograd == 'manual' else '-')
        o.append('| `%s` | %s | %s | %s |' % (op.schema.replace('|', '\\|'), ' '.join(sorted(op.variants)), d, op.dtypes or 'all'))
    return '\n'.join(o) + '\n'


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, 'w') as f:
        f.write(text)


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(ROOT, 'build', 'gen')
    os.makedirs(out, exist_ok=True)
    ops_dir = os.path.join(ROOT, 'ops')
    paths = sorted(os.path.join(ops_dir, f) for f in os.listdir(ops_dir) if f.endswith('.def'))
    ops = read_table(paths)
    write_if_changed(os.path.join(out, 'wick_ops.h'), emit_public_header(ops))
    write_if_changed(os.path.join(out, 'ops_impl.h'), emit_impl_header(ops))
    write_if_changed(os.path.join(out, 'ops.c'), emit_ops_c(ops))
    write_if_changed(os.path.join(out, 'py_ops.c'), emit_py(ops))
    write_if_changed(os.path.join(out, 'wick_ops.pyi'), emit_pyi(ops))
    write_if_changed(os.path.join(out, 'ops.md'), emit_md(ops))
    write_if_changed(os.path.join(out, 'ops.json'), emit_ops_json(ops))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

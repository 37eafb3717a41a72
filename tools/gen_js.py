"""Generates the JS API's op surface from the op signatures (build/gen/ops.json, written by tools/gen.py).

    python3 tools/gen_js.py build/gen/ops.json OUTDIR

writes OUTDIR/ops.mjs (the op table as data, one exported function per torch function, Tensor methods, the
linalg and _nn namespaces) and OUTDIR/ops.d.ts (their TypeScript declarations). Names are camelCase
(log_softmax -> logSoftmax, masked_fill_ -> maskedFill_); keyword arguments go in a trailing options object,
under their camelCase names (keepdim, requiresGrad, out). Nothing here is edited by hand: change this script.
"""
import json
import os
import re
import sys

# Tensor members core.mjs defines by hand (lifetime, data, autograd): a generated method never shadows them.
CORE_MEMBERS = {'size', 'dim', 'ndim', 'item', 'tolist', 'toString', 'backward', 'dispose', 'keep', 'kept', 'shape',
                'dtype', 'grad', 'requiresGrad', 'requiresGrad_', 'isLeaf', 'gradFn', 'handle', 'toArray',
                'toTypedArray', 'strides', 'isContiguous', 'isDisposed', 'constructor', 'numel', 'nelement', 'ndimension',
                'stride', 'elementSize', 'isFloatingPoint', 'float', 'double', 'half', 'bfloat16', 'long', 'int', 'short',
                'char', 'byte', 'bool', 'get', 'set'}
JS_RESERVED = {'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
               'export', 'extends', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'return',
               'super', 'switch', 'this', 'throw', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield', 'let',
               'static', 'enum', 'await', 'implements', 'package', 'protected', 'interface', 'private', 'public',
               'null', 'true', 'false', 'arguments', 'eval'}


def camel(name):
    trail = '_' if name.endswith('_') and not name.endswith('__') else ''
    core = name[:-1] if trail else name
    parts = core.split('_')
    return parts[0] + ''.join(p[:1].upper() + p[1:] for p in parts[1:]) + trail


def parse_default(text, typ):
    """The schema default as a JS value (None -> null); float Scalars as {float: x} (JS has one number type)."""
    if text is None:
        return 'undefined'
    t = text.strip()
    if t == 'None' or t in ('contiguous_format', 'preserve_format', 'strided'):
        return 'null'
    if t in ('True', 'False'):
        return t.lower()
    if t == 'long':
        return json.dumps('int64')
    if t[:1] in '"\'':
        return json.dumps(t[1:-1])
    if t.startswith('['):
        items = [x for x in t[1:-1].split(',') if x.strip()]
        return '[' + ', '.join(parse_default(x, typ.rstrip('[]?')) for x in items) + ']'
    if re.fullmatch(r'-?\d+', t):
        return t
    if re.fullmatch(r'-?(\d+\.\d*|\.\d+|\d+)(e[-+]?\d+)?', t) or t in ('inf', '-inf', 'nan'):
        v = float(t)
        num = repr(v) if v == v and abs(v) != float('inf') else ('NaN' if v != v else ('Infinity' if v > 0 else '-Infinity'))
        return '{float: %s}' % num if typ.startswith('Scalar') else num
    raise SystemExit('gen_js: cannot translate default %r (%s)' % (text, typ))


def ret_kind(op):
    rs = [r['type'] for r in op['returns']]
    if not rs:
        return 'none', 0, None
    if rs == ['Tensor']:
        return 'tensor', 1, None
    if rs == ['Tensor[]']:
        return 'tensorlist', 0, None
    if all(r == 'Tensor' for r in rs):
        return 'tuple', len(rs), [r['name'] for r in op['returns']]
    kinds = {'bool': 'bool', 'int': 'int', 'float': 'float', 'ScalarType': 'dtype', 'Scalar': 'scalar'}
    if len(rs) == 1 and rs[0] in kinds:
        return kinds[rs[0]], 1, None
    raise SystemExit('gen_js: no JS return for %s' % op['schema'])


TS_TYPE = {
    'Tensor': 'Tensor', 'Tensor?': 'Tensor | null', 'Tensor[]': 'Tensor[]', 'Tensor?[]': '(Tensor | null)[]',
    'Scalar': 'Scalar', 'Scalar?': 'Scalar | null', 'int': 'number', 'int?': 'number | null',
    'int[]': 'number[] | number', 'int[]?': 'number[] | number | null', 'float': 'number', 'float?': 'number | null',
    'float[]': 'number[] | number', 'float[]?': 'number[] | number | null', 'bool': 'boolean', 'bool?': 'boolean | null',
    'str': 'string', 'str?': 'string | null', 'ScalarType': 'DType', 'ScalarType?': 'DType | null',
    'Generator?': 'Generator | null', 'Device?': "'cpu' | null", 'Layout?': 'null', 'MemoryFormat?': 'null',
    'Device': "'cpu'", 'Layout': 'null', 'MemoryFormat': 'null',
}
TS_RET = {'tensor': 'Tensor', 'tensorlist': 'Tensor[]', 'tuple': 'Tensor[]', 'bool': 'boolean', 'int': 'number',
          'float': 'number', 'dtype': 'DType', 'scalar': 'number | boolean', 'none': 'void'}


def main(src, outdir):
    d = json.load(open(src))
    if d.get('format') != 1:
        raise SystemExit('gen_js: unknown ops.json format %r' % d.get('format'))
    ops = d['ops']
    used = set()
    for g in d['bindings'].values():
        for lst in g.values():
            used.update(e['op'] for e in lst)
    out = ['// Generated by tools/gen_js.py from build/gen/ops.json. Do not edit.',
           "import { Tensor, callOp } from './core.mjs';", '',
           '// One entry per op overload: C name, return kind, parameters [name, jsName, type, default, kwonly,',
           '// python_only, list_size], whether an out= variant exists, the schema (for error messages).',
           'const OPS = [];']
    ts_ops = {}
    for i in sorted(used):
        op = ops[i]
        kind, nret, fields = ret_kind(op)
        params = []
        for p in op['params']:
            params.append('[%s, %s, %s, %s, %d, %d, %d]' % (
                json.dumps(p['name']), json.dumps(camel(p['name'])), json.dumps(p['type']),
                parse_default(p['default'], p['type']), p['kwonly'], p['python_only'], p['list_size']))
        extra = ''
        if fields and any(fields):
            extra = ', fields: %s' % json.dumps(fields)
        if op['wrap_numbers']:  # numbers are accepted for its Tensor parameters (torch's wrapped numbers)
            extra += ', wrap: true'
        out.append('OPS[%d] = {c: %s, ret: %s, nret: %d, out: %s, schema: %s, params: [%s]%s};' % (
            i, json.dumps(op['c']), json.dumps(kind), nret, 'true' if 'out' in op['variants'] else 'false',
            json.dumps(op['schema']), ', '.join(params), extra))
        ts_ops[i] = (op, kind)

    def ts_sig(name, entries, method):
        sigs = []
        for e in entries:
            op, kind = ts_ops[e['op']]
            pos, opts = [], []
            seen_default = False
            for p in op['params']:
                if method and p['name'] == 'self':
                    continue
                t = TS_TYPE.get(p['type'], 'any')
                if p['default'] is not None or p['python_only']:
                    opts.append('%s?: %s' % (camel(p['name']), t))
                    if not p['kwonly']:
                        pos.append('%s?: %s' % (camel(p['name']), t))
                        seen_default = True
                elif not p['kwonly']:
                    pos.append('%s%s: %s' % (camel(p['name']), '?' if seen_default else '', t))
                else:
                    opts.append('%s: %s' % (camel(p['name']), t))
            if 'out' in op['variants'] and not method:
                opts.append('out?: %s' % ('Tensor[]' if kind == 'tuple' else 'Tensor'))
            args = [a if '?' in a.split(':')[0] or True else a for a in pos]
            args = [a.replace(':', ':', 1) for a in args]
            if opts:
                args.append('opts?: { %s }' % '; '.join(opts))
            safe = [re.sub(r'^(\w+)', lambda m: m.group(1) + '_' if m.group(1) in JS_RESERVED else m.group(1), a) for a in args]
            sigs.append('%s(%s): %s;' % (name, ', '.join(safe), 'this' if e['variant'] == 'inplace' else TS_RET[kind]))
        return sigs

    core_src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'js', 'core.mjs')).read()
    core_exports = set(re.findall(r'^export (?:async )?(?:function|class|const|let) (\w+)', core_src, re.M))
    core_exports |= set(re.findall(r'^export const (?:\w+ = [^,;]+, )*', core_src, re.M))
    for m in re.finditer(r'^export const (.*);$', core_src, re.M):
        core_exports |= set(re.findall(r'(\w+) = ', m.group(1)))

    def entries_js(lst):
        return '[%s]' % ', '.join('OPS[%d]' % e['op'] for e in lst)

    dts = ['// Generated by tools/gen_js.py from build/gen/ops.json. Do not edit.',
           "import type { Tensor, Scalar, DType, Generator } from './core';", '']
    exports = []
    nfun = nmeth = 0
    out.append('\n// ---- functions (torch.<name>)')
    for name, lst in sorted(d['bindings']['function'].items()):
        if name.startswith('_'):
            continue
        js = camel(name)
        if js in core_exports:
            continue
        ident = js + '_' if js in JS_RESERVED else js
        out.append('const O_%s = %s;' % (ident, entries_js(lst)))
        out.append('function %s(...a) { return callOp(%s, O_%s, a, undefined, "function"); }' % (ident, json.dumps(name), ident))
        exports.append('%s as %s' % (ident, js) if ident != js else js)
        for s in ts_sig(ident, lst, False):
            dts.append('declare function ' + s)
        nfun += 1
    out.append('export { %s };' % ', '.join(exports))
    dts.append('export { %s };' % ', '.join(exports))

    out.append('\n// ---- Tensor methods')
    dts.append('\ndeclare module "./core" {\n  interface Tensor {')
    for name, lst in sorted(d['bindings']['method'].items()):
        if name.startswith('_'):
            continue
        js = camel(name)
        if js in CORE_MEMBERS:
            continue
        variant = lst[0]['variant']
        out.append('const M_%s = %s;' % (re.sub(r'\W', '_', js), entries_js(lst)))
        out.append('Object.defineProperty(Tensor.prototype, %s, {value: function (...a) { return callOp(%s, M_%s, a, this, %s); }, writable: true, configurable: true});'
                   % (json.dumps(js), json.dumps(name), re.sub(r'\W', '_', js), json.dumps(variant)))
        for s in ts_sig(js if js not in JS_RESERVED else '"%s"' % js, lst, True):
            dts.append('    ' + s)
        nmeth += 1
    dts.append('  }\n}')

    for group, obj in (('linalgfunction', 'linalg'), ('nnfunction', '_nn')):
        out.append('\n// ---- %s (torch.%s.<name>)' % (obj, 'linalg' if obj == 'linalg' else '_C._nn'))
        members = []
        dts.append('export declare const %s: {' % obj)
        for name, lst in sorted(d['bindings'][group].items()):
            if name.startswith('_'):
                continue
            js = camel(name[len('linalg_'):] if obj == 'linalg' and name.startswith('linalg_') else name)
            members.append('  %s: (...a) => callOp(%s, %s, a, undefined, "function"),' % (json.dumps(js), json.dumps((obj + '.' if obj == 'linalg' else '') + name), entries_js(lst)))
            for s in ts_sig(json.dumps(js), lst, False):
                dts.append('  ' + s)
        out.append('export const %s = Object.freeze({\n%s\n});' % (obj, '\n'.join(members)))
        dts.append('};')
    # The table and every binding (private names too) as data, for the Pyodide _C (wick/_pyodide/_C.py), which
    # calls callOp with these overloads under torch's Python names: {group: {name: [[op index, variant], ...]}}.
    out.append('export { OPS };')
    out.append('export const BINDINGS = %s;' % json.dumps(
        {g: {n: [[e['op'], e['variant']] for e in lst] for n, lst in sorted(d['bindings'][g].items())}
         for g in ('function', 'method', 'linalgfunction', 'nnfunction')}, separators=(',', ':')))
    out.append('export const OP_COUNTS = {functions: %d, methods: %d, overloads: %d};' % (nfun, nmeth, len(used)))
    dts.append('export declare const OPS: object[];')
    dts.append('export declare const BINDINGS: {[group: string]: {[name: string]: [number, string][]}};')
    dts.append('export declare const OP_COUNTS: {functions: number, methods: number, overloads: number};')
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'ops.mjs'), 'w') as fh:
        fh.write('\n'.join(out) + '\n')
    with open(os.path.join(outdir, 'ops.d.ts'), 'w') as fh:
        fh.write('\n'.join(dts) + '\n')
    print('gen_js: %d functions, %d methods, %d overloads -> %s' % (nfun, nmeth, len(used), outdir))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])

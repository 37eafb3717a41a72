"""ops.json (Note [ops.json] in tools/gen.py): the op signatures as data, for doors that cannot read C. These checks
hold it to what the CPython door actually binds, so a Pyodide _C or a JS API generated from it binds the same names:
every name ops.json binds is bound in wick._C (functions, _nn, _linalg, TensorBase methods), _nn and _linalg bind
nothing else, and its op ids and signatures are the generator's own (each kernel one id below num_op_ids)."""
import json
import os
import subprocess
import sys

import pytest

import wick

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope='module')
def ops_json(tmp_path_factory):
    out = tmp_path_factory.mktemp('gen')
    subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'gen.py'), str(out)], check=True)
    with open(out / 'ops.json') as f:
        return json.load(f)


def _public(mod):
    return {n for n in dir(mod) if not n.startswith('__') and callable(getattr(mod, n))}


def test_functions_are_bound(ops_json):
    names = set(ops_json['bindings']['function'])
    assert len(names) > 400
    missing = sorted(n for n in names if not callable(getattr(wick._C, n, None)))
    assert missing == []


@pytest.mark.parametrize('kind,mod', [('nnfunction', '_nn'), ('linalgfunction', '_linalg')])
def test_submodules_bind_exactly_ops_json(ops_json, kind, mod):
    assert _public(getattr(wick._C, mod)) == set(ops_json['bindings'][kind])


def test_methods_are_bound(ops_json):
    names = set(ops_json['bindings']['method'])
    assert {'add', 'add_', '__eq__', 'sum'} <= names
    bound = wick._C.TensorBase.__dict__
    assert sorted(n for n in names if n not in bound) == []


def test_each_op_is_where_its_entry_says(ops_json):
    ops, b = ops_json['ops'], ops_json['bindings']
    kind = {'': 'function', 'nn': 'nnfunction', 'linalg': 'linalgfunction'}
    for i, op in enumerate(ops):
        if 'c' in op['variants']:  # C-only helpers have no Python binding
            assert all(i not in [s['op'] for s in sigs] for sigs in b['function'].values())
            continue
        for py in op['python']:
            if 'function' in op['variants']:
                assert {'op': i, 'variant': 'function'} in b[kind[op['python_module']]][py], op['schema']
            if 'method' in op['variants']:
                assert {'op': i, 'variant': 'method'} in b['method'][py], op['schema']
            if 'inplace' in op['variants']:
                assert {'op': i, 'variant': 'inplace'} in b['method'][py + '_'], op['schema']
        for name in op['python_method']:
            assert {'op': i, 'variant': 'method'} in b['method'][name], op['schema']


def test_op_ids_and_signatures(ops_json):
    n = ops_json['num_op_ids']
    ids = {}
    for op in ops_json['ops']:
        assert op['c'].startswith('wk_') and op['schema'].startswith(op['name'])
        for k in op['kernels'].values():
            assert 0 <= k['op_id'] < n
            assert ids.setdefault(k['impl'], k['op_id']) == k['op_id']  # one id per implementation
    assert sorted(ids.values()) == list(range(n))  # and every id names one
    add = next(op for op in ops_json['ops'] if op['schema'].startswith('add(') or op['schema'].startswith('add.Tensor('))
    assert [(p['name'], p['type'], p['kwonly'], p['default']) for p in add['params']] == [
        ('self', 'Tensor', False, None), ('other', 'Tensor', False, None), ('alpha', 'Scalar', True, '1')]
    assert add['node'] == 'AddBackward0' and add['differentiable'] == ['other', 'self']

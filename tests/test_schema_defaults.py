"""The op table's defaults against torch's own schemas (issue 24: torch.kl_div(a, b) reduced where torch does not).

Every op in ops.json whose schema torch has (torch._C._jit_get_schemas_for_operator, same overload) must give each
parameter torch's default. The JIT schema writes native_functions.yaml's `int reduction=Mean` as 1, but torch's Python
bindings read it as 0 ('none'): Note [Enum defaults] in tools/gen.py; that is the default the Python door must have.
The behaviour itself (each loss called without its optional arguments) is held to torch in
tests/parity/cases_schema_defaults.py."""
import json
import os
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip('torch')

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_DTYPE_CODES = {'long': 4, 'float': 6, 'double': 7, 'bool': 11}

# Defaults written differently that mean the same thing, each checked by parity cases:
# randint/randperm's dtype=None is int64 in wick's kernel (cases_random), contiguous's memory_format is the name.
SAME_MEANING = {('randint', 'dtype'), ('randint.low', 'dtype'), ('randperm', 'dtype'), ('contiguous', 'memory_format')}


@pytest.fixture(scope='module')
def ops_json(tmp_path_factory):
    out = tmp_path_factory.mktemp('gen')
    subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'gen.py'), str(out)], check=True)
    with open(out / 'ops.json') as f:
        return json.load(f)


def _same(tdef, wdef):
    """torch's JIT default value against the table's default text"""
    if isinstance(wdef, str):
        wdef = wdef.strip().strip('"\'')
    if isinstance(tdef, (list, tuple)):
        if wdef is not None and re.match(r'^-?\d+$', wdef):  # int[2] stride=1 expands to [1, 1]
            return len(set(tdef)) == 1 and int(wdef) == tdef[0]
        return wdef is not None and str(list(tdef)).replace(' ', '') == wdef.replace(' ', '')
    if isinstance(tdef, bool):
        return str(tdef) == wdef
    if isinstance(tdef, (int, float)):
        if wdef in _DTYPE_CODES:
            return _DTYPE_CODES[wdef] == tdef
        try:
            return float(wdef) == float(tdef)
        except (TypeError, ValueError):
            return False
    if tdef is None:
        return wdef in (None, 'None')
    return str(tdef) == wdef


def _compared(ops_json):
    for op in ops_json['ops']:
        name = op['schema'].split('(')[0]
        base, _, overload = name.partition('.')
        schemas = [s for s in torch._C._jit_get_schemas_for_operator('aten::' + base) if s.overload_name == overload]
        if schemas:
            yield name, op, schemas[0]


def test_enough_ops_compared(ops_json):
    assert sum(1 for _ in _compared(ops_json)) > 400


def test_defaults_are_torchs(ops_json):
    bad = []
    for name, op, schema in _compared(ops_json):
        targs = {a.name: a for a in schema.arguments}
        for p in op['params']:
            a = targs.get(p['name'])
            if a is None or (name, p['name']) in SAME_MEANING:
                continue
            tdef = a.default_value
            if p['name'] == 'reduction' and tdef == 1 and str(a.type) == 'int':
                tdef = 0  # Note [Enum defaults]
            if tdef is None and p['default'] is None:
                continue
            if not _same(tdef, p['default']):
                bad.append(f"{name}({p['name']}): torch {tdef!r}, wick {p['default']!r}")
    assert bad == []


def test_same_meaning_is_still_needed(ops_json):
    """each exception above still differs in spelling (else it is a stale exception)"""
    seen = set()
    for name, op, schema in _compared(ops_json):
        targs = {a.name: a for a in schema.arguments}
        for p in op['params']:
            if (name, p['name']) in SAME_MEANING and p['name'] in targs:
                assert not _same(targs[p['name']].default_value, p['default'])
                seen.add((name, p['name']))
    assert seen == SAME_MEANING


@pytest.mark.parametrize('name', ['kl_div', 'binary_cross_entropy_with_logits', 'cosine_embedding_loss',
                                  'hinge_embedding_loss', 'margin_ranking_loss', 'triplet_margin_loss'])
def test_python_composites_reduction_default(name):
    """the losses wick writes in Python (wick/_nn_py.py) have torch's Python default too"""
    import inspect
    import wick
    fn = getattr(wick, name)
    try:
        sig = inspect.signature(fn)
    except ValueError:  # a C binding: covered by test_defaults_are_torchs
        return
    assert sig.parameters['reduction'].default == 0

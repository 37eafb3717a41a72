"""Pins the expected stdout of programs from real torch 2.13 (CPython, `import torch` as the program says):
- tests/pyodide/programs/NAME.py -> tests/pyodide/programs/NAME.txt (run in Pyodide by tests/pyodide/run.mjs);
- web/examples/NAME.py (the playground's examples) -> tests/pyodide/examples/NAME.txt (run in the page by
  tests/pyodide/playground.mjs);
- web/lessons/NAME.md (the lessons): its ```python blocks run in order in one namespace, from a fresh folder
  where data/ is examples/data (so data/digits.csv is the shipped data) -> tests/pyodide/lessons/NAME.json, each block's code and stdout (checked in
  Pyodide by tests/pyodide/lessons.mjs).
web/ is on sys.path while a program runs (the playground's `plot` module is importable; natively it draws nothing).
Run it after adding or changing a program:

    python3 tests/pyodide/pin.py [NAME ...]      (no NAME: every program and example)"""
import contextlib
import io
import json
import os
import re
import runpy
import shutil
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SETS = [(os.path.join(HERE, 'programs'), os.path.join(HERE, 'programs')),
        (os.path.join(ROOT, 'web', 'examples'), os.path.join(HERE, 'examples'))]


def lesson_blocks(text):
    """A lesson's code blocks (```python ... ```), as web/learn.mjs and tests/pyodide/lessons.mjs read them."""
    return re.findall(r'^```python\n(.*?)^```$', text, re.M | re.S)


def main(names):
    assert torch.__version__.startswith('2.13'), torch.__version__
    sys.path.insert(0, os.path.join(ROOT, 'web'))
    done = 0
    for src_dir, out_dir in SETS:
        os.makedirs(out_dir, exist_ok=True)
        for name in sorted(f[:-3] for f in os.listdir(src_dir) if f.endswith('.py')):
            if names and name not in names:
                continue
            buf, cwd, work = io.StringIO(), os.getcwd(), tempfile.mkdtemp()   # data/ is examples/data, as in the page
            os.symlink(os.path.join(ROOT, 'examples', 'data'), os.path.join(work, 'data'))
            os.chdir(work)
            try:
                with contextlib.redirect_stdout(buf):
                    runpy.run_path(os.path.join(src_dir, name + '.py'), run_name='__main__')
            finally:
                os.chdir(cwd)
                shutil.rmtree(work)
            out = os.path.join(out_dir, name + '.txt')
            with open(out, 'w') as fh:
                fh.write(buf.getvalue())
            done += 1
            print('pinned %s (%d lines) under torch %s' % (os.path.relpath(out, ROOT), buf.getvalue().count('\n'),
                                                           torch.__version__))
    lessons = os.path.join(ROOT, 'web', 'lessons')
    for name in sorted(f[:-3] for f in os.listdir(lessons) if f.endswith('.md')) if os.path.isdir(lessons) else []:
        if names and name not in names:
            continue
        with open(os.path.join(lessons, name + '.md')) as fh:
            blocks = lesson_blocks(fh.read())
        ns, pinned, cwd = {'__name__': '__main__'}, [], os.getcwd()
        work = tempfile.mkdtemp()   # what a lesson writes (a saved model) stays out of the repository
        os.symlink(os.path.join(ROOT, 'examples', 'data'), os.path.join(work, 'data'))
        os.chdir(work)
        try:
            for code in blocks:
                buf = io.StringIO()
                with contextlib.redirect_stdout(buf):
                    exec(compile(code, '<lesson>', 'exec'), ns)
                pinned.append({'code': code, 'stdout': buf.getvalue()})
        finally:
            os.chdir(cwd)
            shutil.rmtree(work)
        out = os.path.join(HERE, 'lessons', name + '.json')
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, 'w') as fh:
            json.dump({'pinned_by': 'python3 tests/pyodide/pin.py ' + name, 'torch': torch.__version__,
                       'blocks': pinned}, fh, indent=1)
            fh.write('\n')
        done += 1
        print('pinned %s (%d blocks) under torch %s' % (os.path.relpath(out, ROOT), len(pinned), torch.__version__))
    if not done:
        sys.exit('pin.py: no program named %s' % ' '.join(names))


if __name__ == '__main__':
    main(sys.argv[1:])

"""Pins the expected stdout of tests/pyodide/programs/*.py from real torch 2.13 (CPython, `import torch` as the
program says): writes programs/NAME.txt beside each program. Run it after adding or changing a program:

    python3 tests/pyodide/pin.py [NAME ...]

tests/pyodide/run.mjs then runs each program in Pyodide on wick's wasm core and compares stdout exactly."""
import contextlib
import io
import os
import runpy
import sys

import torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'programs')


def main(names):
    assert torch.__version__.startswith('2.13'), torch.__version__
    progs = sorted(f[:-3] for f in os.listdir(HERE) if f.endswith('.py'))
    for name in names or progs:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            runpy.run_path(os.path.join(HERE, name + '.py'), run_name='__main__')
        with open(os.path.join(HERE, name + '.txt'), 'w') as fh:
            fh.write(buf.getvalue())
        print('pinned %s (%d lines) under torch %s' % (name, buf.getvalue().count('\n'), torch.__version__))


if __name__ == '__main__':
    main(sys.argv[1:])

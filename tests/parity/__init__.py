"""wick's torch-parity suite: cases in cases_*.py, harness API in harness.py, runner in runner.py.

    python3 -m tests.parity --lib wick        # run (see README.md)
    python3 -m tests.parity.pin               # re-pin golden files from torch
"""

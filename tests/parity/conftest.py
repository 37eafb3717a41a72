# Make "tests.parity" importable however pytest was started (pytest tests/, python3 -m pytest, ...).
import os
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _REPO not in sys.path:
    sys.path.append(_REPO)

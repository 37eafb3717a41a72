"""Vision parity: cases_*.py here, pinned from torchvision by pin.py, checked by tests/test_vision.py."""
import glob
import importlib
import os


def load_cases():
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), 'cases_*.py'))):
        importlib.import_module(__name__ + '.' + os.path.basename(path)[:-3])

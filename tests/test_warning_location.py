"""A warning wick raises from C is attributed to the caller's line, as torch's are (no frame of wick's own between):
checked for both libraries side by side."""
import warnings

import pytest
import torch

import wick


@pytest.mark.parametrize("lib", [torch, wick], ids=["torch", "wick"])
@pytest.mark.parametrize("prop", ["T"])
def test_property_warning_points_at_caller(lib, prop):
    x = lib.ones(2, 3, 4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        getattr(x, prop)
    assert len(w) == 1 and w[0].category is UserWarning
    assert w[0].filename == __file__, w[0].filename

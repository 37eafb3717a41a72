"""Tensor methods of the pointwise area that are Python in torch (attached to wick.Tensor)."""

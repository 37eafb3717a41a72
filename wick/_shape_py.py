"""Tensor methods of the shape area that are Python in torch (attached to wick.Tensor)."""

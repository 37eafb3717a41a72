"""Tensor methods of the reduce area that are Python in torch (attached to wick.Tensor)."""

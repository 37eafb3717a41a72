"""Tensor methods of the index area that are Python in torch (attached to wick.Tensor)."""

"""Tensor methods of the creation area that are Python in torch (attached to wick.Tensor)."""

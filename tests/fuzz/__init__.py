"""Fuzzers of issue 16: python3 -m tests.fuzz (see __main__.py)."""

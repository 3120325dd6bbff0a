"""Fuzzing (``--mcp-contract-fuzz``): arguments drawn from each input schema, every answer judged.

Nothing here imports Hypothesis at start-up: only a fuzz item does.
"""

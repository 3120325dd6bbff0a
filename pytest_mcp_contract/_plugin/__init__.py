"""The plugin's parts behind ``plugin.py``: options, stash keys, call triage, stderr, xdist, the report."""

"""The plugin's parts behind ``plugin.py``: options, stash keys, the suite in a run, markers read at collection,
the fixtures' clients, call triage, stderr, xdist, the report."""

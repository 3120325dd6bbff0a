"""The plugin's own parts behind ``plugin.py``: settings read from the ini and options, the session pool, the report."""

"""What differs between the SDK majors the plugin runs on (``mcp`` 1.10+ and 2.x), in one place.

One rule keeps the rest of the package single: ``mcp_types`` (the wire types, a distribution of their
own that installs beside either major) is the model every check reads; ``mcp.types`` is the installed
SDK's own, used only where the SDK itself takes or gives its objects (its session, its callbacks).
Code that differs by major lives here, so the checks, the mirror rule, snapshots and the report never ask.
"""

"""Servers: what a target names, starting a command (stdio), reaching a URL (HTTP), in-process facts, reaping."""

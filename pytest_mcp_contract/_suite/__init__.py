"""The generated suite: its items, the cases files, schema snapshots and the diff between two schemas."""

"""The generated suite: its items, the cases files, schema snapshots (a run's unused ones too), schema diffs."""

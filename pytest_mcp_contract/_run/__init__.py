"""One run: its settings, the sessions that serve its tests, where its files go, the records its tests leave."""

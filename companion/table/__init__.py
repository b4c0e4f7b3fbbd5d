"""A table's state as a fold of its event log: setup, events, decisions, storage."""

"""Node programs for the hub's machine: simulated sandtimers (real nodes live in firmware/)."""

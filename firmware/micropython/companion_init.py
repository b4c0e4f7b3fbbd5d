"""On a board, the companion package holds only companion.core (the hub's parts are not needed)."""

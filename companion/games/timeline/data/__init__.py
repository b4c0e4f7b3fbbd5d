"""Timeline's data files: the hub deck's card list (``espana-deck.csv``) and the table settings."""

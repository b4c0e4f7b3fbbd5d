"""Timeline's data files: what the box holds (``espana-box.csv``) and the hub deck's card list
(``espana-deck.csv``, used only when the hub deals its own cards)."""

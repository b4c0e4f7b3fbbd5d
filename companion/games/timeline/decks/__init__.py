"""Decks shipped with the Timeline engine, one CSV file each (columns id, year, title, title_en)."""

"""CSV import services: reading a file, importing its rows by kind, the all-or-nothing run."""

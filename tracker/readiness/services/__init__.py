"""Team readiness for a GPU fleet: one module per concern."""

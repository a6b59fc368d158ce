"""Admin pages: people, teams, the internal track and CSV imports."""

"""Verifying badges: Open Badges 2.0 hosted assertions, and the dispatch to 3.0."""

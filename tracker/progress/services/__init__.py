"""Certification and progress rules, one module per concern."""

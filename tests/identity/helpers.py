"""Shared helpers for the identity tests."""

from __future__ import annotations

# The break-glass admin: the address the tests put in BREAK_GLASS_ADMINS.
ROOT = "root@example.com"

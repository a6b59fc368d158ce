"""Badges earned elsewhere: Open Badges imported, verified and checked again."""

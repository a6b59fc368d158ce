"""Tests of the CSV imports: rows, columns and their messages."""

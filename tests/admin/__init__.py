"""Tests of the admin pages and rules."""

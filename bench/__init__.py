"""Benchmarks and the load test: `make bench`, `make load` (see README, "Benchmarks")."""

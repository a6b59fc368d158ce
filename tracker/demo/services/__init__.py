"""Demo organisations: the curated one and generated ones of any size."""

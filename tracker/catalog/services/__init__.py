"""The catalog's services: reading and loading the seed file, reading the catalog back."""

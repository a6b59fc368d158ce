"""The badges domain: verifying, importing and re-checking badges."""

"""The issuer's domain: its key, the credentials it signs, their status list, baking."""

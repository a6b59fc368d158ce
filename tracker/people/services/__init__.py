"""People services: access, persons, teams and accounts."""

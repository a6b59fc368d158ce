"""People services: access, persons (the writers), their checks and reads, teams and accounts."""

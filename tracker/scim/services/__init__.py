"""The SCIM domain: tokens, users (people), groups (teams), filters and pages."""

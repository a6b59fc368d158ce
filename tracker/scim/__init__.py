"""SCIM 2.0 provisioning: an identity provider creates, changes and deactivates people and teams."""

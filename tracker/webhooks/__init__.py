"""Webhooks: endpoints an admin registers, and the signed events queued and delivered to them."""

"""The reminders' services: the daily pass, composing, digests and delivery, by concern."""

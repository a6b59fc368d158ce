"""The reminders' pages: calendar feeds (`calendars`)."""

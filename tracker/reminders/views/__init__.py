"""The reminders' pages: calendar feeds (`calendars`), the weekly digest's choice and its
one-click unsubscribe link (`digest`)."""

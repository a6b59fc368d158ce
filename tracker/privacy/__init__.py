"""Privacy: everything the tracker holds about a person, in one file they can download."""

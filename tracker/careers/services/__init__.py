"""Career rules, one concern per module (no re-exports: import from the module)."""

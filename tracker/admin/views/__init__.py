"""Admin pages, a module per concern, on the admin blueprint (/admin, endpoints admin.*).

- `blueprint`: the blueprint with its sections' own (webhooks, the account trail,
  badge mappings), and what its pages share
- `people`, `teams`, `catalog` (with the internal track), `imports` (CSV), `outbox`

Thin views: forms check the shape of the input, the services of people,
catalog, imports and reminders the rules; a refusal answers 400 with the
message next to its field.
"""

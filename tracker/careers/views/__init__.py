"""Career pages, a module per concern, on the careers blueprint (/careers, endpoints careers.*).

- `blueprint`: the blueprint, the apprenticeship states' names, who is asking
- `engineers`: an engineer's ladder, level, evidence, skills and rotation
- `managers`: promotions, a team's skill coverage, apprenticeships
- `bonuses`: the bonus ledger (page and CSV) and the amounts admins set

Thin views: forms check the shape of the input, tracker.careers.services the
rules; a refusal answers 400 with the message next to its field and stores nothing.
"""

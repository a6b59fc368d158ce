"""The engineer's pages, a module per concern, on the progress blueprint (endpoints progress.*).

- `blueprint`: the blueprint and what its pages share: the row a form chose, whom
  results go to, dates and hours in flashed messages
- `dashboard`: the signed-in engineer's dashboard, one engineer's progress
- `hours`: logging, listing, editing and deleting hours
- `exams`: exam attempts, planned exams and their cancelling
- `credentials`: credentials earned elsewhere

Thin views: forms check the shape of the input, tracker.progress.services the
rules; a refusal answers 400 with the message next to its field and stores nothing.
"""

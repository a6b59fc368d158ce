"""The privacy services: a person's data gathered from every package, and its download noted."""

"""Open Badges 3.0 credentials the tracker issues for its internal track."""

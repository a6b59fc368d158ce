"""CSV imports: people, hour logs, exam attempts and external credentials."""

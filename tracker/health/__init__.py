"""Health: whether a server may take requests, for load balancers, orchestrators and monitors."""

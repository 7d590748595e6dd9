"""User-level differential privacy of the clients' updates: the `privacy` section of the
run config, its mechanisms and the accountant that reports ε (`dp-accounting`)."""

"""The full distribution's commands of `fedwatch` (simulate, serve, worker, compare, ...)."""

"""The `fedwatch` command line."""

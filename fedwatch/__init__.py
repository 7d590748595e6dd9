"""FedWatch's public Python surface: the `fedwatch` command (`fedwatch.cli`)."""

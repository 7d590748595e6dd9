"""Partitions: how a dataset's pool is split among the clients (`data.partition`).

Each partition is one module here declaring a `Partition` subclass with `@partition`,
its parameters under its name (`data.dirichlet.alpha`); plug-ins add theirs through the
`fedwatch.partitions` entry point group. `base.py` holds the contract.
"""

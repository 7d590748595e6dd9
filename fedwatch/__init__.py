"""FedWatch's Python package. Its top-level modules are the client distribution,
`fedwatch-client`, with the standard library only: `fedwatch.client` (the SDK),
`fedwatch.read` (runs as DataFrames, extra `pandas`), `fedwatch.flower` (extra
`flower`) and the `fedwatch` command (`fedwatch.command`) with `fedwatch sync`. Its
subpackages come with the full `fedwatch` distribution: `fedwatch.plugins` (what a
plug-in author imports) and `fedwatch.cli` (the commands that simulate and serve)."""

"""Results out of FedWatch: the one number format, comparison tables as text, CSV,
Markdown and LaTeX, and figures for papers (matplotlib). Pure: the API, the CLI and the
reproduction report call them with data they have read."""

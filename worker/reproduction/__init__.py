"""Reproductions of paper presets: the figures a paper reports, computed the same way
from FedWatch's runs and from reference runs of the authors' own code, and the report
that sets them side by side (`fedwatch reproduce`, `GET /api/experiments/{id}/
reproduction`). Pure: no database, queue or web imports."""

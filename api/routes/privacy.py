"""A run's per-client privacy: the histogram of each client's ε."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from api.deps import RunDep, SessionDep
from api.schemas.errors import NOT_FOUND, error_responses
from api.schemas.privacy import EpsilonHistogramPublic, PrivacyClientsPublic
from db.metric_values import final_values, last_round
from db.models import EXTERNAL, Run
from db.participation import contributions
from worker.engine import AMPLIFIED, amplification, current, run_config_for

router = APIRouter(prefix="/api/runs/{run_id}/privacy", tags=["privacy"], responses=NOT_FOUND)

FIGURES = ["epsilon_assumed", "epsilon_client_max", "epsilon_client_median"]
EXTERNAL_FIGURES = (
    "an external run logs its own ε: FedWatch has no per-client data for it, only the "
    "figures it logged"
)
NO_RATES = (
    "the run was recorded before the clients' rates were kept: the figures are the "
    "accountant's, but no histogram can be made"
)


@router.get("/clients", responses=error_responses(409))
def read_privacy_clients(run: RunDep, session: SessionDep) -> PrivacyClientsPublic:
    """The distribution of per-client ε after the latest recorded round, as histogram
    bins, with the run's assumed, worst and median ε, δ, and whether amplification by
    sampling applied and why. A 404 for a run without privacy, a 409 before its first
    round."""
    logged = final_values(session, run.id, FIGURES)
    recorded = {name: logged.get(name) for name in FIGURES}
    if run.source == EXTERNAL:
        return _external(run, session, recorded)
    config = run_config_for(current()).model_validate(run.config)
    privacy = config.privacy
    mechanism = privacy.mechanism()
    if mechanism is None:
        raise HTTPException(404, f"run {run.id} has no privacy: privacy.kind is none")
    got = contributions(session, run.id, run.n_clients)
    if got.rounds == 0:
        raise HTTPException(409, f"run {run.id} has recorded no round yet")
    why = amplification(config)
    figures = {**recorded}
    histogram, missing = None, None
    if why is None and got.privacy_rate is None:
        missing = NO_RATES
    else:
        # dp-accounting takes over a second to import: only this view pays for it
        from worker.engine import epsilon_histogram

        h = epsilon_histogram(
            mechanism.noise_multiplier, privacy.delta, got.rounds, got.privacy_rate, got.counts
        )
        histogram = EpsilonHistogramPublic(edges=h.edges, counts=h.counts, exact=h.exact)
        figures.update(epsilon_client_max=h.maximum, epsilon_client_median=h.median)
    return PrivacyClientsPublic(
        round=got.rounds - 1,
        rounds=got.rounds,
        n_clients=run.n_clients,
        mechanism=None if privacy.kind == "none" else privacy.kind,
        delta=privacy.delta,
        noise_multiplier=mechanism.noise_multiplier,
        amplified=why is None,
        amplification=AMPLIFIED if why is None else why,
        **figures,
        histogram=histogram,
        no_histogram=missing,
    )


def _external(
    run: Run, session: SessionDep, recorded: dict[str, float | None]
) -> PrivacyClientsPublic:
    """An external run's own figures (a 404 where it logged none)."""
    last = last_round(session, run.id)
    if last is None or all(v is None for v in recorded.values()):
        raise HTTPException(404, f"run {run.id} has no privacy: it logged no ε")
    return PrivacyClientsPublic(
        round=last,
        rounds=last + 1,
        n_clients=run.n_clients,
        mechanism=None,
        delta=None,
        noise_multiplier=None,
        amplified=None,
        amplification=EXTERNAL_FIGURES,
        **recorded,
        histogram=None,
        no_histogram=EXTERNAL_FIGURES,
    )

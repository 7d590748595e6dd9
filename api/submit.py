"""What creates or restarts runs, whichever route asks: a run (simulated, or external),
an experiment (every run validated first, all created or none), a paper preset's
reproduction (an experiment of its comparison set) and a run's resumption. Each checks
what this server refuses (`admission.py`) before anything is stored, commits, then
queues; the routes shape the answer."""

from __future__ import annotations

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError
from sqlalchemy.orm import Session

from api.admission import admit, admit_sweep
from api.external import create_external
from api.schemas.experiments import MAX_RUNS, ExperimentCell, ExperimentCreate, ReproduceRequest
from api.schemas.ingest import ExternalRunCreate
from api.schemas.runs import RunBody
from api.sweep import SweepInvalid, expand
from db.models import EXTERNAL, Experiment, Run
from db.runs import new_run, resume_run
from db.settings import Settings
from worker.data_root import missing_data, portable
from worker.dispatch import Dispatcher, queue_for
from worker.engine import ConfigError, current, run_config_for
from worker.presets import PRESETS


def create_run(session: Session, dispatcher: Dispatcher, settings: Settings, body: RunBody) -> Run:
    """A run of the engine, queued; or an external run, which takes its rounds at once."""
    if isinstance(body, ExternalRunCreate):
        return create_external(session, body)
    config = body.config
    admit(config, settings)
    stored = portable(config, settings).model_dump(mode="json")
    run = new_run(stored, queue=queue_for(config), notes=body.notes)
    session.add(run)
    session.commit()
    dispatcher.submit(run.id, run.queue)
    return run


def create_experiment(
    session: Session,
    dispatcher: Dispatcher,
    settings: Settings,
    body: ExperimentCreate,
    preset: str | None = None,
) -> Experiment:
    """Validate every run of `body`, then create the experiment and its runs (all or
    none) and queue them; `preset`: the paper preset it reproduces."""
    size = len(body.seeds) * max(1, len(body.cells))
    for values in body.grid.values():
        size *= max(1, len(values))
    if size > MAX_RUNS:
        msg = f"{size} runs: at most {MAX_RUNS}"
        raise RequestValidationError([{"loc": ["body", "grid"], "msg": msg, "type": "value_error"}])
    try:
        explicit = [(c.label, c.set) for c in body.cells]
        cells = expand(body.base, body.grid, body.seeds, explicit)
    except SweepInvalid as err:
        raise RequestValidationError(err.errors) from None
    admit_sweep(cells, list(body.grid), settings)
    experiment = Experiment(
        name=body.name,
        base=body.base,
        grid=body.grid,
        seeds=body.seeds,
        cells=[c.model_dump() for c in body.cells],
        preset=preset,
    )
    session.add(experiment)
    session.flush()
    runs = [
        new_run(
            portable(cell.config, settings).model_dump(mode="json"),
            queue=queue_for(cell.config),
            notes=body.notes,
            name=f"{body.name} [{cell.label}] seed={cell.seed}".replace(" [] ", " "),
            experiment_id=experiment.id,
            cell=cell.label or body.name,
        )
        for cell in cells
    ]
    session.add_all(runs)
    session.commit()
    for run in runs:
        dispatcher.submit(run.id, run.queue)
    return experiment


def reproduce(
    session: Session,
    dispatcher: Dispatcher,
    settings: Settings,
    name: str,
    request: ReproduceRequest,
) -> Experiment:
    """The preset `name`'s comparison set (each method with its paper's settings) over
    its seeds, as an experiment."""
    preset = PRESETS.get(name)
    if preset is None:
        raise HTTPException(404, f"preset {name!r} not found")
    variants = preset.variants
    if request.variant is not None and request.variant not in variants:
        known = ", ".join(variants) or "none"
        msg = f"unknown variant {request.variant!r} (known: {known})"
        raise RequestValidationError(
            [{"loc": ["body", "variant"], "msg": msg, "type": "value_error"}]
        )
    variant = request.variant or next(iter(variants), None)
    config = preset.run_config(variants[variant] if variant else [])
    if request.root is not None:
        config = config.model_copy(
            update={"data": config.data.model_copy(update={"root": request.root})}
        )
    at = ["body", "root"] if request.root is not None else ["path", "name"]
    try:
        missing = missing_data(config, settings)
        base = portable(config, settings).model_dump(mode="json")
    except ConfigError as err:  # the root leads outside the data root
        msg = str(err).removeprefix("data.root: ")
        raise RequestValidationError([{"loc": at, "msg": msg, "type": "value_error"}]) from None
    if missing is not None:  # every run would fail at its start
        error = {"loc": at, "msg": f"needs {missing}", "type": "data_missing"}
        raise RequestValidationError([error])
    cells = [ExperimentCell(label=m.name, set=m.assignments()) for m in preset.compare]
    experiment = ExperimentCreate(
        name=f"{preset.name} reproduction" + (f" ({variant})" if variant else ""),
        base=base,
        cells=cells,
        seeds=request.seeds or list(preset.seeds),
    )
    return create_experiment(session, dispatcher, settings, experiment, preset=preset.name)


def resume(session: Session, dispatcher: Dispatcher, settings: Settings, run: Run) -> Run:
    """Queue a failed or cancelled run again (a 409 for any other, or an external one)."""
    if run.source == EXTERNAL:
        raise HTTPException(409, f"run {run.id} is external: only its own code resumes it")
    if not resume_run(session, run):
        detail = f"run {run.id} is {run.status}: only a failed or cancelled run resumes"
        raise HTTPException(409, detail)
    # before the commit: a refused run is rolled back to what it was
    admit(run_config_for(current()).model_validate(run.config), settings, loc=("config",))
    session.commit()
    session.refresh(run)
    dispatcher.submit(run.id, run.queue)
    return run

"""The SDK: track any FL code in FedWatch, and read runs back (`fedwatch.read`).

    fw = FedWatch("http://127.0.0.1:8000", token=None, spool_dir="runs-spool")
    with fw.start_run("fedavg-cifar", config, n_clients=100) as run:
        for t in range(rounds):
            ...
            run.log_round(t, {"test_acc": acc}, available=avail, selected=chosen,
                          weights=w)

`log_round` only converts the round to plain types and queues it. A background sender,
every `flush_s` seconds, appends the queued rounds to the run's spool (an append-only
JSON-lines file under `spool_dir`) and then sends them in batches, retrying with
backoff while the server is down or restarting. The first send that fails prints one
line to stderr: the run is being spooled, where, and how to upload it. `finish` (and the
end of the `with` block) puts every queued round and the run's end in the spool at once,
then waits at most `finish_timeout_s` for the server. A process killed mid-run loses at
most the rounds of its last `flush_s`; what is in the spool but never arrived is
uploaded with `fedwatch sync DIR --url URL`, with the times it happened (the spool
records when the run started and finished).
"""

from __future__ import annotations

import atexit
import collections
import logging
import math
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from fedwatch import read, tensorfile, tuning
from fedwatch.spool import Spool, Uploader, timestamp
from fedwatch.transport import Refused, TooLarge, Transport, Unreachable

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("fedwatch.client")

DEFAULT_SPOOL = Path.home() / ".cache" / "fedwatch" / "spool"
MAX_BACKOFF_S = 30.0


def _plain(values: Any) -> list[Any]:
    """A list of Python numbers from a list, tuple, numpy array or torch tensor."""
    if hasattr(values, "tolist"):  # numpy arrays and torch tensors (on any device)
        if hasattr(values, "detach"):
            values = values.detach().cpu()
        values = values.tolist()
    return list(values)


def _ids(values: Any, n_clients: int, field: str) -> list[int] | None:
    if values is None:
        return None
    ids = [int(i) for i in _plain(values)]
    if ids and not (min(ids) >= 0 and max(ids) < n_clients):
        raise ValueError(f"{field}: client ids must lie in [0, {n_clients})")
    return ids


def _number(value: Any) -> float | None:
    """A metric as a float; None stands for a value that is not finite (a NaN loss)."""
    number = float(value.item() if hasattr(value, "item") else value)
    return number if math.isfinite(number) else None


class Run:
    """A run being tracked; made by `FedWatch.start_run`. Use it as a context manager,
    or call `finish` at the end."""

    def __init__(self, fw: FedWatch, declaration: dict[str, Any], spool: Spool) -> None:
        self.fw = fw
        self.n_clients = int(declaration["n_clients"])
        self.spool = spool
        self.uploader = Uploader(
            Transport(fw.url, fw.token, fw.timeout_s),
            declaration,
            batch_rounds=fw.batch_rounds,
            refused=self._refused,
        )
        self.started = time.monotonic()
        self.queued: collections.deque[dict[str, Any]] = collections.deque()
        self.unsent: list[dict[str, Any]] = []
        self.ending: dict[str, Any] | None = None
        self.deadline = math.inf  # when `finish` stops waiting for the server
        self.told = False  # the user was told the run is being spooled
        self.model: Path | None = None  # a model file logged, not yet sent
        self.finished = False
        self.error: Exception | None = None  # the server refused the run (e.g. the token)
        self.wake = threading.Event()
        self.spooling = threading.Lock()
        self.sender = threading.Thread(target=self._send_loop, name="fedwatch-sender", daemon=True)
        self.sender.start()
        atexit.register(self._spool_queued)  # a script that ends without `finish`

    @property
    def id(self) -> int | None:
        """The run's id on the server; None until the server has taken it."""
        return self.uploader.run_id

    @property
    def spool_path(self) -> Path:
        return self.spool.path

    def log_round(
        self,
        t: int,
        metrics: Mapping[str, Any],
        available: Any = None,
        selected: Any = None,
        weights: Any = None,
        client_acc: Any = None,
    ) -> None:
        """Queue round `t` (0-based) and return at once. `metrics` maps names to numbers
        (`test_acc`, `test_loss`, `train_loss` name the standard curves); `available`
        and `selected` are client ids; `weights` is a mapping id → weight or a sequence
        aligned with `selected`; `client_acc` one accuracy per client. Ids and weights
        may be lists, numpy arrays or torch tensors; an id outside [0, n_clients)
        raises ValueError here, in the training loop."""
        if self.ending is not None:
            raise RuntimeError("the run is finished: it takes no more rounds")
        record: dict[str, Any] = {
            "round": int(t),
            "metrics": {str(k): _number(v) for k, v in metrics.items()},
            "wall_s": time.monotonic() - self.started,
        }
        for field, ids in (("available", available), ("selected", selected)):
            if ids is not None:
                record[field] = _ids(ids, self.n_clients, field)
        if weights is not None:
            record["weights"] = self._weights(weights, record.get("selected"))
        if client_acc is not None:
            record["client_acc"] = [_number(a) for a in _plain(client_acc)]
        self.queued.append(record)

    def _weights(self, weights: Any, selected: list[int] | None) -> dict[str, float]:
        if isinstance(weights, Mapping):
            pairs: Iterable[tuple[Any, Any]] = weights.items()
        elif selected is None:
            raise ValueError("weights as a sequence need `selected` (the ids they belong to)")
        else:
            values = _plain(weights)
            if len(values) != len(selected):
                raise ValueError(f"{len(values)} weights for {len(selected)} selected clients")
            pairs = zip(selected, values, strict=True)
        out = {str(int(i)): float(w) for i, w in pairs}
        _ids([int(i) for i in out], self.n_clients, "weights")
        return out

    def log_model(self, state_dict: Mapping[str, Any]) -> Path:
        """Attach the run's final model: a state dict of torch tensors or numpy arrays
        (`model.state_dict()`). It is written at once as a safetensors file beside the
        run's spool, and sent after the rounds, before the run finishes. A file past the
        server's limit (FEDWATCH_MAX_MODEL_BYTES: a 413) is logged as a warning and
        stays in the spool. Returns the file's path."""
        if self.ending is not None:
            raise RuntimeError("the run is finished: log the model before finish()")
        path = self.spool.path.with_suffix(tensorfile.SUFFIX)
        path.write_bytes(tensorfile.dumps(state_dict))
        with self.spooling:
            self.spool.append([{"kind": "model", "file": path.name}])
            self.model = path
        return path

    def finish(self, status: str = "succeeded", message: str | None = None) -> bool:
        """End the run: the queued rounds and the end go to the spool at once, then the
        sender has up to the client's `finish_timeout_s` to send them. Returns whether
        the server has everything; if not, the spool holds it for `fedwatch sync`."""
        if self.ending is None:
            ending = {"status": status, "message": message, "finished_at": timestamp()}
            self._spool_queued(ending)
            self.deadline = time.monotonic() + self.fw.finish_timeout_s
            self.ending = ending
            self.wake.set()
        self.sender.join(max(0.0, self.deadline - time.monotonic()))
        return self.finished

    def __enter__(self) -> Run:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        if error is None:
            self.finish()
        else:
            self.finish("failed", f"{kind.__name__ if kind else 'error'}: {error}")

    def _refused(self, record: dict[str, Any], err: Refused) -> None:
        log.warning(
            "FedWatch refused round %s (%s); it stays in %s", record["round"], err, self.spool.path
        )

    def _send_loop(self) -> None:
        backoff, retry_at = 0.0, 0.0
        while True:
            self.wake.wait(self.fw.flush_s)
            ending = self.ending
            self._spool_queued()
            if self.error is None and (ending is not None or time.monotonic() >= retry_at):
                try:
                    self._deliver(ending)
                    backoff = 0.0
                except Unreachable as err:
                    backoff = min(max(2 * backoff, 0.25), MAX_BACKOFF_S)
                    retry_at = time.monotonic() + backoff
                    self._tell_spooling(err)
                    log.info("FedWatch unreachable (%s); retrying in %.2g s", err, backoff)
                except (Refused, TooLarge) as err:
                    self.error = err
                    log.warning(
                        "FedWatch refused the run (%s); it stays in %s", err, self.spool.path
                    )
            if self.finished or (
                ending is not None and (self.error or time.monotonic() > self.deadline)
            ):
                if not self.finished and not self.told:
                    log.warning("run not fully sent; upload it with `%s`", self._sync_command())
                return
            if ending is not None:  # finishing: retry at the backoff, not the flush interval
                time.sleep(max(0.0, min(retry_at, self.deadline) - time.monotonic()))

    def _sync_command(self) -> str:
        return f"fedwatch sync {self.spool.path.parent} --url {self.fw.url}"

    def _tell_spooling(self, err: Unreachable) -> None:
        """One line on stderr, at the first failed send: the run goes to the spool."""
        if not self.told:
            self.told = True
            print(
                f"fedwatch: {self.fw.url} unreachable ({err}); spooling the run to "
                f"{self.spool.path}; upload it later with `{self._sync_command()}`",
                file=sys.stderr,
                flush=True,
            )

    def _spool_queued(self, ending: dict[str, Any] | None = None) -> None:
        """Move the queued rounds to the spool, in order, then the run's `ending` if
        given (the sender's, `finish`'s and the exit hook's calls one at a time)."""
        with self.spooling:
            batch = []
            while self.queued:
                batch.append(self.queued.popleft())
            entries = [{"kind": "round", **r} for r in batch]
            if ending is not None:
                entries.append({"kind": "finish", **ending})
            if entries:
                self.spool.append(entries)
            self.unsent.extend(batch)

    def _send_model(self, path: Path) -> None:
        """Send the model; a refused one is a warning, not the end of the run."""
        try:
            self.uploader.send_model(path)
        except (Refused, TooLarge) as err:
            log.warning("FedWatch did not store the model (%s); it stays in %s", err, path)
        self.model = None

    def _deliver(self, ending: dict[str, Any] | None) -> None:
        run_id, created = self.uploader.ensure_run()
        if created:
            self.spool.append([{"kind": "created", "url": self.uploader.url, "run_id": run_id}])
        while self.unsent:
            batch = self.unsent[: self.uploader.batch_rounds]
            self.uploader.send(batch)
            del self.unsent[: len(batch)]
        if self.model is not None:
            self._send_model(self.model)
        if ending is not None:
            self.uploader.finish(ending["status"], ending["message"])
            self.finished = True


class FedWatch:
    """A FedWatch server to track runs in. `spool_dir` keeps each run's rounds on disk
    until the server has them (default `~/.cache/fedwatch/spool`); `flush_s` is how
    often the sender wakes: a killed process loses at most that much of its rounds.
    `finish_timeout_s` is the longest `finish` (the end of a `with` block) waits for the
    server: what is not sent by then stays in the spool for `fedwatch sync`;
    `timeout_s` is one request's."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        spool_dir: str | Path | None = None,
        *,
        flush_s: float = 1.0,
        batch_rounds: int = 200,
        timeout_s: float = 10.0,
        finish_timeout_s: float = 10.0,
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.spool_dir = Path(spool_dir) if spool_dir is not None else DEFAULT_SPOOL
        self.flush_s = flush_s
        self.batch_rounds = batch_rounds
        self.timeout_s = timeout_s
        self.finish_timeout_s = finish_timeout_s

    def start_run(
        self,
        name: str,
        config: Mapping[str, Any] | None = None,
        n_clients: int = 1,
        experiment: str | None = None,
        rounds: int | None = None,
        availability_period: int | None = None,
    ) -> Run:
        """Start tracking a run of `n_clients` clients (ids 0..n_clients − 1); `config`
        is any JSON-able mapping, `rounds` the rounds expected (for the progress),
        `availability_period` the rounds after which the clients' availability repeats
        (the summary's "x̄ last period" then averages the metric `param` over the last
        period). The server is told by the sender: this never waits for the network."""
        now = timestamp()
        declaration = {
            "name": name,
            "config": dict(config or {}),
            "n_clients": int(n_clients),
            "experiment": experiment,
            "rounds": rounds,
            "created_at": now,
            "started_at": now,
        }
        if availability_period is not None:  # a server before it knows no such field
            declaration["availability_period"] = availability_period
        return Run(self, declaration, Spool.create(self.spool_dir, declaration))

    def _transport(self) -> Transport:
        return Transport(self.url, self.token, self.timeout_s)

    def runs(
        self,
        experiment: int | str | None = None,
        tags: Sequence[str] | str | None = None,
        status: str | None = None,
        query: str | None = None,
    ) -> pd.DataFrame:
        """The server's runs as a DataFrame, one row a run: id, name, status, tags, ...,
        the flattened config (`client.lr`) and the summary values. `experiment`: an id or
        a name; `tags`: runs that carry all of them; `query`: text in the name or notes."""
        return read.list_runs(self._transport(), experiment, tags, status, query)

    def run(self, run_id: int) -> read.RunReader:
        """A run to read: `.history()`, `.clients(view)`, `.config`, `.summary`."""
        return read.RunReader(self._transport(), int(run_id))

    def tune(
        self,
        preset: str,
        space: Sequence[str] | Mapping[str, Mapping[str, Any]],
        *,
        methods: Sequence[str] | None = None,
        trials: int | None = None,
        seeds: int | None = None,
        objective: str | None = None,
        sampler: str | None = None,
        pruner: str | None = None,
        set: Sequence[str] | None = None,
        alpha: float | None = None,
        timeout_s: float | None = None,
        poll_s: float = 2.0,
        **options: Any,
    ) -> tuning.Tuned:
        """Tune each of `preset`'s methods (or `methods`) with the same budget on the
        validation split, then run each one's best settings on fresh seeds, on the
        server; waits until done (`timeout_s`: TimeoutError past it) and returns the
        tables (`fedwatch.tuning.Tuned`: `comparison`, `settings`, `trials` DataFrames).
        `space`: `["client.lr=log:1e-3:1"]` or `{"client.lr": {"kind": "log", "low":
        0.001, "high": 1}}`; `options`: the other fields of `POST /api/tunes`
        (`validation`, `parallel`, `prune_after`, ...). A refused tune raises `Refused`
        (its 422 names the key)."""
        fields = dict(methods=methods, trials=trials, seeds=seeds, objective=objective,
                      sampler=sampler, pruner=pruner, set=set, **options)  # fmt: skip
        transport = self._transport()
        tune_id = tuning.submit(transport, tuning.tune_body(preset, space, fields))
        return tuning.tables(transport, tuning.wait(transport, tune_id, timeout_s, poll_s), alpha)

    def compare(
        self,
        runs: Sequence[int] | int | str,
        *,
        reference: str | None = None,
        alpha: float | None = None,
        columns: Sequence[str] | None = None,
        group_by: str | None = None,
        labels: Mapping[str, str] | None = None,
    ) -> pd.DataFrame:
        """The comparison table of run ids, or of an experiment (id or name), as a
        DataFrame: a row a group (by its label; `labels` renames groups), mean/std/CI of
        each summary value and the test against the reference with Holm's adjusted p;
        `attrs` name the reference and the warnings (see `fedwatch.read.compare_table`)."""
        return read.compare_table(
            self._transport(), runs, reference=reference, alpha=alpha, columns=columns,
            group_by=group_by, labels=labels,
        )  # fmt: skip

"""`simulate(config, sink)`: the round loop that every algorithm shares (the round
contract is in `algorithms/base.py`)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import torch
from torch import Tensor

from worker.engine import checkpoint, threads
from worker.engine.algorithms import Algorithm, AlgorithmContext, Plan, Step, Summed
from worker.engine.algorithms.asynchronous import AsyncAlgorithm
from worker.engine.artifact import ModelFile, model_file
from worker.engine.availability import Availability, AvailabilityContext
from worker.engine.config import RunConfig
from worker.engine.data import FederatedData, load_data
from worker.engine.data.validation import Validation, hold_out
from worker.engine.masks import Available
from worker.engine.models import build_model, objective
from worker.engine.privacy.run import amplification, run_privacy
from worker.engine.process_age import process_age_s
from worker.engine.records import ClientFacts, ClientTimeline, RoundRecord, Summary
from worker.engine.registry import selected
from worker.engine.ring import VersionRing
from worker.engine.rng import numpy_gen, torch_gen
from worker.engine.sections import EvalSection
from worker.engine.server import ServerOptimizer
from worker.engine.sink import Sink
from worker.engine.summed_training import trains_into_sum
from worker.engine.system import build_system
from worker.engine.system.clock import Clock, Rules
from worker.engine.system.flights import Arrivals, FlightDeck
from worker.engine.system.timing import DISCARDED, PARTIAL
from worker.engine.tracker import Tracker
from worker.engine.training.backend import resolve_backend, resolve_device
from worker.engine.training.evaluate import (
    Evaluation,
    evaluate,
    evaluation_rows,
    pack,
    per_client_accuracy,
    row_bytes,
)
from worker.engine.training.flat import FlatModel
from worker.engine.training.trainer import Trainer


def build_availability(config: RunConfig, data: FederatedData) -> Availability:
    """The availability model `config` selects, for the clients of `data`."""
    entry, params = selected(config.availability, config.components.availability)
    facts = AvailabilityContext(
        data.n_clients, data.client_class, data.n_classes, config.seed, data.population
    )
    model: Availability = entry.component.from_params(params, facts)
    return model


def build_clock(config: RunConfig, data: FederatedData, dim: int) -> Clock | None:
    """The clock of the system model `config` selects (None: rounds take no time)."""
    model = build_system(config, data.n_clients, config.data.root)
    if model is None:
        return None
    r = config.round
    if asynchronous(config):  # no rounds: each client's window is its session
        return Clock(model, Rules(math.inf, config.client.partial_work == "keep", None), dim)
    keep = config.n_selected() if r.over_commit > 0 else None
    rules = Rules(r.deadline_s or math.inf, config.client.partial_work == "keep", keep)
    return Clock(model, rules, dim)


def asynchronous(config: RunConfig) -> bool:
    """Whether the run's algorithm runs in async mode (`algorithms/asynchronous.py`)."""
    return config.components.algorithms.get(config.algorithm.name).runs_async


def selection_size(config: RunConfig) -> int:
    """How many clients an algorithm selects: K, or ⌈(1 + o)·K⌉ over-committed; in
    async mode, how many train at once."""
    if asynchronous(config):
        _, params = selected(config.algorithm, config.components.algorithms)
        return int(params.concurrency)
    k = config.n_selected()
    return math.ceil((1 + config.round.over_commit) * k) if config.round.over_commit else k


def target_weights(config: RunConfig, data: FederatedData) -> Tensor:
    if config.algorithm.weights == "uniform":
        return torch.full((data.n_clients,), 1.0 / data.n_clients)
    sizes = data.sizes.float()
    return sizes / sizes.sum()


def evaluated(ev: EvalSection, t: int) -> bool:
    """Whether the schedule evaluates the model after round t (0-based); the engine
    also evaluates after the last round."""
    entry, params = selected(ev, ev.components.schedules)
    evaluates: bool = entry.component.evaluates(params, ev, t)
    return evaluates


class Simulation:
    """Everything one run needs, built from its config; `run` executes the rounds."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        torch.manual_seed(config.seed)
        self.device = resolve_device(config.device)
        data, validation = hold_out(
            load_data(config.data, config.seed),
            config.eval.validation,
            numpy_gen(config.seed, "validation"),
        )
        module = build_model(config.model, data.input_shape, data.n_classes)
        self.backend = resolve_backend(config.backend, module)
        self.data = data.to(self.device)
        self.validation = (
            None
            if validation is None
            else Validation(validation.x.to(self.device), validation.y.to(self.device))
        )
        self.model = FlatModel(module, objective(config.model, data.task)).to(self.device)
        self.eval_rows = evaluation_rows(
            config.eval.batch_size,
            row_bytes(module, data.input_shape),
            self.device.type == "cpu",
        )
        # the test set, read by every evaluation, packed once where that pays
        self.test_packed = pack(self.model, self.data.x_test, self.eval_rows, self.data.x_values)
        self.trainer = Trainer(config, self.data, self.model, self.backend)
        self.availability = build_availability(config, data)
        self.clock = build_clock(config, data, self.model.dim)
        pi = self.availability.pi
        if self.clock is not None and self.clock.pi is not None:
            pi = pi * self.clock.pi  # online at a round's start: both models must agree
        alpha = target_weights(config, data).to(self.device)
        entry, params = selected(config.algorithm, config.components.algorithms)
        facts = AlgorithmContext(
            n=data.n_clients,
            dim=self.model.dim,
            k=min(selection_size(config), data.n_clients),
            alpha=alpha,
            device=self.device,
            pi=pi,
            lam=self.availability.lam,
            probe_loss=self.trainer.probe_loss,
            rounds=config.rounds,
            server_lr=config.server.lr,
            seed=config.seed,
            local_steps=config.client.local_steps,
            local_momentum=config.client.momentum,
            test_loss=self.trainer.test_loss,
            local_optima=self.trainer.local_optima,
        )
        self.algorithm: Algorithm = entry.component(params, facts)
        self.declared = {spec.name for spec in self.algorithm.metric_specs}
        work_s = self.work_s()
        self.tracker = Tracker(alpha, config.eval.target_acc, self.availability.period, work_s)
        self.w = self.model.initial().to(self.device)
        self.server = ServerOptimizer(config.server, self.model.dim, self.device)
        self.deck: FlightDeck | None = None
        self.ring: VersionRing | None = None
        if isinstance(self.algorithm, AsyncAlgorithm):
            assert self.clock is not None  # the config checks ask for a system model
            self.deck = FlightDeck(self.clock, facts.k, data.n_clients)
            self.ring = VersionRing(self.algorithm.params.ring, self.model.dim, self.device)
            self.ring.push(0, self.w)
        rates = pi if amplification(config) is None else None
        self.privacy = run_privacy(config.privacy, data.n_clients, facts.k, config.seed, rates)
        self.into_sum = trains_into_sum(config)
        kept = None if self.privacy is None else self.privacy.rates
        share = alpha.detach().cpu().double().numpy()
        self.facts = ClientFacts(share, work_s, kept, self.availability.period)
        self.start_round = 0
        self.wall_s = 0.0
        self.startup_s: float | None = None

    def work_s(self) -> np.ndarray | None:
        """Each client's device time for a round's whole work (`Clock.work_s`); None
        without a system model."""
        if self.clock is None:
            return None
        _, samples = self.trainer.work(torch.arange(self.data.n_clients))
        return self.clock.work_s(samples)

    def run(self, sink: Sink, should_stop: Callable[[], bool] | None = None) -> Summary:
        stopped = False
        t = self.start_round
        self.startup_s = process_age_s()  # this process, up to its first round
        for t in range(self.start_round, self.config.rounds):
            if should_stop is not None and should_stop():
                stopped = True
                if t > self.start_round:  # where it stopped, so a resume loses nothing
                    sink.on_checkpoint(self.state_dict(t))
                break
            started = time.perf_counter()
            record = self.round(t)
            self.wall_s += time.perf_counter() - started
            record.wall_s = self.wall_s
            sink.on_round(record)
            threads.tick()
            done = t + 1
            if done % self.config.eval.checkpoint_every == 0 or done == self.config.rounds:
                sink.on_checkpoint(self.state_dict(done))
        else:
            t = self.config.rounds
        if not stopped:
            sink.on_model(self.model_file())
        return self.tracker.summary(t, self.wall_s, stopped, self.startup_s)

    def model_file(self) -> ModelFile:
        """The global model as it stands, as a file that rebuilds it."""
        return model_file(
            self.config.model_dump_json(),
            self.model.unflatten(self.w),
            self.model.buffers,
            self.data.input_shape,
            self.data.n_classes,
            self.config.rounds,
        )

    def round(self, t: int) -> RoundRecord:
        if self.deck is not None:
            return self.async_round(t)
        initial: dict[str, float] = {}
        if t == 0:
            self.evaluate_initial(initial)
        mask = self.availability.mask(t)
        started = 0.0
        if self.clock is not None:
            started = self.clock.now
            mask = self.clock.available(mask)
        available = Available.of(mask)
        plan = self.algorithm.select(t, self.w, available, torch_gen(self.config.seed, "select", t))
        metrics: dict[str, float] = {**initial, "n_available": float(len(available))}
        timeline = None
        if self.clock is not None and not plan.central:
            plan, timeline = self.timed(plan, started, metrics)
        elif not plan.central:
            planned, _ = self.trainer.work(plan.selected)
            plan = replace(plan, planned=self.on_device(planned))
        selected = plan.selected
        metrics["n_selected"] = float(len(selected))
        summed = self.summed(t, plan)
        trainees = torch.tensor([-1]) if plan.central else selected
        trained = None  # the (K, d) deltas, or with `summed` their sum (d,)
        if len(trainees):
            combine = None if summed is None else summed.coefficients
            trained, losses = self.trainer.train(
                t, self.w, trainees, plan.correction, plan.prox_mu, plan.steps, combine
            )
            metrics["train_loss"] = float(losses.mean())
        if summed is not None:
            step = summed.step_of_sum(self.data.n_clients, selected.to(self.device), trained)
            return self.close(t, step, selected, metrics, available, timeline)
        deltas = torch.zeros(0, self.model.dim, device=self.device) if trained is None else trained
        if self.privacy is not None:
            deltas, privatised = self.privacy.privatise(t, deltas)
            metrics.update(privatised)
        step = self.algorithm.aggregate(t, self.w, plan, deltas, self.trainer.lr(t))
        return self.close(t, step, selected, metrics, available, timeline)

    def summed(self, t: int, plan: Plan) -> Summed | None:
        """The weighted sum of the deltas that round t's step is, where the run trains
        into it (`trains_into_sum`: the algorithm gives one and no privacy mechanism
        clips each delta): the clients then train into it alone."""
        if plan.central or not self.into_sum:
            return None
        summed = self.algorithm.summed(t, plan)
        if summed is None:
            raise RuntimeError(
                f"algorithm {self.config.algorithm.name!r} declares that its steps are sums "
                "(`trains_into_sum`) but its `summed` gave none"
            )
        return summed

    def close(
        self,
        t: int,
        step: Step,
        selected: Tensor,
        metrics: dict[str, float],
        available: Available,
        timeline: ClientTimeline | None = None,
    ) -> RoundRecord:
        """Apply the round's step; its client metrics, evaluation and record."""
        self.w = self.server.step(self.w, step.direction)
        if self.ring is not None:
            self.ring.push(t + 1, self.w)
        if undeclared := step.metrics.keys() - self.declared:
            raise RuntimeError(
                f"algorithm {self.config.algorithm.name!r} reported metrics its class does "
                f"not declare in `metric_specs`: {sorted(undeclared)}"
            )
        metrics.update(step.metrics)
        now = None if self.clock is None else self.clock.now
        weights = step.client_weights()
        metrics.update(self.tracker.client_metrics(t, available, selected, weights, now))
        if self.privacy is not None:
            metrics.update(self.privacy.observe(selected))
        client_acc = self.evaluate(t, metrics)
        self.tracker.observe(t, metrics)
        return RoundRecord(
            round=t,
            metrics=metrics,
            available=available.ids.numpy(),
            selected=np.unique(selected.cpu().numpy()),  # the algorithm may keep its tensor
            weights=weights,
            client_acc=client_acc,
            timeline=timeline,
            clients=self.facts if t == 0 else None,
        )

    def async_round(self, t: int) -> RoundRecord:
        """Server update t of an async run: the next updates to arrive, trained at once
        from the versions they started from (those that left the ring dropped)."""
        deck, ring, clock = self.deck, self.ring, self.clock
        algorithm = self.algorithm
        assert deck is not None and ring is not None and clock is not None
        assert isinstance(algorithm, AsyncAlgorithm)
        metrics: dict[str, float] = {}
        if t == 0:
            self.evaluate_initial(metrics)
        allowed = self.availability.mask(t)
        seed = self.config.seed
        got = deck.collect(
            t,
            allowed,
            algorithm.params.arrivals,
            self.trainer.work,
            algorithm.start,
            lambda i: torch_gen(seed, "start", i),
        )
        arrived = got.updates
        version = torch.from_numpy(arrived.version)
        held = ring.holds(version)
        ids = torch.from_numpy(arrived.ids)[held]
        stale = t - version
        partial = arrived.outcome[held.numpy()] == PARTIAL
        origin = ring.gather(version[held])
        plan = Plan(
            selected=ids,
            planned=self.on_device(arrived.planned[held.numpy()]),
            steps=self.on_device(arrived.done[held.numpy()]) if partial.any() else None,
            staleness=stale[held],
            origin=origin,
        )
        lr = self.trainer.lr(t)
        if len(ids):
            deltas, losses = self.trainer.train(t, origin, ids, None, 0.0, plan.steps)
            metrics["train_loss"] = float(losses.mean())
        else:
            deltas = torch.zeros(0, self.model.dim, device=self.device)
        if self.privacy is not None:
            deltas, privatised = self.privacy.privatise(t, deltas)
            metrics.update(privatised)
        step = algorithm.aggregate(t, self.w, plan, deltas, lr)
        online = allowed
        if (sessions := clock.model.sessions) is not None:
            online = allowed & sessions.online(clock.now).to(allowed.device)
        available = Available.of(online)
        metrics.update(
            n_available=float(len(available)),
            n_selected=float(len(ids)),
            sim_time_s=clock.now,
            round_time_s=clock.now - got.since,
            **clock.traffic(got.started, len(arrived)),
            dropped_updates=float(len(got.stopped)),
            partial_updates=float(partial.sum()),
            stale_dropped=float(len(arrived) - len(ids)),
            in_flight=float(len(deck.flying)),
        )
        if len(stale):
            s = stale.double()
            metrics.update(
                update_staleness_mean=float(s.mean()),
                update_staleness_p90=float(torch.quantile(s, 0.9)),
                update_staleness_max=float(s.max()),
            )
        return self.close(t, step, ids, metrics, available, _async_timeline(got, held.numpy()))

    def timed(
        self, plan: Plan, started: float, metrics: dict[str, float]
    ) -> tuple[Plan, ClientTimeline]:
        """The round in simulated time, started at `started` (before any wait for a
        client to come online): the plan of the clients whose update the round keeps,
        with their planned and completed steps, and the timeline of every selected
        client; the clock's metrics go into `metrics`."""
        clock = self.clock
        assert clock is not None
        ids = plan.selected
        planned, samples = self.trainer.work(ids)
        start = clock.now
        times = clock.time(ids.numpy(), planned, samples)
        kept = times.kept
        rows = torch.from_numpy(np.flatnonzero(kept))
        correction = None if plan.correction is None else plan.correction[rows.to(self.device)]
        cut = bool((times.done[kept] < planned[kept]).any())
        plan = replace(
            plan,
            selected=ids[rows],
            correction=correction,
            planned=self.on_device(planned[kept]),
            steps=self.on_device(times.done[kept]) if cut else None,
        )
        metrics.update(clock.advance(times, started))
        timeline = ClientTimeline(
            ids=ids.numpy().astype(np.int64),
            start=start,
            download_end=times.download_end,
            compute_end=times.compute_end,
            end=times.end,
            outcome=times.outcome.astype(np.int8),
        )
        return plan, timeline

    def on_device(self, steps: np.ndarray) -> Tensor:
        """Clients' local steps as the algorithms read them (float32, on the device)."""
        return torch.from_numpy(steps).to(self.device, torch.float32)

    def evaluate(self, t: int, metrics: dict[str, float]) -> list[float] | None:
        ev = self.config.eval
        last = t + 1 == self.config.rounds
        if self.data.optimum is not None:
            metrics["param"] = float(self.w[0])
            metrics["opt_gap"] = (float(self.w[0]) - self.data.optimum) ** 2
        if not (last or evaluated(ev, t)):
            return None
        self.evaluate_validation(metrics)
        result = self._evaluate(self.data.x_test, self.data.y_test, self.test_packed)
        metrics["test_loss"] = result.loss
        if result.acc is None or result.correct is None:
            return None
        metrics["test_acc"] = result.acc
        if ev.client_every and ((t + 1) % ev.client_every == 0 or last):
            acc = per_client_accuracy(result.correct, self.data.test_offsets)
            valid = acc[~acc.isnan()].double()
            if len(valid):
                ordered = valid.sort().values
                tail = max(1, len(ordered) // 10)
                metrics["client_acc_mean"] = float(valid.mean())
                metrics["client_acc_var"] = float(valid.var(unbiased=False))
                metrics["client_acc_worst10"] = float(ordered[:tail].mean())
                metrics["client_acc_best10"] = float(ordered[-tail:].mean())
            return acc.tolist()
        return None

    def evaluate_validation(self, metrics: dict[str, float]) -> None:
        """The global model on the held-out split (`eval.validation`), where there is one."""
        if self.validation is None or not len(self.validation.y):
            return
        result = self._evaluate(self.validation.x, self.validation.y)
        metrics["val_loss"] = result.loss
        if result.acc is not None:
            metrics["val_acc"] = result.acc

    def evaluate_initial(self, metrics: dict[str, float]) -> None:
        """The model before round 0, where the schedule evaluates it (`initial_test_acc`
        in round 0's record)."""
        if not selected(self.config.eval, self.config.components.schedules)[0].component.initial:
            return
        result = self._evaluate(self.data.x_test, self.data.y_test, self.test_packed)
        if result.acc is not None:
            metrics["initial_test_acc"] = result.acc

    def _evaluate(self, x: Tensor, y: Tensor, packed: list[Tensor] | None = None) -> Evaluation:
        """The global model on samples `x` (held with the data's `x_values`, packed as
        `packed` where given) and labels `y`."""
        return evaluate(self.model, self.w, x, y, self.eval_rows, self.data.x_values, packed)

    def state_dict(self, next_round: int) -> dict[str, Any]:
        return {
            "version": checkpoint.VERSION,
            "round": next_round,
            "w": self.w.detach().cpu().clone(),
            "buffers": {n: b.detach().cpu().clone() for n, b in self.model.buffers.items()},
            "server": self.server.state_dict(),
            "trainer": self.trainer.state_dict(),
            "algorithm": self.algorithm.state_dict(),
            "availability": self.availability.state_dict(),
            "tracker": self.tracker.state_dict(),
            "wall_s": self.wall_s,
            **({} if self.clock is None else {"clock": self.clock.state_dict()}),
            **({} if self.deck is None else {"flights": self.deck.state_dict()}),
            **({} if self.ring is None else {"ring": self.ring.state_dict()}),
            **({} if self.privacy is None else {"privacy": self.privacy.state_dict()}),
        }

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        """A checkpoint of any version that loads (`worker/engine/checkpoint.py`), into a
        simulation that has run no round: the parts an older checkpoint lacks start as
        this one's."""
        fresh = partial(self.state_dict, 0)
        state = checkpoint.upgrade(saved, fresh, self.config.algorithm.name)
        self.start_round = int(state["round"])
        self.w = state["w"].to(self.device)
        for n, b in self.model.buffers.items():  # batch-norm statistics
            b.copy_(state["buffers"][n])
        self.server.load_state_dict(state["server"])
        self.trainer.load_state_dict(state["trainer"])
        self.algorithm.load_state_dict(state["algorithm"])
        self.availability.load_state_dict(state["availability"])
        self.tracker.load_state_dict(state["tracker"])
        self.wall_s = float(state["wall_s"])
        if self.clock is not None:
            self.clock.load_state_dict(state["clock"])
        if self.deck is not None and self.ring is not None:
            self.deck.load_state_dict(state["flights"])
            self.ring.load_state_dict(state["ring"])
        if self.privacy is not None:
            self.privacy.load_state_dict(state["privacy"])


def simulate(
    config: RunConfig,
    sink: Sink,
    checkpoint: dict[str, Any] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Summary:
    """Run `config` from the start, or from `checkpoint` (a state passed to
    `sink.on_checkpoint`); records go to `sink.on_round` as rounds finish."""
    sim = Simulation(config)
    if checkpoint is not None:
        sim.load_state_dict(checkpoint)
    return sim.run(sink, should_stop)


def _async_timeline(got: Arrivals, held: np.ndarray) -> ClientTimeline:
    """A server update's clients in simulated time: those whose updates arrived since
    the previous update (DISCARDED where the ring no longer held their version), then
    those that stopped with nothing, each from the moment it started."""
    arrived, stopped = got.updates, got.stopped
    outcome = np.where(held, arrived.outcome, DISCARDED).astype(np.int8)

    def both(name: str) -> np.ndarray:
        return np.concatenate([getattr(arrived, name), getattr(stopped, name)])

    return ClientTimeline(
        ids=both("ids"),
        start=got.since,
        download_end=both("download_end"),
        compute_end=both("compute_end"),
        end=both("end"),
        outcome=np.concatenate([outcome, stopped.outcome]),
        begin=both("begin"),
    )

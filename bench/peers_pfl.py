"""The pfl-research side of `bench/peers.py`: one FedAvg run under pfl's simulator.

Written as pfl's own benchmarks write a run (`benchmarks/image_classification/pytorch/
train.py` in apple/pfl-research): a `FederatedDataset.from_slices` of the users' shards
(contiguous rows of the shared training set), a `PyTorchModel` with
`local_optimizer_create=torch.optim.SGD` and a central `torch.optim.SGD` at the server
lr 1, a `SimulatedBackend` weighting by data points, `FederatedAveraging().run(...)`
with `NNAlgorithmParams` / `NNTrainHyperParams` / `NNEvalHyperParams`, and a
`CentralEvaluationCallback` on the shared test set every iteration. pfl trains the
cohort's users one after another in this process, on `PFL_PYTORCH_DEVICE`.

Where it differs from pfl's benchmark, to do FedWatch's work:
- the model is FedWatch's (its graph exported by `bench/peers.py` as `model.pt2`, the
  shared initial weights loaded by name) behind pfl's `loss`/`metrics` methods;
- a user's dataset yields `steps` batches drawn at random with replacement (pfl's
  `Dataset.iter` walks the rows in order, which stops after 2 batches of 32 in 50 rows);
  pfl's evaluation of a trainee still walks its rows once, in order;
- the cohort is drawn by pfl's `minimize_reuse` sampler (every user once before any
  twice, so a cohort of all N holds each user once) rather than `random`;
- pfl's evaluation of each trainee before and after its local training (in the
  iterations `evaluation_frequency` names) is left to the warm-up iteration alone, as
  FedWatch evaluates no trainee; the central evaluation runs every iteration.

Writes the time after each central iteration's evaluation (the first: when training
begins) and the final accuracy to `--out`.

    python -m bench.peers_pfl --data DIR --out FILE [--threads 1] [--device cpu]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from bench.peers import EVAL_BATCH, read_workload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    os.environ["PFL_PYTORCH_DEVICE"] = args.device  # read by pfl's ops at import
    from pfl.aggregate.simulate import SimulatedBackend
    from pfl.aggregate.weighting import WeightByDatapoints
    from pfl.algorithm import FederatedAveraging, NNAlgorithmParams
    from pfl.callback.base import TrainingProcessCallback
    from pfl.callback.central_evaluation import CentralEvaluationCallback
    from pfl.data import FederatedDataset
    from pfl.data.dataset import Dataset
    from pfl.data.sampling import get_user_sampler
    from pfl.hyperparam import NNEvalHyperParams, NNTrainHyperParams
    from pfl.internal.ops.pytorch_ops import get_default_device
    from pfl.metrics import Metrics, Weighted
    from pfl.model.pytorch import PyTorchModel

    data = args.data
    w = read_workload(data)
    torch.manual_seed(w.seed)

    class Classifier(nn.Module):
        """FedWatch's graph with the `loss` and `metrics` pfl's PyTorchModel calls."""

        def __init__(self) -> None:
            super().__init__()
            self.net = torch.export.load(data / "model.pt2").module()
            with np.load(data / "init.npz") as init:
                self.net.load_state_dict({k: torch.from_numpy(init[k]) for k in init.files})

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.net(x)
            return out

        def loss(self, x: torch.Tensor, y: torch.Tensor, eval: bool = False) -> torch.Tensor:
            return nn.functional.cross_entropy(self(x), y)

        def metrics(self, x: torch.Tensor, y: torch.Tensor, eval: bool = False) -> dict[str, Any]:
            with torch.no_grad():
                logits = self(x)
                loss = nn.functional.cross_entropy(logits, y, reduction="sum")
                correct = (logits.argmax(dim=1) == y).sum()
            return {
                "loss": Weighted(float(loss), len(y)),
                "accuracy": Weighted(float(correct), len(y)),
            }

    class Drawn(Dataset):
        """A user's rows, iterated as `steps` batches drawn with replacement for training;
        for an evaluation (pfl's of a trainee, in batches of `EVAL_BATCH`) once in order,
        as pfl's `Dataset` iterates them."""

        def __init__(self, x: torch.Tensor, y: torch.Tensor, gen: torch.Generator) -> None:
            super().__init__(raw_data=[x, y])
            self.gen = gen

        def iter(self, batch_size: int | None) -> Iterator[list[torch.Tensor]]:
            if batch_size == EVAL_BATCH:
                yield from super().iter(batch_size)
                return
            x, y = self.raw_data
            for _ in range(w.steps):
                rows = torch.randint(0, len(y), (batch_size or len(y),), generator=self.gen)
                rows = rows.to(y.device)
                yield [x[rows], y[rows]]

    device = get_default_device()

    def load(split: str) -> torch.Tensor:  # pfl's `to_tensor` would make labels floats
        return torch.from_numpy(np.load(data / f"{split}.npy")).to(device)

    x, y = load("x_train"), load("y_train")
    gen = torch.Generator().manual_seed(w.seed)
    shards = [slice(u * w.per_client, (u + 1) * w.per_client) for u in range(w.n_clients)]
    users = {u: Drawn(x[s], y[s], gen) for u, s in enumerate(shards)}
    sampler = get_user_sampler("minimize_reuse", list(range(w.n_clients)))
    training = FederatedDataset(lambda u: users[u], sampler)
    central = Dataset(raw_data=[load("x_test"), load("y_test")])

    module = Classifier().to(device)
    params = [p for p in module.parameters() if p.requires_grad]
    model = PyTorchModel(
        model=module,
        local_optimizer_create=torch.optim.SGD,
        central_optimizer=torch.optim.SGD(params, 1.0),
    )
    backend = SimulatedBackend(
        training_data=training, val_data=None, postprocessors=[WeightByDatapoints()]
    )
    eval_params = NNEvalHyperParams(local_batch_size=EVAL_BATCH)
    stamps: list[float] = []
    accs: list[float] = []

    class Stopwatch(TrainingProcessCallback):
        """Notes the time and central accuracy once the evaluation has run."""

        def on_train_begin(self, *, model: Any) -> Metrics:
            stamps.append(time.perf_counter())
            return Metrics()

        def after_central_iteration(
            self, aggregate_metrics: Metrics, model: Any, *, central_iteration: int
        ) -> tuple[bool, Metrics]:
            stamps.append(time.perf_counter())
            accs.extend(v.overall_value for k, v in aggregate_metrics if "accuracy" in str(k))
            return False, Metrics()

    evaluation = CentralEvaluationCallback(central, model_eval_params=eval_params, frequency=1)
    FederatedAveraging().run(
        algorithm_params=NNAlgorithmParams(
            central_num_iterations=w.total_rounds,
            # pfl evaluates each trainee before and after local training in the
            # iterations it evaluates; FedWatch does not: only the warm-up does here.
            evaluation_frequency=w.total_rounds + 1,
            train_cohort_size=w.k,
            val_cohort_size=0,
        ),
        backend=backend,
        model=model,
        model_train_params=NNTrainHyperParams(
            local_learning_rate=w.lr,
            local_num_epochs=None,
            local_num_steps=w.steps,
            local_batch_size=w.batch,
        ),
        model_eval_params=eval_params,
        callbacks=[evaluation, Stopwatch()],
    )
    result = {
        "round_s": [b - a for a, b in itertools.pairwise(stamps)],
        "final_acc": accs[-1],
    }
    args.out.write_text(json.dumps(result))


if __name__ == "__main__":
    main()

"""Run FedLaAvg's official `train/server.py` unchanged, with two harmless shortcuts.

- torchvision's MNIST decodes a PIL image and applies the transform on every access; the
  official code reads each training image thousands of times. Here each sample's
  transformed tensor is computed once, with the very transform the official code passes,
  and reused: the batches are the same tensors, drawn by the same samplers.
- The logger's CSV lines are flushed as they are written, so that a run stopped early
  keeps every point it logged.
- Modules that only the Sentiment140, Taobao and TensorBoard paths use (bs4, nltk,
  gensim, sklearn, TensorBoard's writer) are stood in for where they are not installed;
  the MNIST path calls none of them.

The authors' code has no FedAdam. `--fedadam LR` runs its FedAvg (same clients,
availability, selection and local training) with the server step replaced by Reddi et
al.'s Adam on the averaged update Δ̄ (β₁ 0.9, β₂ 0.99, τ 1e-3, server lr LR): the only
lines that are not the authors'.

Usage: python run_authors.py <project dir> [--fedadam LR] <server.py arguments...>
"""

import importlib
import os
import sys
import types

import torchvision


class MNIST(torchvision.datasets.MNIST):
    """Named as its parent: torchvision finds the files under `<root>/MNIST/raw`."""

    def __getitem__(self, index):
        memo = self.__dict__.setdefault("_memo", {})
        if index not in memo:
            memo[index] = super().__getitem__(index)
        return memo[index]


class _Writer:
    def __init__(self, *args, **kwargs):
        pass

    def add_scalar(self, *args, **kwargs):
        pass

    flush = close = add_scalar


def _stand_in(name, **attrs):
    try:
        importlib.import_module(name)
    except ImportError:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
        for key, value in attrs.items():
            setattr(sys.modules[name], key, value)


def fedadam(server_module, server_lr, beta1=0.9, beta2=0.99, tau=1e-3):
    """Server.update of mode fedavg as FedAdam: Δ̄ = −lr·(averaged grad sum)."""
    import torch

    def update(self, model, lr, **kwargs):
        if self.mode != "fedavg":
            raise ValueError("--fedadam runs with -alg fedavg")
        if getattr(self, "adam_m", None) is None:
            self.adam_m = [torch.zeros_like(p) for p in model.parameters()]
            self.adam_v = [torch.zeros_like(p) for p in model.parameters()]
        for gs, m, v, par in zip(
            self.grad_sum, self.adam_m, self.adam_v, model.parameters(), strict=True
        ):
            delta = -lr * gs
            m.mul_(beta1).add_((1 - beta1) * delta)
            v.mul_(beta2).add_((1 - beta2) * delta**2)
            par.data.add_(server_lr * m / (v.sqrt() + tau))

    server_module.Server.update = update


def main():
    adam_lr = None
    if sys.argv[2] == "--fedadam":
        adam_lr = float(sys.argv[3])
        del sys.argv[2:4]
    project = os.path.abspath(sys.argv[1])
    scripts = os.path.join(project, "scripts")
    sys.path[:0] = [scripts, os.path.join(scripts, "train")]
    _stand_in("bs4", BeautifulSoup=None)
    _stand_in("nltk")
    _stand_in("gensim.models", KeyedVectors=None)
    _stand_in("gensim.scripts.glove2word2vec", glove2word2vec=None)
    _stand_in("sklearn.metrics")
    _stand_in("torch.utils.tensorboard", SummaryWriter=_Writer)
    torchvision.datasets.MNIST = MNIST
    import utils.logger

    write = utils.logger.Logger.add_scalar

    def add_scalar(self, tag, scalar, x, time="", write_file=True):
        write(self, tag, scalar, x, time, write_file)
        if write_file:
            self.log_handlers[tag].flush()

    utils.logger.Logger.add_scalar = add_scalar
    sys.argv = [os.path.join(scripts, "train", "server.py"), *sys.argv[2:]]
    import server  # the official train/server.py

    if adam_lr is not None:
        fedadam(server, adam_lr)
    server.main()


if __name__ == "__main__":
    main()

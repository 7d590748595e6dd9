"""Indices of a mask's true (nonzero) entries, at memory speed.

On the CPU, torch's `nonzero` costs about ten times NumPy's `flatnonzero` on a mask of
10⁶ clients (33 ms against 3 ms a call, one thread): with several such calls a round,
it set the cost of a round at a million clients. Same indices, same order, int64.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor


def ids_of(mask: Tensor) -> Tensor:
    """The positions of the nonzero entries of the 1-D `mask`, in increasing order,
    int64, on the mask's device."""
    if mask.device.type != "cpu":
        return mask.nonzero().flatten()
    return torch.from_numpy(np.flatnonzero(mask.detach().numpy()).astype(np.int64, copy=False))

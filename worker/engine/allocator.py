"""Keep freed large blocks in the process heap, so that the next step reuses them.

Training all clients at once allocates and frees activations and gradients of several
MB per layer at every step. By default glibc serves such blocks with a fresh `mmap` and
unmaps them on free, so each step pays again for page faults on memory it has just
given back: about 40 000 faults per round of `bench/engine.py`'s CNN, up to a fifth of
the `vmap` backend's time. `keep_freed_memory` raises the mmap threshold to its largest
value (32 MB) and the heap trim threshold to 512 MB, the tuning `mallopt(3)` documents;
a process then keeps up to that much freed memory for reuse. Called once at start-up
by the `fedwatch` command (simulate, serve and worker) and by the benchmark.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest on 64-bit systems
TRIM_THRESHOLD = 512 << 20


def keep_freed_memory() -> bool:
    """Tune glibc's allocator as above; False where the C library is not glibc."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mmap = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    return bool(mmap and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))

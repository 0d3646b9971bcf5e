"""Where LDP work runs: CUDA when available, else the CPU; ``PRIVCORE_DEVICE`` overrides.

torch is imported here, lazily, the first time it is needed, and runs on one thread
unless ``PRIVCORE_TORCH_THREADS`` asks for more. Chosen by measurement on a 2-core
machine shared with other work (1 and 2 threads interleaved, 15 runs each): with one
core idle, two threads made the torch samplers about 1.3–1.45× faster (GRR, d = 8: 163
against 124 M reports/s; OLH, d = 100: 52 against 41; Laplace: 118 against 82; OB of
SHE at d = 100: 0.78 against 1.06 s) and changed nothing for the unary encodings and
THE (their bits are drawn by NumPy, 3.2 M reports/s at d = 1,024 either way); with both
cores busy, the second thread waited for the busy one: OB of OLH at d = 100 took 3.14 s
against 0.45 s (median), of SHE 2.84 against 1.17 s, and the Laplace sampler's slowest
tenth ran at 29 against 62 M/s. One thread loses at most a third where a core is free
and avoids a several-fold loss where none is, and it leaves the other cores to the
app's other visitors.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import numpy as np

from privcore.errors import ParameterError


@cache
def torch_module() -> Any:
    """The torch module (imported on first use). Without torch (``pip install .``
    without the ``ldp`` extra) the LDP auditor says so instead of failing.

    Unless the environment says otherwise, torch backs its CPU tensors of 2 MB and more
    with transparent huge pages (``THP_MEM_ALLOC_ENABLE``, read by torch at its first
    large allocation): a fresh report batch is written once, and touching new memory
    page by page cost 0.45 ns per byte here against 0.07 with huge pages — more than
    drawing the unary encodings' bits (0.3 ns each)."""
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    try:
        import torch
    except ImportError as exc:
        raise ParameterError(
            "The LDP auditor needs PyTorch, which is not installed here: "
            "pip install 'privacy-workbench[ldp]' (or torch itself).",
            code="ldp.no_torch",
        ) from exc
    torch.set_num_threads(torch_threads())
    return torch


DEFAULT_THREADS = 1
"""torch's threads unless ``PRIVCORE_TORCH_THREADS`` says otherwise (see the module
docstring for the measurement)."""


def torch_threads() -> int:
    """``PRIVCORE_TORCH_THREADS`` when it is a whole number > 0, else DEFAULT_THREADS."""
    threads = os.environ.get("PRIVCORE_TORCH_THREADS", "").strip()
    return int(threads) if threads.isdigit() and int(threads) > 0 else DEFAULT_THREADS


def device() -> str:
    """ "cuda" when torch sees a GPU, else "cpu"; ``PRIVCORE_DEVICE`` (cpu, cuda, cuda:N)
    overrides, and asking for CUDA where there is none is a clear error."""
    torch = torch_module()
    wanted = os.environ.get("PRIVCORE_DEVICE", "").strip().lower()
    if wanted:
        if wanted.startswith("cuda") and not torch.cuda.is_available():
            raise ParameterError(
                f"PRIVCORE_DEVICE={wanted} but no CUDA device is available here; use cpu.",
                code="ldp.no_cuda",
                device=wanted,
            )
        if wanted != "cpu" and not wanted.startswith("cuda"):
            raise ParameterError(
                f"PRIVCORE_DEVICE must be cpu, cuda or cuda:N, not '{wanted}'.",
                code="ldp.bad_device",
                device=wanted,
            )
        return wanted
    return "cuda" if torch.cuda.is_available() else "cpu"


def generator(seed: int, on: str | None = None) -> Any:
    """A seeded torch.Generator on the chosen device."""
    torch = torch_module()
    gen = torch.Generator(device=on or device())
    gen.manual_seed(int(seed))
    return gen


def numpy_generator(gen: Any) -> np.random.Generator:
    """A NumPy generator (PCG64) seeded by one 62-bit draw from the torch generator
    ``gen``: the same torch seed (and state) gives the same NumPy stream, so a replayed
    torch generator replays it too.

    On the CPU the samplers take their raw random bits and their counts from it: PCG64
    gives 8 random bytes in about 1.7 ns where torch's CPU generator (mt19937) spends
    about 2 ns on each float32 uniform, and NumPy draws binomial, multinomial and
    hypergeometric counts exactly (BTPE, conditional binomials, HRUA), which torch does
    not offer."""
    torch = torch_module()
    seed = torch.randint(0, 2**62, (1,), generator=gen, device=gen.device, dtype=torch.int64)
    return np.random.Generator(np.random.PCG64(int(seed.item())))

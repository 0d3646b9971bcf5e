"""Where LDP work runs: CUDA when available, else the CPU; ``PRIVCORE_DEVICE`` overrides.

torch is imported here, lazily, the first time it is needed, and runs on
``PRIVCORE_TORCH_THREADS`` threads when that is set (the hosted demo sets 1, so that an
audit leaves the other cores to the other visitors; otherwise torch's own default).
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from privcore.errors import ParameterError


@cache
def torch_module() -> Any:
    """The torch module (imported on first use). Without torch (``pip install .``
    without the ``ldp`` extra) the LDP auditor says so instead of failing."""
    try:
        import torch
    except ImportError as exc:
        raise ParameterError(
            "The LDP auditor needs PyTorch, which is not installed here: "
            "pip install 'privacy-workbench[ldp]' (or torch itself).",
            code="ldp.no_torch",
        ) from exc
    threads = os.environ.get("PRIVCORE_TORCH_THREADS", "").strip()
    if threads.isdigit() and int(threads) > 0:  # a shared server keeps cores for others
        torch.set_num_threads(int(threads))
    return torch


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

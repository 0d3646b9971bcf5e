"""LDP: sampler throughput against pure-ldp, OB audit time, and the certified bound.

- Throughput at d = 100, ε = 1, same run: pure-ldp 1.2 privatises one value per call
  (its clients, timed on 20,000 calls); privcore perturbs a batch of 1,000,000 users
  (torch, CPU here). Target ≥ 20× each.
- A full OB audit of every mechanism at n = 40,000 per input (bootstrap 50): target
  ≤ 2 s on CPU.
- The certified lower bound with 10⁶ samples per input for every correct pure
  mechanism at ε = 1, 2, 4: target within 5 % of the true ε (white-box event), with the
  black-box (learned event) bound beside it, and the time.
"""

from __future__ import annotations

import time

import numpy as np
from _util import table

D, EPSILON = 100, 1.0


def _rate_pure(client, calls: int = 20_000) -> float:
    rng = np.random.default_rng(0)
    values = rng.integers(1, D + 1, calls)  # pure-ldp indexes the domain from 1
    start = time.perf_counter()
    for v in values:
        client.privatise(int(v))
    return calls / (time.perf_counter() - start)


def _rate_ours(name: str, n: int = 1_000_000) -> float:
    import torch

    from privcore.ldp.device import device, generator
    from privcore.ldp.mechanisms import make

    mechanism = make(name, EPSILON, d=D)
    gen = generator(0, device())
    inputs = torch.randint(0, D, (n,), generator=gen, device=device())
    mechanism.perturb(inputs[:1000], gen)  # warm-up
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        mechanism.perturb(inputs, gen)
        best = min(best, time.perf_counter() - start)
    return n / best


def _xxhash_accepts_text() -> None:
    """pure-ldp 1.2 hashes str values; xxhash ≥ 2 wants bytes. Encode on the way in
    (costs pure-ldp one .encode() per call, which is negligible next to its hashing)."""
    import xxhash

    original = xxhash.xxh32
    if getattr(original, "_accepts_text", False):
        return

    def xxh32(data, seed=0):
        return original(data.encode() if isinstance(data, str) else data, seed=seed)

    xxh32._accepts_text = True
    xxhash.xxh32 = xxh32


def throughput_rows() -> list[list]:
    _xxhash_accepts_text()
    from pure_ldp.frequency_oracles.direct_encoding.de_client import DEClient
    from pure_ldp.frequency_oracles.local_hashing.lh_client import LHClient
    from pure_ldp.frequency_oracles.unary_encoding.ue_client import UEClient

    peers = {
        "grr": DEClient(EPSILON, D),
        "olh": LHClient(EPSILON, D, use_olh=True),
        "sue": UEClient(EPSILON, D, use_oue=False),
        "oue": UEClient(EPSILON, D, use_oue=True),
    }
    rows = []
    for name, client in peers.items():
        theirs = _rate_pure(client)
        ours = _rate_ours(name)
        rows.append(
            [
                name.upper(),
                f"{theirs / 1e3:,.0f} k/s",
                f"{ours / 1e6:,.2f} M/s",
                f"{ours / theirs:,.0f}×",
            ]
        )
    return rows


def ob_rows() -> list[list]:
    from privcore.ldp.audit import audit_ob
    from privcore.ldp.mechanisms import MECHANISMS, make

    rows = []
    for name, cls in MECHANISMS.items():
        mechanism = make(name, EPSILON, d=D if cls.family == "frequency" else None)
        start = time.perf_counter()
        report = audit_ob(mechanism, n=40_000, seed=0, bootstrap=50)
        seconds = time.perf_counter() - start
        rows.append(
            [
                name,
                f"{mechanism.true_epsilon():.3f}",
                f"{report.epsilon_hat:.3f}",
                f"[{report.ci[0]:.3f}, {report.ci[1]:.3f}]",
                f"{seconds:.2f}",
            ]
        )
    return rows


def bound_rows() -> list[list]:
    from privcore.ldp.audit import lower_bound
    from privcore.ldp.mechanisms import MECHANISMS, make

    rows = []
    for name, cls in MECHANISMS.items():
        if cls.broken:
            continue
        for epsilon in (1.0, 2.0, 4.0):
            mechanism = make(name, epsilon, d=D if cls.family == "frequency" else None)
            start = time.perf_counter()
            white = lower_bound(mechanism, n=1_000_000, seed=0, mode="white")
            white_s = time.perf_counter() - start
            start = time.perf_counter()
            black = lower_bound(mechanism, n=1_000_000, seed=0, mode="black")
            black_s = time.perf_counter() - start
            true = mechanism.true_epsilon()
            rows.append(
                [
                    name,
                    f"{epsilon:g}",
                    f"{true:.3f}",
                    f"{white.epsilon_lb:.3f}",
                    f"{white.epsilon_lb / true:.1%}",
                    f"{white_s:.1f}",
                    f"{black.epsilon_lb:.3f}",
                    f"{black.epsilon_lb / true:.1%}",
                    f"{black_s:.1f}",
                ]
            )
    return rows


def main() -> str:
    out = table(["mechanism (d=100, ε=1)", "pure-ldp", "privcore", "speed-up"], throughput_rows())
    out += "\n\n" + table(
        ["mechanism", "true ε", "OB ε̂_max", "95 % bootstrap", "seconds"], ob_rows()
    )
    out += "\n\n" + table(
        ["mechanism", "ε", "true ε", "ε_LB white", "of true", "s", "ε_LB black", "of true", "s"],
        bound_rows(),
    )
    return out


if __name__ == "__main__":
    print(main())

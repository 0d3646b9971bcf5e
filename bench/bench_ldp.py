"""LDP: sampler throughput against pure-ldp, OB audit time, and the certified bound.

- Throughput at d = 8, 100 and 1,024, ε = 1, same run, for every mechanism pure-ldp 1.2
  has (GRR as its direct encoding, BLH and OLH as LHClient, SUE and OUE as UEClient,
  SHE and THE as HEClient — THE's client is SHE's, the threshold is applied by its
  server): pure-ldp privatises one value per call (20,000 calls, best of 3); privcore
  on one torch thread (its default), two rows per mechanism:
  * the audit's path: the counts an audit draws for 10⁶ reports of one input, without
    the reports — OB's per-coordinate counts in both halves (GRR, SUE, OUE, THE), or
    the event count of AB and the white-box bound (BLH, OLH, SHE, whose OB needs the
    reports) — in users per second (best of 5). Target ≥ 100×.
  * the per-report path: perturb a batch of min(10⁶, 2²⁵/d) users (best of 3). Target
    ≥ 20×.
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
DOMAINS = (8, 100, 1024)
PEERS = ("grr", "blh", "olh", "sue", "oue", "she", "the")
OB_COUNTED = ("grr", "sue", "oue", "the")  # OB's counts drawn without the reports
AUDIT_TARGET, REPORT_TARGET = 100, 20


def _rate_pure(client, d: int, calls: int = 20_000) -> float:
    """pure-ldp's privatised values per second (best of 3 runs of ``calls`` calls)."""
    rng = np.random.default_rng(0)
    values = [int(v) for v in rng.integers(1, d + 1, calls)]  # pure-ldp counts from 1
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for v in values:
            client.privatise(v)
        best = min(best, time.perf_counter() - start)
    return calls / best


def _best(run, repeats: int) -> float:
    run()  # warm-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def _rate_ours(name: str, d: int = D) -> float:
    """Reports perturbed per second, a batch of min(10⁶, 2²⁵/d) users."""
    import torch

    from privcore.ldp.device import device, generator
    from privcore.ldp.mechanisms import make

    n = 1_000_000 if name in ("grr", "blh", "olh") else min(1_000_000, 2**25 // d)
    mechanism = make(name, EPSILON, d=d)
    gen = generator(0, device())
    inputs = torch.randint(0, d, (n,), generator=gen, device=device())
    return n / _best(lambda: mechanism.perturb(inputs, gen), 3)


def _rate_counts(name: str, d: int, n: int = 1_000_000) -> float:
    """Reports per second an audit accounts for when it draws their counts: OB's counts
    of one input in both halves (chunks as the audit plans them), or one event count."""
    from privcore.ldp import counts
    from privcore.ldp.audit import memory_plan
    from privcore.ldp.device import device, generator
    from privcore.ldp.mechanisms import make

    mechanism = make(name, EPSILON, d=d)
    gen = generator(0, device())
    if name in OB_COUNTED:
        rows = memory_plan("ob", mechanism, n=n).chunk_rows
        source = counts.counted_reports(mechanism, [0, 1], rows, gen, device())
        return n / _best(lambda: source.halves(0, n), 5)
    v, w = mechanism.worst_pair()
    return n / _best(lambda: counts.event_count(mechanism, v, w, 0, n, gen), 5)


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


def _peer(name: str, d: int):
    _xxhash_accepts_text()
    from pure_ldp.frequency_oracles.direct_encoding.de_client import DEClient
    from pure_ldp.frequency_oracles.histogram_encoding.he_client import HEClient
    from pure_ldp.frequency_oracles.local_hashing.lh_client import LHClient
    from pure_ldp.frequency_oracles.unary_encoding.ue_client import UEClient

    return {
        "grr": lambda: DEClient(EPSILON, d),
        "blh": lambda: LHClient(EPSILON, d, g=2),
        "olh": lambda: LHClient(EPSILON, d, use_olh=True),
        "sue": lambda: UEClient(EPSILON, d, use_oue=False),
        "oue": lambda: UEClient(EPSILON, d, use_oue=True),
        "she": lambda: HEClient(EPSILON, d),
        "the": lambda: HEClient(EPSILON, d),
    }[name]()


def _speed(rate: float) -> str:
    if rate >= 1e9:
        return f"{rate / 1e9:,.1f} G/s"
    if rate >= 1e6:
        return f"{rate / 1e6:,.2f} M/s"
    return f"{rate / 1e3:,.0f} k/s"


def throughput_rows() -> list[list]:
    rows = []
    for d in DOMAINS:
        for name in PEERS:
            theirs = _rate_pure(_peer(name, d), d)
            counted = "OB counts" if name in OB_COUNTED else "event count"
            for path, ours, target in (
                (f"audit ({counted})", _rate_counts(name, d), AUDIT_TARGET),
                ("per report", _rate_ours(name, d), REPORT_TARGET),
            ):
                ratio = ours / theirs
                rows.append(
                    [
                        name.upper(),
                        f"{d:,}",
                        path,
                        _speed(theirs),
                        _speed(ours),
                        f"{ratio:,.0f}×",
                        f"{target}×",
                        "yes" if ratio >= target else "**no**",
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
    out = table(
        ["mechanism (ε=1)", "d", "path", "pure-ldp", "privcore", "speed-up", "target", "met"],
        throughput_rows(),
    )
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

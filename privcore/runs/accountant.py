"""A privacy accountant: a named (ε, δ) budget that every differentially private run
spends from, the same for the pages and the command line.

:func:`privcore.runs.run` given ``budget=`` checks the run's cost against what remains
*before* the run starts (a run over the budget is refused with the code
``dp.budget_exceeded``: nothing is drawn, released or recorded), and after the run
succeeds writes the
spend to the ledger and to the run's history row (``results["budget"]``: the budget's
name, this run's (ε, δ) and what is spent and left), so the history holds the ledger.
A run that fails or is cancelled spends nothing.

Spending composes sequentially: runs with (ε₁, δ₁), …, (ε_k, δ_k) on the same data are
(Σε_i, Σδ_i)-DP (Dwork & Roth 2014, Theorem 3.16), as :class:`privcore.dp.Budget` adds
them. What a request costs (:func:`cost_of`): a DP query ``draws`` × its ε (and × its δ
when the noise is Gaussian; geometric and Laplace noise are pure ε-DP); a DP release its
ε (and its δ when made by MST or AIM, which are (ε, δ)-DP). The accuracy view, the
dinner story and the audits of mechanisms spend nothing: they draw noise on simulated
data or show the noise itself, not an answer about the table.

A budget lives in memory (a page's session) or in a JSON file (``--budget-file`` of the
command line, so that the steps of a pipeline share one budget): :meth:`Accountant.open`
reads it or starts it, and every spend rewrites it atomically (a new file moved into
place).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from privcore.core.composition import Composition
from privcore.core.jsonsafe import plain
from privcore.errors import ParameterError

__all__ = ["Accountant", "LedgerLine", "cost_of"]

_FORMAT = 1


def cost_of(request: Any) -> tuple[float, float] | None:
    """The (ε, δ) a request spends, or ``None`` when it releases nothing about the
    table (see the module docstring)."""
    kind = getattr(request, "kind", None)
    if kind == "dp_query":
        delta = (request.delta or 0.0) if request.noise == "gaussian" else 0.0
        return request.epsilon * request.draws, delta * request.draws
    if kind == "dp_release":
        if request.method == "marginals":
            return float(request.epsilon), 0.0
        from privcore.dp.synthesis import DEFAULT_DELTA

        delta = DEFAULT_DELTA if request.delta is None else float(request.delta)
        return float(request.epsilon), delta
    return None


def _label_of(request: Any) -> str:
    """A ledger line's default label: the query and its columns (names, never values)."""
    if request.kind == "dp_query":
        columns = request.column or ", ".join(request.columns) or "*"
        return f"{request.query}({columns})"
    return f"release({', '.join(request.qi)} → {', '.join(request.sa)})"


@dataclass(frozen=True)
class LedgerLine:
    """One spend: what it was (``label``, the run's ``kind``), its (ε, δ) and when."""

    label: str
    kind: str
    epsilon: float
    delta: float
    at: str

    def to_dict(self) -> dict[str, Any]:
        return plain(asdict(self))


class Accountant(Composition):
    """A named budget of (``epsilon``, ``delta``) with its ledger of runs
    (:class:`~privcore.core.composition.Composition`); ``path``: the JSON file it is
    kept in (``None``: in memory)."""

    def __init__(
        self, name: str, epsilon: float, delta: float = 0.0, *, path: Path | None = None
    ) -> None:
        from privcore.core.privacy_parameters import check_delta, check_epsilon

        if not isinstance(name, str) or not name.strip():
            raise ParameterError(
                "A privacy budget needs a name.", code="dp.budget_name", name=str(name)
            )
        super().__init__(check_epsilon(epsilon), check_delta(delta, allow_zero=True))
        self.name = name.strip()
        self.path = None if path is None else Path(path)

    def check(self, request: Any) -> tuple[float, float] | None:
        """The request's cost, refused with :class:`~privcore.errors.InfeasibleError`
        ``dp.budget_exceeded`` when it is above what remains; ``None``: it spends
        nothing."""
        cost = cost_of(request)
        if cost is not None:
            self._refuse_if_over(*cost)
        return cost

    def charge(self, request: Any, label: str | None = None) -> dict[str, Any] | None:
        """Write the request's cost to the ledger (checked again first) and to the file;
        returns what the run's history row keeps of it, ``None`` when it costs nothing."""
        cost = self.check(request)
        if cost is None:
            return None
        line = LedgerLine(
            label=label or _label_of(request),
            kind=request.kind,
            epsilon=cost[0],
            delta=cost[1],
            at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        )
        self._ledger.append(line)
        self.save()
        totals = self.totals()
        return plain(
            {
                "name": self.name,
                "epsilon": line.epsilon,
                "delta": line.delta,
                **{k: v for k, v in totals.items() if k.startswith(("spent", "remaining"))},
            }
        )

    # ------------------------------------------------------------------ the file

    def to_dict(self) -> dict[str, Any]:
        totals = self.totals()
        return plain(
            {
                "format": _FORMAT,
                "name": self.name,
                "epsilon": self.epsilon,
                "delta": self.delta,
                "spent_epsilon": totals["spent_epsilon"],
                "spent_delta": totals["spent_delta"],
                "ledger": [line.to_dict() for line in self._ledger],
            }
        )

    def save(self) -> None:
        """Rewrite the budget's file (nothing for a budget in memory): written to a new
        file beside it, then moved into place, so a reader never sees half a ledger."""
        if self.path is None:
            return
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"
        folder = self.path.resolve().parent
        handle, temporary = tempfile.mkstemp(prefix=".budget-", suffix=".json", dir=folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        name: str | None = None,
        epsilon: float | None = None,
        delta: float | None = None,
    ) -> Accountant:
        """The budget kept in ``path``; a new one (``epsilon`` and ``delta``, named
        ``name`` or after the file) when the file does not exist yet. Totals given for
        an existing file must be its own (``dp.budget_file_totals``): a pipeline cannot
        enlarge a budget by asking again."""
        path = Path(path)
        if not path.exists():
            if epsilon is None:
                raise ParameterError(
                    f"The budget file {path.name} does not exist yet: give the budget's total "
                    "ε to start it.",
                    code="dp.budget_file_new",
                    file=path.name,
                )
            return cls(name or path.stem, epsilon, delta or 0.0, path=path)
        accountant = cls._read(path)
        asked = (epsilon, delta)
        held = (accountant.epsilon, accountant.delta)
        if any(a is not None and not math.isclose(a, h) for a, h in zip(asked, held, strict=True)):
            raise ParameterError(
                f"The budget file {path.name} holds a budget of ε = {accountant.epsilon:g}, "
                f"δ = {accountant.delta:g}; it cannot be changed by a later run.",
                code="dp.budget_file_totals",
                file=path.name,
                epsilon=accountant.epsilon,
                delta=accountant.delta,
            )
        return accountant

    @classmethod
    def _read(cls, path: Path) -> Accountant:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            accountant = cls(data["name"], data["epsilon"], data.get("delta", 0.0), path=path)
            accountant._ledger = [
                LedgerLine(
                    str(line["label"]),
                    str(line["kind"]),
                    float(line["epsilon"]),
                    float(line["delta"]),
                    str(line["at"]),
                )
                for line in data.get("ledger", [])
            ]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ParameterError(
                f"The budget file {path.name} cannot be read as a privacy budget: {exc}.",
                code="dp.budget_file_bad",
                file=path.name,
            ) from exc
        return accountant

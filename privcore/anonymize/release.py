"""The release an anonymization algorithm returns, and what it records of its making.

:class:`Release` holds the released table (the original row order, identifiers
removed), its independent measurement, the parameters, timings and notes, and gives its
spec (:data:`SPEC_FORMAT`: what a later run needs to make it again), its JSON summary
and its export. :class:`LatticeTrace` records how a full-domain search walked the
lattice.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcore.anonymize.parameters import owned_names
from privcore.core.jsonsafe import plain
from privcore.core.kinds import ReleaseKind
from privcore.data.codes import records_in
from privcore.data.schema import Schema
from privcore.errors import ParameterError
from privcore.measure.report import ReleaseMeasurement

SPEC_FORMAT = "privcore-release-spec/1"


#: The loss figures that read how coarse a released cell is against the original it
#: covers: they fit generalized releases only (:data:`privcore.core.kinds.CONSUMERS`).
GENERALIZATION_LOSS = ("gcp", "ncp", "precision", "whd_total", "whd_mean")


@dataclass(frozen=True, eq=False)
class LatticeTrace:
    """How a full-domain search walked the lattice, for the teaching chart.

    ``nodes``: one row per lattice node — levels per QI (one column each), ``height``,
    ``status`` ("satisfied", "not satisfied", "tagged satisfied", "tagged not
    satisfied", "not visited"), ``order`` (evaluation order, -1 if not evaluated),
    ``suppressed`` (for a satisfying node, the rows its release shows as suppressed; for
    another, the rows of its violating classes) and ``loss`` when computed.
    """

    qi: tuple[str, ...]
    nodes: pd.DataFrame
    chosen: tuple[int, ...] | None


@dataclass(frozen=True, eq=False)
class Release:
    """An anonymized table and everything known about how it was made.

    ``frame`` keeps the original row order (row i is record i) with identifiers
    removed; :meth:`export` shuffles it by default. ``class_ids`` (-1 = suppressed) and
    ``suppressed`` are per row: the suppressed rows are the rows the algorithm blanked,
    ``*`` in every QI (SPEC §13) — counted against the suppression limit, left out of
    the classes — while rows at ``*`` because their values were generalized to the top
    of every hierarchy are a class (:func:`~privcore.classes.release_classes` with the
    algorithm's ``blanked`` rows). ``n_suppressed`` is the one figure of suppressed
    records that the report, the measurement and the attack pages read. A synthetic
    release's ``class_ids`` are its condensation groups. ``node`` is the full-domain
    generalization (levels per QI) or None for local recoding and synthetic releases.
    ``measurement`` is the release measured by the independent code path of
    :mod:`privcore.models` and :mod:`privcore.measure`; every figure of
    :meth:`to_dict` comes from it (or from the algorithm's own loss figures,
    ``extra_loss``).
    """

    frame: pd.DataFrame
    algorithm: str
    qi: tuple[str, ...]
    sa: tuple[str, ...]
    removed: tuple[str, ...]
    class_ids: np.ndarray
    suppressed: np.ndarray
    node: tuple[int, ...] | None
    measurement: ReleaseMeasurement
    params: dict[str, Any]
    timings: dict[str, float]
    lattice: LatticeTrace | None = None
    synthetic: bool = False
    #: what the release is (:class:`~privcore.core.kinds.ReleaseKind`), declared by the
    #: method that made it; it decides which loss measures and attacks fit it
    kind: ReleaseKind = ReleaseKind.GENERALIZED
    #: the loss that fits a release other than a generalization
    #: (:func:`~privcore.measure.kind_loss.kind_loss`); empty for a generalization
    kind_loss: Mapping[str, Any] = field(default_factory=dict)
    record_levels: Mapping[str, np.ndarray] | None = None
    extra_loss: Mapping[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    schema: Schema | None = None  # the roles and hierarchies the algorithm ran with
    source: pd.DataFrame | None = field(default=None, repr=False)  # the input table
    weights: np.ndarray | None = field(default=None, repr=False)  # records per row
    #: a perturbative method's utility (:func:`privcore.measure.utility.perturbation_utility`)
    utility: Mapping[str, Any] | None = None
    #: a perturbative method's population-level risk
    #: (:func:`privcore.anonymize.perturbative.population_risk`)
    population_risk: Mapping[str, Any] | None = None
    #: a synthetic release's privacy models checked on its condensation groups
    #: (:func:`privcore.models.evaluate` of the groups): what ``satisfied`` says
    group_verdicts: Sequence[Mapping[str, Any]] | None = None
    #: a release whose rows stay in its engine (Mondrian in fragments, more
    #: combinations than memory holds): (records, suppressed records); ``frame`` is
    #: then empty and ``measurement`` is of its classes inside the engine
    engine_records: tuple[int, int] | None = None

    @property
    def n_suppressed(self) -> int:
        """Records suppressed (rows, or the sum of their weights)."""
        if self.engine_records is not None:
            return self.engine_records[1]
        return records_in(self.suppressed, self.weights)

    @property
    def n_records(self) -> int:
        """Records the release stands for: its rows, or the sum of their weights."""
        if self.engine_records is not None:
            return self.engine_records[0]
        return len(self.frame) if self.weights is None else int(self.weights.sum())

    @property
    def loss(self) -> dict[str, Any]:
        """Information loss: the measurement's, plus the algorithm's own figures under
        their own names (Mondrian's ``ncp``). GCP is the measurement's — read from the
        released cells where they are no hierarchy labels — so that a release has one
        GCP on every page, in its file and on the command line.

        A release that is not a generalization (``kind``) has no GCP, precision or WHD
        — its cells cover no original value — so those are None, and its own loss
        figures come instead (:func:`~privcore.measure.kind_loss.kind_loss`: the
        distortion and IL1s of a perturbed release, the marginal distance of a
        synthetic one)."""
        out = {**self.extra_loss, **self.measurement.loss}
        if self.kind is ReleaseKind.GENERALIZED:
            return out
        for name in GENERALIZATION_LOSS:
            if name in out:
                out[name] = None
        for name in ("distortion", "il1s", "joint_tvd", "marginal_distance"):
            if isinstance(self.kind_loss.get(name), (int, float)):
                out[name] = self.kind_loss[name]
        marginals = self.kind_loss.get("marginals")
        if isinstance(marginals, Mapping):
            out["marginal_distance"] = marginals.get("marginal_distance")
        return out

    @property
    def loss_headline(self) -> dict[str, Any]:
        """The one figure that sums up the release's loss, over every quasi-identifier it
        changed: GCP for a generalization, the distortion of a perturbed release, the
        marginal distance of a synthetic one (``name``, ``value``, ``columns``)."""
        name = "gcp" if self.kind is ReleaseKind.GENERALIZED else self.kind_loss["headline"]
        value = self.loss.get(name)
        if name == "gcp" and value is None:
            value = self.loss.get("ncp")
        return {"name": name, "value": value, "columns": list(self.qi)}

    @property
    def satisfied(self) -> bool:
        """The constraints hold on the release's classes — for a synthetic release, on
        its condensation groups (its records are all distinct by construction)."""
        if self.synthetic:
            return bool(self.params.get("groups_satisfy", False))
        return self.measurement.models.satisfied

    def export(self, *, shuffle: bool = True, seed: int | None = None) -> pd.DataFrame:
        """The table to publish: identifiers already removed; rows shuffled unless
        ``shuffle=False`` (a release in the original order leaks identity to anyone who
        knows that order — the unsorted-matching attack).

        A release of a frequency set (``weights``) is a mapping, not the table: its
        engine writes the records (the input joined with it), so it cannot be exported
        here (:class:`~privcore.errors.ParameterError` ``anonymize.weighted_release``),
        nor can a release whose rows stay in its engine (``engine_records``)."""
        if self.weights is not None or self.engine_records is not None:
            raise ParameterError(
                f"This release stands for {self.n_records:,} records; write it through its engine.",
                code="anonymize.weighted_release",
                records=self.n_records,
            )
        if not shuffle:
            return self.frame.reset_index(drop=True)
        rng = np.random.default_rng(self.params.get("seed", 0) if seed is None else seed)
        return self.frame.iloc[rng.permutation(len(self.frame))].reset_index(drop=True)

    @functools.cached_property
    def fingerprint(self) -> Any:
        """The released table's :func:`~privcore.data.loading.fingerprint` (SHA-256 of
        its rows, no data), computed once: the table is never changed in place. A
        frequency set's release hashes its weights too (:func:`weighted_fingerprint`)."""
        return weighted_fingerprint(self.frame, self.weights)

    def spec(
        self,
        written: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The generalization applied, as JSON-able data that reproduces the release
        (:func:`privcore.anonymize.spec.reproduce`): the algorithm, its constraints,
        options, suppression limit and seed; the roles and hierarchies it used; the
        full-domain node; and fingerprints (SHA-256, no data) of the input table and of
        the release, so a reproduction is checked cell for cell. A frequency set's
        release records ``weighted`` (its fingerprints include the weights; it is
        reproduced from the same frequency set and weights). A release whose rows stay
        in its engine has none (``anonymize.release_in_engine``).

        ``written``: how the release file was written, when the spec goes with one —
        ``shuffled`` (rows shuffled by :meth:`export`), ``seed`` (of that shuffle) and
        ``formula_guard`` (CSV/TSV cells guarded by :func:`privcore.data.save`) — kept
        under ``written`` so that a reproduction writes the same bytes. ``context``: the
        release's context (:meth:`privcore.report.context.ReleaseContext.to_dict`, checked
        by the caller), kept under ``context`` so that it is entered once per release."""
        if self.engine_records is not None:
            raise ParameterError(
                f"This release stands for {self.n_records:,} records whose rows stay in its "
                "engine (Mondrian in fragments): it has no spec to make it again in memory.",
                code="anonymize.release_in_engine",
                records=self.n_records,
            )
        return {
            "format": SPEC_FORMAT,
            "algorithm": self.algorithm,
            "qi": list(self.qi),
            "sa": list(self.sa),
            "removed_identifiers": list(self.removed),
            "node": None if self.node is None else dict(zip(self.qi, self.node, strict=True)),
            "suppressed_rows": self.n_suppressed,
            "constraints": self.params.get("constraints", []),
            "max_suppression": self.params.get("max_suppression", 0.0),
            "seed": self.params.get("seed", 0),
            "options": {k: v for k, v in self.params.items() if k in owned_names()},
            "schema": None if self.schema is None else self.schema.to_dict(),
            "input": None
            if self.source is None
            else weighted_fingerprint(self.source, self.weights).to_dict(),
            "release": self.fingerprint.to_dict(),
            "params": self.params,
            "synthetic": self.synthetic,
            **({} if self.weights is None else {"weighted": True}),
            **({} if written is None else {"written": checked_written(written)}),
            **({} if context is None else {"context": dict(context)}),
        }

    def written(self, *, shuffled: bool, formula_guard: bool = True) -> dict[str, Any] | None:
        """How a file of this release is written by :meth:`export` (``shuffle=shuffled``,
        the release's seed) and :func:`privcore.data.save` or ``to_csv_bytes``
        (``formula_guard``): the ``written`` record of :meth:`spec`. None when the
        release has no whole-number seed (its shuffle could not be drawn again)."""
        seed = self.params.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            return None
        return {"shuffled": bool(shuffled), "seed": int(seed), "formula_guard": formula_guard}

    def spec_json(
        self,
        written: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> str:
        spec = self.spec(written, context)
        return json.dumps(spec, ensure_ascii=False, indent=2, default=_json_default)

    def history_summary(self) -> dict[str, Any]:
        """The figures the history keeps of a release (pages and CLI alike; no data)."""
        out = self.to_dict()
        keep = (
            "k",
            "classes",
            "suppressed_rows",
            "real_records",
            "seconds",
            "loss",
            "pl",
            "ul",
            "node",
            "satisfied",
            "population_risk",  # a perturbed release's
        )
        return {k: out[k] for k in keep if k in out}

    def to_dict(self) -> dict[str, Any]:
        """Summary for the history and the CLI report (documented keys).

        ``satisfied`` and ``verdicts`` speak of the same partition, named by
        ``satisfied_on``: the release's equivalence classes (``"classes"``), or — for a
        synthetic release — its condensation groups (``"groups"``), whose records are
        all distinct by construction; the models checked on those released records as
        classes are then ``record_verdicts`` (k = 1 there says that no two synthetic
        records are equal, not that a group is smaller than k)."""
        measured = self.measurement.to_dict()
        on_groups = self.synthetic and self.group_verdicts is not None
        verdicts = plain(list(self.group_verdicts)) if on_groups else measured["verdicts"]
        return {
            "algorithm": self.algorithm,
            "k": measured["k"],
            "classes": measured["classes"],
            "rows": measured["rows"],
            "suppressed_rows": measured["suppressed_rows"],
            "real_records": measured["real_records"],
            "seconds": round(self.timings.get("total", 0.0), 4),
            "loss": {k: v for k, v in self.loss.items() if isinstance(v, (int, float))},
            "pl": None if measured["pl"] is None else measured["pl"]["all"],
            "ul": measured["ul"],
            "dr": measured["dr"],
            "node": None if self.node is None else dict(zip(self.qi, self.node, strict=True)),
            "satisfied": self.satisfied,
            "satisfied_on": "groups" if self.synthetic else "classes",
            "verdicts": verdicts,
            **({"record_verdicts": measured["verdicts"]} if on_groups else {}),
            "l_distinct": measured["l_distinct"],
            "t_closeness": measured["t_closeness"],
            "synthetic": self.synthetic,
            "kind": self.kind.value,
            "loss_headline": self.loss_headline,
            **({"loss_detail": plain(dict(self.kind_loss))} if self.kind_loss else {}),
            "params": self.params,
            "notes": list(self.notes),
            **({} if self.utility is None else {"utility": self.utility}),
            **({} if self.population_risk is None else {"population_risk": self.population_risk}),
        }


def weighted_fingerprint(frame: pd.DataFrame, weights: np.ndarray | None) -> Any:
    """:func:`~privcore.data.loading.fingerprint` of ``frame``; with ``weights`` (a
    frequency set), SHA-256 of that fingerprint and the weights' bytes, with ``rows``
    the records the table stands for — so two frequency sets with the same rows and
    other counts differ."""
    from privcore.data.loading import Fingerprint, fingerprint

    plain = fingerprint(frame)
    if weights is None:
        return plain
    digest = hashlib.sha256(plain.sha256.encode())
    digest.update(b"\x1eweights\x1e")
    digest.update(np.asarray(weights, dtype="<i8").tobytes())
    return Fingerprint(digest.hexdigest(), int(np.sum(weights)), plain.columns)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


#: The keys of a spec's ``written`` record, with their types.
WRITTEN_KEYS = {"shuffled": bool, "seed": int, "formula_guard": bool}


def checked_written(written: Mapping[str, Any]) -> dict[str, Any]:
    """How a release file was written (:meth:`Release.spec`), checked: exactly the keys
    of :data:`WRITTEN_KEYS`, each of its type (a seed ≥ 0)."""
    out = {}
    for key, kind in WRITTEN_KEYS.items():
        value = written.get(key)
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        if not ok or (key == "seed" and value < 0):
            raise ParameterError(
                f"How the release was written needs {key} as a {kind.__name__}, not {value!r}.",
                code="anonymize.bad_written",
                key=key,
            )
        out[key] = value
    unknown = sorted(set(written) - set(WRITTEN_KEYS))
    if unknown:
        raise ParameterError(
            f"How the release was written has no key {', '.join(map(str, unknown))}.",
            code="anonymize.bad_written",
            key=unknown[0],
        )
    return out

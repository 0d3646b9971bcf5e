"""Combination check: does a new release, combined with an earlier one, break k?

Two releases of one table, each k-anonymous on its own, may together identify people.
Sweeney (2002, "k-anonymity: a model for protecting privacy", §4.3, complementary
releases) shows it for two generalizations of the same records: a person's class in
release A and their class in release B are both known to hold them, so the candidate set
is the intersection, which can be a single record. Ganta, Kasiviswanathan & Smith (2008,
"Composition attacks and auxiliary information in data privacy") show that such
composition breaks k-anonymity in general, whoever made the releases. The intersection's
size is the record's **effective k** (:func:`privcore.attacks.composition.effective_k`).

**Which earlier releases are checked** (:func:`earlier_to_check`). The combination
happens in the hands of someone who holds both releases:

- a new *public* release is checked against **every** earlier release: each earlier
  recipient is part of the public and holds the new release too;
- a new release to a named recipient (``licensed`` or ``enclave``) is checked against
  the earlier releases **to the same recipient** and **every earlier public release**
  (which that recipient may hold); a release to another named recipient is not in their
  hands and is not checked;
- a rejected release (decision ``reject``) never went out and is not checked.

**What each check gives** (:func:`combined_with_earlier`), one finding per earlier
release checked, codes and figures only:

- ``not_comparable``: the earlier release was made from another input
  (``input_sha256`` differs): other records, so no intersection to take;
- ``not_checked`` with a ``reason``: ``no_path`` (no file registered), ``missing_file``
  (the file cannot be found), ``unreadable_file``, ``changed_file`` (its fingerprint is
  no longer the registered one: it is not the release that went out), ``no_qi`` (none of
  its quasi-identifiers is in the file), ``row_count`` (aligned by position, the two
  releases have different numbers of rows), ``key_mismatch`` (aligned by the key, the
  keys of the two differ) or ``bad_key`` (the key has repeated or missing values);
- ``breaks_k`` (the smallest effective k is below ``min_k``) or ``holds``, with
  ``min_effective_k``, ``records_below_k``, ``records_reidentified`` (effective k = 1),
  ``records``, ``k_earlier`` and ``k_new`` (each release alone, its smallest class).

Rows are aligned by the key column when both releases have it (both ordered by it; the
new release's key first, else the one the earlier release was registered with), else by
position (the releases of one input keep its row order). Each release's classes are taken
over its own quasi-identifiers present in its file, with
:func:`privcore.classes.equivalence_classes`; suppressed rows (every QI ``*``) form one
group, as in :mod:`privcore.attacks.composition`.

An earlier release file is read with the caller's ``read`` and compared with its
registered fingerprint (:func:`privcore.data.fingerprint`), so ``read`` must read the
file the way it was read when it was fingerprinted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcore.attacks.composition import effective_k
from privcore.classes import EquivalenceClasses, equivalence_classes
from privcore.data import fingerprint
from privcore.errors import ParameterError, PrivcoreError
from privcore.report.context import ACCESS

__all__ = [
    "STATUSES",
    "combined_with_earlier",
    "earlier_to_check",
    "register_entry",
    "report_against_register",
    "summary",
]

#: Statuses of a finding, from the worst.
STATUSES = ("breaks_k", "not_checked", "holds", "not_comparable")


def _recipient(value: Any) -> str:
    return str(value or "").strip().casefold()


def earlier_to_check(
    earlier: Sequence[Mapping[str, Any]], *, recipient: str, access: str
) -> list[Mapping[str, Any]]:
    """The earlier register entries a new release to ``recipient`` by ``access`` is checked
    against: every one for a public release, else those to the same recipient (compared
    without case or surrounding spaces) and every public one; rejected entries never."""
    _check_access(access)
    who = _recipient(recipient)
    out = []
    for entry in earlier:  # a loop over register entries, not over rows of data
        if entry.get("decision") == "reject":
            continue
        shared = access == "public" or entry.get("access") == "public"
        if shared or _recipient(entry.get("recipient")) == who:
            out.append(entry)
    return out


def _check_access(access: str) -> None:
    ParameterError.unless_one_of(
        access,
        ACCESS,
        "The access of a release must be one of {choices}, not {value!r}.",
        code="register.access",
        value=str(access),
        allowed=", ".join(ACCESS),
    )


def _present(frame: pd.DataFrame, names: Sequence[str]) -> list[str]:
    columns = set(map(str, frame.columns))
    return [str(n) for n in names if str(n) in columns]


def _smallest(classes: EquivalenceClasses) -> int | None:
    return int(classes.sizes.min()) if classes.n_classes else None


def _read_earlier(
    entry: Mapping[str, Any],
    read: Callable[[str], pd.DataFrame],
    held: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame | str:
    """The earlier release's table as registered — one of the tables ``held`` (by their
    fingerprint: the releases a page's session still holds), else read from its file —
    or the reason it is not checked."""
    kept = (held or {}).get(str(entry.get("release_sha256")))
    if kept is not None and fingerprint(kept).to_dict()["sha256"] == entry.get("release_sha256"):
        return kept
    path = entry.get("release_path")
    if not path:
        return "no_path"
    try:
        frame = read(str(path))
    except FileNotFoundError:
        return "missing_file"
    except (OSError, ValueError, PrivcoreError):
        return "unreadable_file"
    if fingerprint(frame).to_dict()["sha256"] != entry.get("release_sha256"):
        return "changed_file"
    return frame


def _key_order(frame: pd.DataFrame, key: str) -> np.ndarray | None:
    """Row order that sorts ``frame`` by its key's text (None: repeated or missing keys)."""
    values = frame[key]
    if values.isna().any() or not values.is_unique:
        return None
    return np.argsort(values.astype(str).to_numpy(), kind="stable")


def _aligned(
    new: pd.DataFrame, old: pd.DataFrame, keys: Sequence[str | None]
) -> tuple[pd.DataFrame, pd.DataFrame] | str:
    """Both releases with row i the same record, or the reason they cannot be aligned."""
    key = next((k for k in keys if k and k in new.columns and k in old.columns), None)
    if key is None:
        if len(new) != len(old):
            return "row_count"
        return new, old
    order_new, order_old = _key_order(new, key), _key_order(old, key)
    if order_new is None or order_old is None:
        return "bad_key"
    new, old = new.iloc[order_new], old.iloc[order_old]
    if len(new) != len(old) or not np.array_equal(
        new[key].astype(str).to_numpy(), old[key].astype(str).to_numpy()
    ):
        return "key_mismatch"
    return new, old


def _identity(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "entry": entry.get("id"),
        "recipient": entry.get("recipient"),
        "access": entry.get("access"),
        "created": entry.get("created"),
    }


def _combined(
    new: pd.DataFrame, old: pd.DataFrame, new_qi: Sequence[str], old_qi: Sequence[str], min_k: int
) -> dict[str, Any]:
    """Figures of one aligned pair: effective k per record from one group-by."""
    classes_new = equivalence_classes(new, new_qi)
    classes_old = equivalence_classes(old, old_qi)
    eff, _ = effective_k(classes_old, classes_new)
    smallest = int(eff.min()) if len(eff) else None
    return {
        "status": "breaks_k" if smallest is not None and smallest < min_k else "holds",
        "min_effective_k": smallest,
        "records_below_k": int((eff < min_k).sum()),
        "records_reidentified": int((eff == 1).sum()),
        "records": len(eff),
        "k_earlier": _smallest(classes_old),
        "k_new": _smallest(classes_new),
    }


def _check_one(
    release: pd.DataFrame,
    entry: Mapping[str, Any],
    *,
    qi: Sequence[str],
    key: str | None,
    input_sha256: str,
    min_k: int,
    read: Callable[[str], pd.DataFrame],
    held: Mapping[str, pd.DataFrame] | None = None,
) -> dict[str, Any]:
    finding = _identity(entry)
    if entry.get("input_sha256") != input_sha256:
        return {**finding, "status": "not_comparable", "reason": "other_input"}
    old = _read_earlier(entry, read, held)
    if isinstance(old, str):
        return {**finding, "status": "not_checked", "reason": old}
    old_qi = _present(old, entry.get("qi") or ())
    if not old_qi:
        return {**finding, "status": "not_checked", "reason": "no_qi"}
    pair = _aligned(release, old, (key, entry.get("key")))
    if isinstance(pair, str):
        return {**finding, "status": "not_checked", "reason": pair}
    new, old = pair
    return {**finding, **_combined(new, old, qi, old_qi, min_k)}


def combined_with_earlier(
    release: pd.DataFrame,
    *,
    qi: Sequence[str],
    key: str | None,
    input_sha256: str,
    recipient: str,
    access: str,
    min_k: int,
    earlier: Sequence[Mapping[str, Any]],
    read: Callable[[str], pd.DataFrame],
    held: Mapping[str, pd.DataFrame] | None = None,
) -> list[dict[str, Any]]:
    """One finding per earlier release that a new ``release`` could be combined with.

    ``release`` is the new released table, ``qi`` its quasi-identifiers (those present
    in it are used), ``key`` its matching key column (or None), ``input_sha256`` the
    fingerprint of the table it was made from, ``recipient`` and ``access`` who receives
    it and how, ``min_k`` the smallest class size required. ``earlier`` are register
    entries (:func:`privcore.history.registered_releases`), ``read`` reads a release file
    from its path; ``held``: released tables by fingerprint (the page's session holds its
    releases in memory, with no file), used before any path. Which entries are checked,
    and what a finding holds: see the module. Findings come in the order of
    ``earlier``; they hold codes and figures, never rows.

    Raises :class:`~privcore.errors.ParameterError` for an unknown access, a ``min_k``
    below 1, or a release holding none of ``qi``.
    """
    _check_access(access)
    if isinstance(min_k, bool) or not isinstance(min_k, (int, np.integer)) or min_k < 1:
        raise ParameterError(
            f"The smallest class size k must be a whole number of at least 1, not {min_k!r}.",
            code="register.min_k",
            value=repr(min_k),
        )
    new_qi = _present(release, qi)
    if not new_qi:
        raise ParameterError(
            "None of the quasi-identifiers "
            f"({', '.join(map(str, qi)) or 'none given'}) is a column of the release: "
            "name the quasi-identifiers the release keeps.",
            code="register.no_qi",
            qi=[str(q) for q in qi],
        )
    return [
        _check_one(
            release,
            entry,
            qi=new_qi,
            key=key,
            input_sha256=input_sha256,
            min_k=int(min_k),
            read=read,
            held=held,
        )
        for entry in earlier_to_check(earlier, recipient=recipient, access=access)
    ]


def summary(findings: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The worst status of the findings (:data:`STATUSES`, from the worst; ``none`` when
    no earlier release was checked), the entries of each status, and the smallest
    effective k found."""
    by_status: dict[str, list[Any]] = {s: [] for s in STATUSES}
    for finding in findings:  # a loop over findings, one per earlier release
        by_status.setdefault(str(finding.get("status")), []).append(finding.get("entry"))
    worst = next((s for s in STATUSES if by_status[s]), "none")
    ks = [f["min_effective_k"] for f in findings if f.get("min_effective_k") is not None]
    return {
        "status": worst,
        "entries": len(findings),
        **by_status,
        "min_effective_k": min(ks) if ks else None,
    }


def report_against_register(
    report: Any,
    release: pd.DataFrame,
    *,
    recipient: str,
    access: str,
    earlier: Sequence[Mapping[str, Any]],
    read: Callable[[str], pd.DataFrame],
    held: Mapping[str, pd.DataFrame] | None = None,
) -> dict[str, Any]:
    """The register's findings on the release a readiness ``report`` (a
    :class:`~privcore.report.ReadinessReport` or its ``to_dict()``) assessed: its roles,
    input fingerprint and smallest class size, ``release`` (its rows) combined with the
    ``earlier`` entries (:func:`combined_with_earlier`); :func:`summary` with the findings
    under ``checked``. The command line and the Report page both ask it this way."""
    data = report.to_dict() if hasattr(report, "to_dict") else dict(report)
    roles = data.get("roles") or {}
    findings = combined_with_earlier(
        release,
        qi=list(roles.get("qi") or []),
        key=roles.get("key"),
        input_sha256=(data.get("fingerprint") or {}).get("sha256"),
        recipient=recipient,
        access=access,
        min_k=int(data["thresholds"]["min_k"]),
        earlier=earlier,
        read=read,
        held=held,
    )
    return {**summary(findings), "checked": findings}


def register_entry(report: Any, *, recipient: str, access: str, **given: Any) -> dict[str, Any]:
    """The register entry (:func:`privcore.history.register_release`) of the release a
    readiness ``report`` assessed: who receives it and how, its roles, the fingerprints
    of its input and of the release, its verdict and the report's run; ``given`` adds
    ``release_path``, ``release_name``, ``decision`` and ``owner``."""
    data = report.to_dict() if hasattr(report, "to_dict") else dict(report)
    roles = data.get("roles") or {}
    return {
        "recipient": recipient,
        "access": access,
        "qi": list(roles.get("qi") or []),
        "sa": list(roles.get("sa") or []),
        "key": roles.get("key"),
        "input_sha256": (data.get("fingerprint") or {}).get("sha256"),
        "release_sha256": (data.get("release_fingerprint") or {}).get("sha256"),
        "verdict": data.get("verdict"),
        "report_run": data["run_ids"][-1] if data.get("run_ids") else None,
        **given,
    }

"""The one per-session object every page reads and writes.

Each browser session has its own :class:`Workbench` in ``st.session_state``; nothing a
visitor uploads or edits is stored anywhere shared. Bundled samples are read-only and
cached for the process.

The workbench holds the session's **shelf** of releases (:class:`ShelfRelease`): every
release made on the Anonymize page, made again from a spec, or read from a file is a
named object with its request, columns, fingerprint and run id. The pages that assess a
release pick one from the shelf by its id; nothing replaces a release silently.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from privcore.config import limits
from privcore.data import SAMPLES, Dataset, Schema, load, load_sample, suggest_roles
from privcore.engines.opening import LargeTable
from privcore.errors import ParameterError, PrivcoreError
from ui.common.data_menu import DEFAULT_SAMPLE, STATE_KEY
from ui.common.i18n import t_plain  # the page's language

MAX_RELEASES = 12  # releases a session keeps on its shelf (each holds a table)


@dataclass(eq=False)
class ShelfRelease:
    """A release of the session.

    ``source``: "made" (on the Anonymize page), "replay" (made again from a spec),
    "file" (uploaded), "dataset" (a loaded data set with the original's columns) or
    "dp" (the synthetic records of a DP release, Differential privacy page);
    ``data``: the key of the data set it is a release of; ``frame``: its rows (for a
    release made here, in the original's order); ``request``: the anonymization request
    (``to_dict()``) it was made with, if made here; ``fingerprint``: SHA-256 of its rows;
    ``run_id``: its run in the history; ``release``: the library's Release, if made here;
    ``aligned``: its rows are the original's, in order (made here), so every figure can
    be computed; ``shuffled``: its download shuffles the rows (the default);
    ``origin``: the file name or data set key it was read from; ``outcome``: the run
    that made it (:class:`privcore.runs.Outcome`, its reproduction in Python), if made
    here; ``kind``: the kind of release (a :class:`privcore.core.kinds.ReleaseKind`
    value, e.g. "dp_synthetic") declared by the page that put a release not made on the
    Anonymize page on the shelf (the synthetic records of a DP release: ``source``
    "dp"), None when nothing declares it (a file: the figures read it as they need);
    a release made here declares its own (:attr:`release_kind`).
    """

    id: str
    name: str
    data: str
    source: str
    frame: pd.DataFrame
    qi: tuple[str, ...]
    sa: tuple[str, ...]
    fingerprint: str
    made_at: str
    request: Mapping[str, Any] | None = None
    run_id: int | None = None
    release: Any = None
    aligned: bool = False
    shuffled: bool = True
    origin: str | None = None
    outcome: Any = field(default=None, compare=False, repr=False)
    kind: str | None = None

    @property
    def made_here(self) -> bool:
        return self.release is not None

    @property
    def release_kind(self) -> str | None:
        """The kind of the release as declared by what made it: its method's for a
        release made here, else ``kind`` (None: not declared)."""
        if self.release is not None:
            return str(self.release.kind)
        return self.kind

    @property
    def blanked(self) -> Any:
        """The rows the method that made this release blanked (its suppressed rows, a
        boolean per row of ``frame``), or None for a release not made here."""
        made = self.release
        if made is not None and len(made.suppressed) == len(self.frame):
            return made.suppressed
        return None


#: The engines' names as the pages show them.
ENGINE_TITLES = {"duckdb": "DuckDB", "spark": "Spark"}


def engine_title(table: LargeTable) -> str:
    """The name of the engine ``table`` is opened in, as the pages show it."""
    return ENGINE_TITLES.get(table.engine_name, table.engine_name)


@dataclass
class Workbench:
    """Session state: the data sets, their schemas, and the active one."""

    uploads: dict[str, Dataset] = field(default_factory=dict)
    drafts: dict[str, Schema] = field(default_factory=dict)
    confirmed: dict[str, Schema] = field(default_factory=dict)
    active: str = DEFAULT_SAMPLE
    seen_uploads: dict[str, str] = field(default_factory=dict)
    shelf: list[ShelfRelease] = field(default_factory=list)
    under_review: dict[str, str] = field(default_factory=dict)  # data set → release id
    made: dict[str, str] = field(default_factory=dict)  # data set → release id shown on
    # the Anonymize page
    next_release: int = 1
    tables: dict[str, LargeTable] = field(default_factory=dict)  # opened in an engine

    # ------------------------------------------------------------------ the shelf

    def releases(self, data: str | None = None) -> list[ShelfRelease]:
        """The releases of data set ``data`` (the active one by default), oldest first."""
        data = data or self.active
        return [r for r in self.shelf if r.data == data]

    def find_release(self, release_id: str | None) -> ShelfRelease | None:
        return next((r for r in self.shelf if r.id == release_id), None)

    def same_release(self, data: str, fingerprint: str, request: Any) -> ShelfRelease | None:
        """A release already on the shelf with these rows and this request."""
        return next(
            (
                r
                for r in self.shelf
                if r.data == data and r.fingerprint == fingerprint and r.request == request
            ),
            None,
        )

    def add_release(self, make: Callable[[str], ShelfRelease]) -> tuple[ShelfRelease, list[str]]:
        """Put the release ``make(new_id)`` on the shelf under a name no other release of
        the session has; returns it and the names of the releases the shelf let go to
        stay within :data:`MAX_RELEASES` (the oldest, never one a page shows)."""
        entry = make(f"r{self.next_release}")
        self.next_release += 1
        entry.name = self.unique_name(entry.name)
        self.shelf.append(entry)
        dropped = []
        keep = {entry.id, *self.under_review.values(), *self.made.values()}
        for old in list(self.shelf):
            if len(self.shelf) <= MAX_RELEASES:
                break
            if old.id not in keep:
                self.shelf.remove(old)
                dropped.append(old.name)
        return entry, dropped

    def unique_name(self, name: str, *, other_than: str | None = None) -> str:
        name = " ".join(str(name).split()) or "release"
        return _unused_name(name, {r.name for r in self.shelf if r.id != other_than})

    def rename_release(self, release_id: str, name: str) -> None:
        entry = self.find_release(release_id)
        if entry is not None:
            entry.name = self.unique_name(name, other_than=release_id)

    def remove_release(self, release_id: str) -> None:
        self.shelf = [r for r in self.shelf if r.id != release_id]
        self.under_review = {d: i for d, i in self.under_review.items() if i != release_id}
        self.made = {d: i for d, i in self.made.items() if i != release_id}

    def reviewed(self, data: str | None = None) -> ShelfRelease | None:
        """The release under review for data set ``data``: the one picked on a page that
        assesses releases, else the newest made here, else the newest."""
        data = data or self.active
        picked = self.find_release(self.under_review.get(data))
        if picked is not None and picked.data == data:
            return picked
        releases = self.releases(data)
        made = [r for r in releases if r.made_here]
        return (made or releases or [None])[-1]

    @property
    def last_release(self) -> Any:
        """The release the Anonymize page shows for the active data set (its Release)."""
        entry = self.find_release(self.made.get(self.active))
        return None if entry is None else entry.release

    # ------------------------------------------------------------------ data sets

    def dataset_keys(self) -> list[str]:
        """The data sets held in memory: the bundled samples and the uploads."""
        return [*SAMPLES, *self.uploads]

    def data_keys(self) -> list[str]:
        """Every data set of the session: in memory, then the tables opened in an
        engine (the sidebar's choice)."""
        return [*self.dataset_keys(), *self.tables]

    def table(self, key: str | None = None) -> LargeTable:
        key = key or self.active
        if key not in self.tables:
            raise ParameterError(
                f"'{key}' is not a table opened in an engine.",
                code="data.not_engine_table",
                name=key,
            )
        return self.tables[key]

    def size(self, key: str | None = None) -> tuple[int, int]:
        """(rows, columns) of a data set, in memory or in an engine."""
        key = key or self.active
        held = self.tables[key] if key in self.tables else self.dataset(key)
        return held.n_rows, held.n_columns

    def dataset(self, key: str | None = None) -> Dataset:
        key = key or self.active
        if key in self.uploads:
            return self.uploads[key]
        if key in self.tables:
            raise ParameterError(
                f"'{key}' is a table opened in an engine: its rows are not in memory, and "
                "this works on a data set in memory. Choose an upload or a sample.",
                code="data.engine_table",
                name=key,
            )
        return sample(key)[0]

    def draft(self, key: str | None = None) -> Schema:
        """The schema under edit: confirmed, else the sample's, else the suggestions."""
        key = key or self.active
        if key not in self.drafts:
            if key in self.confirmed:
                self.drafts[key] = self.confirmed[key]
            elif key in self.tables:
                self.drafts[key] = Schema.from_suggestions(self.tables[key].suggestions)
            elif key in SAMPLES:
                self.drafts[key] = sample(key)[1]
            else:
                self.drafts[key] = Schema.from_suggestions(suggest_roles(self.dataset(key).frame))
        return self.drafts[key]

    def schema(self, key: str | None = None) -> Schema | None:
        """The confirmed schema of a data set (bundled samples come confirmed)."""
        key = key or self.active
        if key in self.confirmed:
            return self.confirmed[key]
        if key in SAMPLES:
            return sample(key)[1]
        return None

    def add_upload(self, name: str, dataset: Dataset) -> str:
        """Keep an uploaded data set for this session, within the session's limits
        (``PRIVCORE_MAX_SESSION_DATASETS`` data sets, ``PRIVCORE_MAX_SESSION_MB`` of
        memory together): one visitor cannot fill the server's memory."""
        self._check_room(dataset)
        key = _unused_name(name, {*SAMPLES, *self.uploads})
        self.uploads[key] = dataset
        self.active = key
        return key

    def remove_upload(self, key: str) -> None:
        """Forget an uploaded data set and everything this session derived from it."""
        self.uploads.pop(key, None)
        self.drafts.pop(key, None)
        self.confirmed.pop(key, None)
        for entry in [r for r in self.shelf if key in (r.data, r.origin)]:
            self.remove_release(entry.id)
        # the upload widget may still hold the file: remember it as dismissed ("")
        self.seen_uploads = {k: ("" if v == key else v) for k, v in self.seen_uploads.items()}
        if self.active == key:
            self.active = DEFAULT_SAMPLE

    def add_table(self, table: LargeTable) -> str:
        """Keep a table opened in an engine for this session (it counts among the
        ``PRIVCORE_MAX_SESSION_DATASETS`` data sets; its rows stay in the engine) under
        its name and engine ("claims.parquet · DuckDB"); it becomes the active one."""
        cap = limits()
        held = len(self.uploads) + len(self.tables)
        if held + 1 > cap.max_session_datasets:
            raise ParameterError(
                f"This session already holds {held} data sets, the limit of this "
                "installation (PRIVCORE_MAX_SESSION_DATASETS). Remove one on the Data & "
                "roles page, then open the table again.",
                code="data.session_full",
                count=held,
                limit=cap.max_session_datasets,
            )
        name = f"{table.name} · {engine_title(table)}"
        key = _unused_name(name, {*SAMPLES, *self.uploads, *self.tables})
        self.tables[key] = table
        self.active = key
        return key

    def remove_table(self, key: str) -> None:
        """Forget a table opened in an engine (the engine is let go; the file is not
        touched) and what this session derived from it."""
        table = self.tables.pop(key, None)
        if table is not None:
            table.close()
        self.drafts.pop(key, None)
        self.confirmed.pop(key, None)
        if self.active == key:
            self.active = DEFAULT_SAMPLE

    def _check_room(self, dataset: Dataset) -> None:
        cap = limits()
        if len(self.uploads) + 1 > cap.max_session_datasets:
            raise ParameterError(
                f"This session already holds {len(self.uploads)} uploaded data sets, the "
                "limit of this installation (PRIVCORE_MAX_SESSION_DATASETS). Remove one on "
                "the Data & roles page, then upload again.",
                code="data.session_full",
                count=len(self.uploads),
                limit=cap.max_session_datasets,
            )
        held = sum(_megabytes(d) for d in self.uploads.values())
        size = _megabytes(dataset)
        if held + size > cap.max_session_mb:
            raise ParameterError(
                f"This data set takes {size:,.0f} MB in memory and this session already "
                f"holds {held:,.0f} MB; together they exceed the limit of "
                f"{cap.max_session_mb:,} MB per session (PRIVCORE_MAX_SESSION_MB). Remove a "
                "data set on the Data & roles page, or upload a smaller file.",
                code="data.session_memory",
                size=round(size),
                held=round(held),
                limit=cap.max_session_mb,
            )

    def title(self, key: str) -> str:
        """A data set's name: a bundled sample's in the page's language."""
        if key not in SAMPLES:
            return key
        worded = t_plain(f"sample.{key}")
        return SAMPLES[key].title if worded == f"sample.{key}" else worded


def _unused_name(name: str, taken: set[str]) -> str:
    """``name``, or the first of ``name (2)``, ``name (3)``, … that is not ``taken``."""
    candidate, n = name, 2
    while candidate in taken:
        candidate = f"{name} ({n})"
        n += 1
    return candidate


def _megabytes(dataset: Dataset) -> float:
    return float(dataset.frame.memory_usage(deep=True).sum()) / 2**20


def workbench() -> Workbench:
    """This session's Workbench (created on first use)."""
    if STATE_KEY not in st.session_state:
        st.session_state[STATE_KEY] = Workbench()
    return st.session_state[STATE_KEY]


@st.cache_resource(show_spinner=False)
def sample(key: str) -> tuple[Dataset, Schema]:
    """A bundled data set with its schema (read-only, shared by sessions)."""
    return load_sample(key)


CONTROLS = "_kept_controls"
CONTROL_SCOPES = "_kept_control_scopes"


def keep(key: str, *, scope: str = "", valid: Callable[[Any], bool] | None = None) -> str:
    """``key`` of a widget whose value this session keeps across pages.

    Streamlit forgets the value of a widget that a run does not draw (the user went to
    another page). Each call stores the widget's current value, or puts the stored one
    back before the widget is drawn. ``scope`` keeps one value per data set (a choice of
    columns belongs to its table); ``valid`` drops a stored value the widget can no
    longer take (a column no longer a quasi-identifier). Returns ``key``.
    """
    store: dict[tuple[str, str], Any] = st.session_state.setdefault(CONTROLS, {})
    scopes: dict[str, str] = st.session_state.setdefault(CONTROL_SCOPES, {})
    held = scopes.get(key, scope)
    if key in st.session_state and held != scope:  # the value of another data set
        store[(held, key)] = st.session_state[key]
        del st.session_state[key]
    if key in st.session_state:
        if valid is None or valid(st.session_state[key]):
            store[(scope, key)] = st.session_state[key]
        else:
            del st.session_state[key]
            store.pop((scope, key), None)
    elif (scope, key) in store:
        value = store[(scope, key)]
        if valid is None or valid(value):
            st.session_state[key] = value
        else:
            del store[(scope, key)]
    scopes[key] = scope
    return key


def set_controls(values: Mapping[str, Any], *, scope: str = "") -> None:
    """Set kept widgets to ``values`` (key → value), as if the user had chosen them: the
    page that draws them shows these values the next time it runs."""
    store: dict[tuple[str, str], Any] = st.session_state.setdefault(CONTROLS, {})
    scopes: dict[str, str] = st.session_state.setdefault(CONTROL_SCOPES, {})
    for key, value in values.items():
        store[(scope, key)] = value
        if scopes.get(key, scope) == scope:
            st.session_state.pop(key, None)


def session_owner() -> str:
    """An opaque random token of this browser session, recorded with every run, so
    that a hosted demo lists, compares and deletes only the visitor's own runs."""
    token = st.session_state.get("_owner")
    if not isinstance(token, str):
        token = st.session_state["_owner"] = secrets.token_hex(16)
    return token


def bundled_file(dataset: Dataset) -> Any:
    """The shipped file of a bundled sample (a Path; None for a visitor's data)."""
    from privcore.config import assets_dir

    for key, shipped in SAMPLES.items():
        try:
            if dataset is sample(key)[0]:
                return assets_dir() / shipped.folder / shipped.table
        except PrivcoreError:
            continue
    return None


def is_bundled(dataset: Dataset) -> bool:
    """Is this one of the bundled (public, read-only) samples, not a visitor's data?"""
    for key in SAMPLES:
        try:
            if dataset is sample(key)[0]:
                return True
        except PrivcoreError:  # a sample above this installation's limits: not this one
            continue
    return False


@st.cache_data(scope="session", max_entries=3, show_spinner=False)
def load_upload(content: bytes, filename: str) -> Dataset:
    """Parse an uploaded file; cached per session so reruns do not parse it again (a few
    files only: the cache holds parsed tables, and it is dropped when the session ends)."""
    return load(content, filename=filename)

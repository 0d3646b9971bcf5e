"""The one per-session object every page reads and writes.

Each browser session has its own :class:`Workbench` in ``st.session_state``; nothing a
visitor uploads or edits is stored anywhere shared. Bundled samples are read-only and
cached for the process.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from privcore.config import limits
from privcore.data import SAMPLES, Dataset, Schema, load, load_sample, suggest_roles
from privcore.errors import ParameterError

STATE_KEY = "workbench"
DEFAULT_SAMPLE = "adult"


@dataclass
class Workbench:
    """Session state: the data sets, their schemas, and the active one."""

    uploads: dict[str, Dataset] = field(default_factory=dict)
    drafts: dict[str, Schema] = field(default_factory=dict)
    confirmed: dict[str, Schema] = field(default_factory=dict)
    active: str = DEFAULT_SAMPLE
    seen_uploads: dict[str, str] = field(default_factory=dict)
    last_release: Any = None

    def dataset_keys(self) -> list[str]:
        return [*SAMPLES, *self.uploads]

    def dataset(self, key: str | None = None) -> Dataset:
        key = key or self.active
        if key in self.uploads:
            return self.uploads[key]
        return sample(key)[0]

    def draft(self, key: str | None = None) -> Schema:
        """The schema under edit: confirmed, else the sample's, else the suggestions."""
        key = key or self.active
        if key not in self.drafts:
            if key in self.confirmed:
                self.drafts[key] = self.confirmed[key]
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
        key = name
        n = 2
        while key in SAMPLES or key in self.uploads:
            key = f"{name} ({n})"
            n += 1
        self.uploads[key] = dataset
        self.active = key
        return key

    def remove_upload(self, key: str) -> None:
        """Forget an uploaded data set and everything this session derived from it."""
        self.uploads.pop(key, None)
        self.drafts.pop(key, None)
        self.confirmed.pop(key, None)
        # the upload widget may still hold the file: remember it as dismissed ("")
        self.seen_uploads = {k: ("" if v == key else v) for k, v in self.seen_uploads.items()}
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
        return SAMPLES[key].title if key in SAMPLES else key


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


def session_owner() -> str:
    """An opaque random token of this browser session, recorded with every run, so
    that a hosted demo lists, compares and deletes only the visitor's own runs."""
    token = st.session_state.get("_owner")
    if not isinstance(token, str):
        token = st.session_state["_owner"] = secrets.token_hex(16)
    return token


def is_bundled(dataset: Dataset) -> bool:
    """Is this one of the bundled (public, read-only) samples, not a visitor's data?"""
    return any(dataset is sample(key)[0] for key in SAMPLES)


@st.cache_data(scope="session", max_entries=3, show_spinner=False)
def load_upload(content: bytes, filename: str) -> Dataset:
    """Parse an uploaded file; cached per session so reruns do not parse it again (a few
    files only: the cache holds parsed tables, and it is dropped when the session ends)."""
    return load(content, filename=filename)

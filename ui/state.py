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

from privcore.data import SAMPLES, Dataset, Schema, load, load_sample, suggest_roles

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
        key = name
        n = 2
        while key in SAMPLES or key in self.uploads:
            key = f"{name} ({n})"
            n += 1
        self.uploads[key] = dataset
        self.active = key
        return key

    def title(self, key: str) -> str:
        return SAMPLES[key].title if key in SAMPLES else key


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


@st.cache_data(scope="session", max_entries=8, show_spinner=False)
def load_upload(content: bytes, filename: str) -> Dataset:
    """Parse an uploaded file; cached per session so reruns do not parse it again."""
    return load(content, filename=filename)

"""Choosing the release to examine: the last one made here, a loaded data set, or a file."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from privcore.data import Dataset, Schema
from ui.errors import show_error
from ui.i18n import t
from ui.state import Workbench, load_upload

RELEASE_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "gz", "zip"]


def pick_release(
    wb: Workbench, original: Dataset, schema: Schema, *, key: str
) -> tuple[str | None, pd.DataFrame | None, Any]:
    """Radio + selector/uploader; returns (name, released frame, Release object or None).

    A loaded data set counts as a release of the active one when it has every
    quasi-identifier and sensitive column of the schema.
    """
    needed = set(schema.quasi_identifiers) | set(schema.sensitive)
    compatible = [
        k
        for k in wb.dataset_keys()
        if k != wb.active and needed <= set(map(str, wb.dataset(k).frame.columns))
    ]
    sources = (
        (["last"] if wb.last_release is not None else [])
        + (["dataset"] if compatible else [])
        + ["upload"]
    )
    source = st.radio(
        t("pl.release_source"),
        sources,
        horizontal=True,
        format_func=lambda s: t(f"pl.source_{s}"),
        key=f"{key}_source",
    )
    if not compatible and wb.last_release is None:
        st.caption(t("pl.no_release_yet"))
    if source == "last":
        release = wb.last_release
        name = t("pl.source_last") + f" ({t('alg.' + release.algorithm)})"
        return name, release.frame, release
    if source == "dataset":
        preferred = f"{wb.active}_release"
        chosen = st.selectbox(
            t("pl.release_dataset"),
            compatible,
            index=compatible.index(preferred) if preferred in compatible else 0,
            format_func=wb.title,
            key=f"{key}_release_key",
        )
        return wb.title(chosen), wb.dataset(chosen).frame, None
    upload = st.file_uploader(t("pl.release_upload"), type=RELEASE_TYPES, key=f"{key}_upload")
    if upload is None:
        return None, None, None
    try:
        return upload.name, load_upload(upload.getvalue(), upload.name).frame, None
    except Exception as exc:  # noqa: BLE001 - shown; nothing else changes
        show_error(exc)
        return None, None, None


def note_release_columns(release: Any, qi: list[str], sa: list[str]) -> None:
    """Say so when a release made on the Anonymize page used other QIs/SAs than the
    ones this page checks it against (every QI an attacker may know)."""
    if release is None or (list(release.qi) == list(qi) and list(release.sa) == list(sa)):
        return
    st.info(
        t(
            "pl.release_columns_differ",
            made_qi=", ".join(release.qi),
            made_sa=", ".join(release.sa),
            qi=", ".join(qi),
            sa=", ".join(sa),
        ),
        icon=":material/info:",
    )

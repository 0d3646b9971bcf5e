"""The shelf of releases of the active data set: putting a release on it, the release
picker at the top of an assessing page, and the shelf's own view (rename, review, show,
remove)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from privcore.data import Dataset, Schema
from privcore.data.loading import fingerprint
from privcore.runs import Outcome
from ui.common.engine_tables import not_on_engine
from ui.common.errors import show_error
from ui.common.i18n import escape_md, t, t_plain
from ui.common.state import ShelfRelease, Workbench, load_upload, workbench
from ui.common.workspace.names import default_name, now_hhmm

#: The file types a released table (or a population, a roll, a control set, DP outputs)
#: is read from.
RELEASE_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "gz", "zip"]


def shelve_made(
    wb: Workbench,
    data: str,
    outcome: Outcome,
    *,
    source: str = "made",
) -> tuple[ShelfRelease, list[str]]:
    """Put the release of an anonymize run on the shelf (or find it there: the same rows
    made with the same request are one release). Returns it and the names the shelf let
    go (see :meth:`Workbench.add_release`)."""
    release = outcome.result
    request = outcome.request.to_dict()
    sha = release.fingerprint.sha256
    existing = wb.same_release(data, sha, request)
    if existing is not None:
        return existing, []
    made_at = now_hhmm()
    return wb.add_release(
        lambda new_id: ShelfRelease(
            id=new_id,
            name=default_name(release, made_at),
            data=data,
            source=source,
            frame=release.frame,
            qi=tuple(release.qi),
            sa=tuple(release.sa),
            fingerprint=sha,
            made_at=made_at,
            request=request,
            run_id=outcome.run_id,
            release=release,
            aligned=True,
            outcome=outcome,
        )
    )


def shelve_frame(
    wb: Workbench, data: str, name: str, frame: pd.DataFrame, *, source: str, origin: str
) -> tuple[ShelfRelease, list[str]]:
    """Put a released table read from a file (or a loaded data set) on the shelf."""
    sha = fingerprint(frame).sha256
    existing = next(
        (r for r in wb.releases(data) if r.fingerprint == sha and r.source == source), None
    )
    if existing is not None:
        return existing, []
    return wb.add_release(
        lambda new_id: ShelfRelease(
            id=new_id,
            name=name,
            data=data,
            source=source,
            frame=frame,
            qi=(),
            sa=(),
            fingerprint=sha,
            made_at=now_hhmm(),
            origin=origin,
        )
    )


def note_dropped(dropped: list[str]) -> None:
    for name in dropped:
        st.info(t("ws.dropped", name=name), icon=":material/inventory_2:")


def _join_loaded_data_sets(wb: Workbench, schema: Schema) -> None:
    """Loaded data sets holding every QI and SA of the original join its shelf."""
    needed = set(schema.quasi_identifiers) | set(schema.sensitive)
    for key in wb.dataset_keys():
        if key == wb.active or any(
            r.source == "dataset" and r.origin == key for r in wb.releases()
        ):
            continue
        dataset = wb.dataset(key)
        if needed and needed <= set(map(str, dataset.frame.columns)):
            wb.add_release(
                lambda new_id, key=key, dataset=dataset: ShelfRelease(
                    id=new_id,
                    name=wb.title(key),
                    data=wb.active,
                    source="dataset",
                    frame=dataset.frame,
                    qi=(),
                    sa=(),
                    fingerprint=dataset.fingerprint.sha256,
                    made_at=now_hhmm(),
                    origin=key,
                )
            )


def describe_release(entry: ShelfRelease) -> str:
    """One line on where a release comes from, its size, its run and its rows' order."""
    rows = f"{len(entry.frame):,}"
    if entry.made_here:
        how = t(
            "ws.made_here",
            time=entry.made_at,
            run=f"#{entry.run_id}" if entry.run_id is not None else "—",
            rows=rows,
        )
        order = t("ws.download_shuffled") if entry.shuffled else t("ws.download_in_order")
        return f"{how} {order}"
    return t(f"ws.source_{entry.source}", origin=entry.origin or entry.name, rows=rows)


def pick_release(
    wb: Workbench, original: Dataset, schema: Schema, *, key: str
) -> ShelfRelease | None:
    """The release picker at the top of an assessing page: every release of the active
    data set, the same pick on every page (``wb.under_review``), and a way to add a
    released file. Returns the picked release (None while the shelf is empty)."""
    _join_loaded_data_sets(wb, schema)
    with st.container(border=True):
        chooser = st.container()  # drawn after a file added below has joined the shelf
        with st.expander(t("ws.add_file"), expanded=wb.reviewed() is None):
            upload = st.file_uploader(
                t("pl.release_upload"), type=RELEASE_TYPES, key=f"{key}_upload"
            )
            shelved = st.session_state.setdefault("_shelved_uploads", {})
            if upload is not None and (wb.active, upload.file_id) not in shelved:
                try:
                    frame = load_upload(upload.getvalue(), upload.name).frame
                except Exception as exc:  # noqa: BLE001 - shown; nothing else changes
                    show_error(exc)
                else:
                    entry, dropped = shelve_frame(
                        wb, wb.active, upload.name, frame, source="file", origin=upload.name
                    )
                    shelved[(wb.active, upload.file_id)] = entry.id
                    wb.under_review[wb.active] = entry.id
                    note_dropped(dropped)
        with chooser:
            picked = wb.reviewed()
            if picked is None:
                st.caption(t("ws.no_release"))
                return None
            wb.under_review[wb.active] = picked.id
            if st.session_state.get(key) != picked.id:
                st.session_state[key] = picked.id

            def choose() -> None:
                wb.under_review[wb.active] = st.session_state[key]

            st.selectbox(
                t("ws.release"),
                [r.id for r in wb.releases()],
                format_func=lambda i: wb.find_release(i).name,
                help=t("ws.release_help"),
                key=key,
                on_change=choose,
            )
            st.caption(describe_release(picked))
    return picked


def note_release_columns(entry: ShelfRelease | None, qi: list[str], sa: list[str]) -> None:
    """Say so when a release made here used other QIs/SAs than the ones this page
    checks it against (every QI an attacker may know)."""
    if entry is None or not entry.made_here:
        return
    if list(entry.qi) == list(qi) and list(entry.sa) == list(sa):
        return
    st.info(
        t(
            "pl.release_columns_differ",
            made_qi=", ".join(entry.qi),
            made_sa=", ".join(entry.sa),
            qi=", ".join(qi),
            sa=", ".join(sa),
        ),
        icon=":material/info:",
    )


def shelf_view(wb: Workbench, *, key: str) -> None:
    """The releases of the active data set: a table, and for the chosen one its name (to
    edit), "review it" (on the Privacy level, Attack and Report pages), "show it here"
    (made here) and "remove"."""
    entries = wb.releases()
    if not entries:
        st.caption(t("ws.no_release"))
        return
    reviewed = wb.reviewed()
    st.dataframe(
        pd.DataFrame(
            {
                t_plain("ws.col_name"): [r.name for r in entries],
                t_plain("ws.col_source"): [t_plain(f"ws.kind_{r.source}") for r in entries],
                t_plain("ws.col_time"): [r.made_at for r in entries],
                t_plain("ws.col_rows"): [len(r.frame) for r in entries],
                t_plain("ws.col_run"): [r.run_id for r in entries],
                t_plain("ws.col_review"): [r is reviewed for r in entries],
            }
        ),
        hide_index=True,
    )
    ids = [r.id for r in entries]
    chosen = wb.find_release(
        st.selectbox(
            t("ws.shelf_choose"),
            ids,
            index=len(ids) - 1,
            format_func=lambda i: wb.find_release(i).name,
            key=f"{key}_chosen",
        )
    )
    if chosen is None:
        return
    name = st.text_input(t("ws.new_name"), value=chosen.name, key=f"{key}_name_{chosen.id}")
    c1, c2, c3, c4 = st.columns(4)
    if c1.button(t("ws.rename"), key=f"{key}_rename", disabled=name == chosen.name):
        wb.rename_release(chosen.id, name)
        st.rerun()
    if c2.button(t("ws.review"), key=f"{key}_review", disabled=chosen is reviewed):
        wb.under_review[wb.active] = chosen.id
        st.rerun()
    if c3.button(t("ws.show_here"), key=f"{key}_show", disabled=not chosen.made_here):
        wb.made[wb.active] = chosen.id
        st.rerun()
    if c4.button(t("ws.remove"), key=f"{key}_remove"):
        wb.remove_release(chosen.id)
        st.rerun()


def assessing_page(
    *, title: str, lead: str, key: str, needs_columns: bool = True
) -> tuple[Workbench, Dataset, Schema, ShelfRelease]:
    """The top of a page that assesses a release: its title and lead, the original
    (its confirmed roles, with a QI and an SA when ``needs_columns``: without them the
    page says what to do and stops) and the release picker (an empty shelf stops the
    page too). Returns the workbench, the original, its schema and the release picked."""
    st.title(t(title))
    st.write(t(lead))
    wb = workbench()
    # a table opened in an engine: the Privacy level, Attack and Report pages take it first
    not_on_engine(wb, title)
    original = wb.dataset()
    schema = wb.schema()
    if schema is None or (needs_columns and (not schema.quasi_identifiers or not schema.sensitive)):
        missing = t("an.schema_first") if needs_columns else t("pl.confirm_first")
        st.warning(missing, icon=":material/warning:")
        st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
        st.stop()
    st.markdown(f"**{t('pl.original')}**: {escape_md(wb.title(wb.active))}")
    entry = pick_release(wb, original, schema, key=key)
    if entry is None:
        st.stop()
    return wb, original, schema, entry

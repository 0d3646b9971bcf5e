"""The workspace: the shelf of releases, the release picker of the assessing pages, the
results each page keeps per release, how rows are paired, and the verdicts' actions.

- Every release is a named :class:`~ui.state.ShelfRelease` (made on the Anonymize page,
  made again from a spec, uploaded, or a loaded data set with the original's columns).
- The Privacy level, Attack and Report pages start with :func:`pick_release`: one
  picker naming the release they assess (the same one on the three pages).
- A result is kept per page and per release with the parameters it was computed for
  (:func:`keep_result`); :func:`result_header` names both and says "out of date" when the
  release's name or the page's parameters changed since. A page never shows the result
  of another release than the one its picker names.
- Rows of a release read from a file may not line up with the original's:
  :func:`alignment_controls` offers a key column, the exact matching of small tables,
  or the figures that need no pairing; :func:`release_inputs` builds the run's inputs.
- A failing verdict carries a fix (:func:`action_button`): it sets the Anonymize page's
  controls and runs them there.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import streamlit as st

from privcore.data import Dataset, Schema
from privcore.data.loading import fingerprint
from privcore.errors import PrivcoreError
from privcore.runs import AnonymizeRequest, Inputs, Outcome
from privcore.runs.registry import ALGORITHMS
from privcore.words import labels as words
from privcore.words.labels import param_label, param_value
from ui.errors import show_error
from ui.i18n import current_language, labels, t, t_plain
from ui.state import ShelfRelease, Workbench, load_upload, set_controls

RELEASE_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "gz", "zip"]
RESULTS = "_results"
REQUESTED = "an_requested"  # a verdict's action asks the Anonymize page for a run
REVIEW = "review"  # REQUESTED's value when the release it makes is to be reviewed

# --------------------------------------------------------------------------- names


def now_hhmm() -> str:
    return dt.datetime.now().strftime("%H:%M")


def choice_title(key: str, fallback: str) -> str:
    """The words of a registry entry or choice in the page's language: the catalogue's
    ``key`` when it has one, else ``fallback`` (the registry's own title, or the choice)."""
    text = t_plain(key)
    return fallback if text == key else text


def algorithm_title(name: str) -> str:
    entry = ALGORITHMS.get(name)
    return choice_title(f"alg.{name}", entry.title if entry is not None else str(name))


def default_name(release: Any, made_at: str) -> str:
    """A release's default name: its algorithm, the models it was made with, its
    suppression limit when it is not the default one, and the time ("Mondrian k=5 l=2 ·
    14:32", "Datafly k=5 sup=0% · 14:33")."""
    parts = [algorithm_title(str(release.algorithm))]
    for model in release.params.get("constraints", []):
        for letter in ("k", "l", "t"):
            if letter in model:
                parts.append(f"{letter}={float(model[letter]):g}")
    suppression = float(release.params.get("max_suppression") or 0.0)
    if abs(suppression - AnonymizeRequest.max_suppression) > 1e-12:
        parts.append(f"sup={suppression:.0%}")
    return f"{' '.join(parts)} · {made_at}"


def file_stem(name: str) -> str:
    """A release's name as a file name: letters, digits, dots, dashes and underscores."""
    stem = re.sub(r"[^\w.=-]+", "_", name, flags=re.UNICODE).strip("._")
    return stem[:80] or "release"


# --------------------------------------------------------------------------- the shelf


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


# --------------------------------------------------------------------------- row pairing

PAIRINGS = ("auto", "key", "matching", "none")


def alignment_controls(
    entry: ShelfRelease,
    original: Dataset,
    qi: list[str],
    sa: list[str],
    *,
    key: str,
    allow_none: bool = True,
) -> tuple[str, str | None]:
    """How the rows of ``entry`` are paired with the original's: ("made", None) for a
    release made here (its rows are the original's, in order), else the user's choice —
    "auto" (by position when the rows line up; otherwise only what needs no pairing),
    "key" (with the key column), "matching" (small tables) or "none"."""
    if entry.aligned:
        st.caption(t("ws.aligned_made_here"))
        return "made", None
    from privcore.measure.entropy import ROW_ORDER_EXACT_ROWS

    shared = [
        str(c)
        for c in original.frame.columns
        if c in entry.frame.columns and str(c) not in (*qi, *sa)
    ]
    choices = [p for p in PAIRINGS if allow_none or p != "none"]
    if not shared:
        choices.remove("key")
    if len(entry.frame) > ROW_ORDER_EXACT_ROWS or len(entry.frame) != original.n_rows:
        choices.remove("matching")
    if st.session_state.get(f"{key}_pairing") not in choices:
        st.session_state.pop(f"{key}_pairing", None)
    pairing = st.radio(
        t("ws.pairing"),
        choices,
        format_func=labels(choices, lambda p: t(f"ws.pairing_{p}", limit=ROW_ORDER_EXACT_ROWS)),
        help=t("ws.pairing_help"),
        key=f"{key}_pairing",
    )
    column = None
    if pairing == "key":
        column = st.selectbox(t("pl.key"), shared, help=t("pl.key_help"), key=f"{key}_key")
    return pairing, column


def release_inputs(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    *,
    qi: list[str],
    sa: list[str],
    **more: Any,
) -> Inputs:
    """The inputs of a run on ``entry``: a release made here is paired row for row, with
    the rows its method blanked (its suppressed rows, the figure every page shows); a
    file by its key or position (the request says), or by the exact matching of small
    tables (:func:`privcore.measure.report.match_rows`, which raises when none exists)."""
    frame, aligned, names = entry.frame, entry.aligned, {}
    made = entry.release
    blanked = made.suppressed if made is not None and len(made.suppressed) == len(frame) else None
    if pairing == "matching":
        from privcore.measure.report import match_rows

        frame = match_rows(
            original.frame, entry.frame, qi=qi, sa=sa, hierarchies=schema.hierarchies
        )
        aligned, names, blanked = True, {"pairing": "matching"}, None
    return Inputs(
        original=original,
        schema=schema,
        release=frame,
        release_name=entry.name,
        aligned=aligned,
        shuffled=entry.shuffled,
        blanked=blanked,
        names={**names, **more.pop("names", {})},
        **more,
    )


def paired_frame(
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    key_column: str | None,
    *,
    qi: list[str],
    sa: list[str],
) -> pd.DataFrame:
    """The rows of ``entry`` in the original's order (row i is record i): as made here,
    by the key column, by the exact matching of small tables, or by position with the
    order checked (:func:`privcore.measure.entropy.align`, which raises when the rows
    do not line up)."""
    if entry.aligned:
        return entry.frame.reset_index(drop=True)
    if pairing == "matching":
        from privcore.measure.report import match_rows

        return match_rows(original.frame, entry.frame, qi=qi, sa=sa, hierarchies=schema.hierarchies)
    from privcore.measure.entropy import align

    _, frame = align(
        original.frame,
        entry.frame,
        key_column if pairing == "key" else None,
        qi=qi,
        hierarchies=schema.hierarchies,
    )
    return frame


def rows_line_up(entry: ShelfRelease, original: Dataset, schema: Schema, qi: list[str]) -> bool:
    """Can the rows of ``entry`` be paired by position (made here, or the same number of
    rows whose order is not evidently wrong: :func:`privcore.measure.entropy.check_row_order`)?"""
    if entry.aligned:
        return True
    if len(entry.frame) != original.n_rows:
        return False
    from privcore.errors import DataFormatError
    from privcore.measure.entropy import check_row_order

    try:
        check_row_order(
            original.frame.reset_index(drop=True),
            entry.frame.reset_index(drop=True),
            qi,
            schema.hierarchies,
        )
    except DataFormatError:
        return False
    return True


def request_alignment(pairing: str) -> str:
    """The request's ``alignment`` for a pairing choice (see registry ALIGNMENTS)."""
    return {"auto": "auto", "none": "none"}.get(pairing, "position")


# --------------------------------------------------------------------------- results


def keep_result(page: str, entry: ShelfRelease, params: Mapping[str, Any], value: Any) -> None:
    """Keep ``value`` as ``page``'s result for ``entry``, computed with ``params``."""
    st.session_state.setdefault(RESULTS, {})[(page, entry.id)] = {
        "params": dict(params),
        "name": entry.name,
        "fingerprint": entry.fingerprint,
        "value": value,
    }


def result_of(page: str, entry: ShelfRelease | None) -> dict[str, Any] | None:
    """``page``'s result for ``entry`` (never another release's), or None."""
    if entry is None:
        return None
    stored = st.session_state.get(RESULTS, {}).get((page, entry.id))
    if stored is None or stored["fingerprint"] != entry.fingerprint:
        return None
    return stored


def changes(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """The parameters that differ, as "name: before → now", in the page's language."""
    lang = current_language()
    out = []
    for name in dict.fromkeys([*before, *now]):
        old, new = before.get(name), now.get(name)
        if old != new:
            out.append(
                f"{param_label(name, lang)}: {param_value(name, old, lang)} → "
                f"{param_value(name, new, lang)}"
            )
    return out


def describe_params(params: Mapping[str, Any], names: tuple[str, ...] | None = None) -> str:
    """The parameters of a result in the page's language, the ones set, in order."""
    return words.describe_params(params, current_language(), names)


def result_header(
    stored: Mapping[str, Any],
    entry: ShelfRelease | None,
    params: Mapping[str, Any],
    *,
    run_id: int | None = None,
    shown: tuple[str, ...] | None = None,
) -> bool:
    """Name the release (when the result is about one) and the parameters a result was
    computed for; say "out of date" when the release was renamed or the parameters
    changed since. Returns whether the result is current."""
    st.caption(
        t(
            "ws.computed_for" if entry is not None else "ws.computed_with",
            name=stored.get("name") or "",
            params=describe_params(stored["params"], shown) or "—",
            run=f"#{run_id}" if run_id is not None else "—",
        )
    )
    differ = changes(stored["params"], params)
    if entry is not None and stored["name"] != entry.name:
        differ.insert(0, f"{t_plain('ws.name')}: {stored['name']} → {entry.name}")
    if differ:
        st.warning(t("ws.out_of_date", changes="; ".join(differ)), icon=":material/update:")
    return not differ


def history_note(outcome: Outcome) -> None:
    """Say so when the history could not keep a run (the result is shown all the same)."""
    from ui.i18n import error_text

    exc = outcome.history_error
    if exc is None:
        return
    if exc.code == "history.deferred":
        st.info(t("history.deferred_note") + " " + _md(error_text(exc)), icon=":material/schedule:")
    else:
        st.warning(
            t("history.unavailable_note") + " " + _md(error_text(exc)), icon=":material/warning:"
        )


def _md(text: str) -> str:
    from ui.i18n import escape_md

    return escape_md(text)


# --------------------------------------------------------------------------- actions

#: Anonymize request fields an action may set, and the control each one sets.
ACTION_FIELDS = ("algorithm", "k", "l", "l_kind", "c", "t", "t_distance", "max_suppression")


def action_text(action: Mapping[str, Any]) -> str:
    """What an action tries, in words ("k = 10, l = 2 (distinct)")."""
    parts = []
    if "algorithm" in action:
        parts.append(algorithm_title(str(action["algorithm"])))
    if "k" in action:
        parts.append(f"k = {action['k']}")
    if "l" in action:
        kind = t_plain(f"pl.l_kind_{action.get('l_kind', 'distinct')}")
        parts.append(f"l = {float(action['l']):g} ({kind})")
    if "t" in action:
        parts.append(f"t = {float(action['t']):g}")
    if "max_suppression" in action:
        parts.append(f"{t_plain('an.max_suppression')} {float(action['max_suppression']):.0%}")
    return ", ".join(parts)


def try_action(wb: Workbench, entry: ShelfRelease | None, action: Mapping[str, Any]) -> None:
    """Carry out an anonymize ``action`` (``{"action": "anonymize", "k": 10, …}``): the
    Anonymize page's controls become the release's own request (when it was made here)
    with the action's changes, and the page opens and runs them; the release it makes
    becomes the one under review (``wb.under_review``), which the Privacy level, Attack
    and Report pages assess — as "Review this release" would make it."""
    from ui.anonymize_view import controls_for

    asked = {k: v for k, v in action.items() if k in ACTION_FIELDS}
    base = dict(entry.request) if entry is not None and entry.request else {}
    set_controls(controls_for({**base, **asked}), scope=wb.active)
    st.session_state[REQUESTED] = REVIEW
    st.switch_page("pages/anonymize.py")


def action_button(
    wb: Workbench, entry: ShelfRelease | None, action: Mapping[str, Any] | None, *, key: str
) -> None:
    """A button that tries ``action`` on the Anonymize page (:func:`try_action`)."""
    if not action or action.get("action") != "anonymize":
        return
    asked = {k: v for k, v in action.items() if k in ACTION_FIELDS}
    if asked and st.button(
        t("ws.try_action", what=action_text(asked)),
        key=key,
        icon=":material/play_arrow:",
        help=t("ws.try_action_help"),
    ):
        try_action(wb, entry, action)


def verdict_action(verdict: Mapping[str, Any]) -> dict[str, Any] | None:
    """The anonymize action that would make a failed model verdict pass: the model's own
    threshold (``verdict["parameters"]``, e.g. ``{"model": "k", "k": 5}``)."""
    if verdict.get("passed"):
        return None
    parameters = verdict.get("parameters") or {}
    model = parameters.get("model")
    if model == "k":
        return {"action": "anonymize", "k": int(parameters["k"])}
    if model in ("distinct_l", "entropy_l", "recursive_cl"):
        action = {
            "action": "anonymize",
            "l": float(parameters["l"]),
            "l_kind": {"distinct_l": "distinct", "entropy_l": "entropy"}.get(model, "recursive"),
        }
        if model == "recursive_cl" and parameters.get("c") is not None:
            action["c"] = float(parameters["c"])
        return action
    if model in ("t_closeness", "t"):
        return {
            "action": "anonymize",
            "t": float(parameters["t"]),
            "t_distance": parameters.get("distance", "auto"),
        }
    return None


def guard_run(call: Callable[[], Outcome]) -> Outcome | None:
    """``call()`` (a :func:`privcore.runs.run`); a user's error is shown and None comes
    back (the run recorded it already)."""
    try:
        outcome = call()
    except PrivcoreError as exc:
        show_error(exc)
        return None
    history_note(outcome)
    return outcome


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
    from ui.i18n import escape_md
    from ui.state import workbench

    st.title(t(title))
    st.write(t(lead))
    wb = workbench()
    from ui.large_table import not_on_engine

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

"""The History page's tables: a run's rows "what · value" and several runs side by side
(:mod:`ui.history.words` words them), the run list, the release a run assessed, and a
run's JSON one click away (:func:`run_json`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from privcore import history
from privcore.runs.registry import ALGORITHMS
from privcore.words.catalog import text
from privcore.words.labels import dataset_name, requirement
from ui.common.components import escape_md
from ui.common.i18n import current_language, t
from ui.history import words
from ui.history.labels import SEPARATOR
from ui.history.words import Line


def table(lines: Sequence[Line], lang: str) -> pd.DataFrame:
    """Rows "what · value" as a table (the columns under their labels)."""
    return pd.DataFrame(
        {
            text("history.field", lang): [line.label for line in lines],
            text("history.col_value", lang): [line.value for line in lines],
        },
        dtype="object",
    )


def compare(runs: Sequence[Mapping[str, Any]], section: str, lang: str) -> pd.DataFrame:
    """The ``section`` ("params" or "results") of several runs side by side: one row per
    field (in the order first met), one column per run (``#id``); empty where a run has
    no such field."""
    labels: dict[tuple[Any, ...], str] = {}
    columns: dict[str, dict[tuple[Any, ...], str]] = {}
    for run in runs:
        lines = words.describe(run.get(section) or {}, lang, run.get("kind"))
        for line in lines:
            labels.setdefault(line.path, line.label)
        columns[f"#{run.get('id')}"] = {line.path: line.value for line in lines}
    frame = {text("history.field", lang): list(labels.values())}
    for name, values in columns.items():
        frame[name] = [values.get(path, "") for path in labels]
    return pd.DataFrame(frame, dtype="object")


def run_list(runs: pd.DataFrame, lang: str) -> pd.DataFrame:
    """The run list with kind, page and status in words, "—" for a run without a data
    set, its start in UTC to the second (the same columns)."""
    shown = runs.copy()
    if "started_at" in shown:
        shown["started_at"] = [history.display_time(v) for v in runs["started_at"]]
    shown["kind"] = [words.kind_label(k, lang) for k in runs["kind"]]
    shown["page"] = [words.page_label(p, lang) for p in runs["page"]]
    shown["status"] = [words.status_label(s, lang) for s in runs["status"]]
    if "dataset_name" in shown:  # an audit of a mechanism reads no data set
        shown["dataset_name"] = [
            dataset_name(n, lang) if isinstance(n, str) else "—" for n in shown["dataset_name"]
        ]
    return shown


def release_names(params: Sequence[Any]) -> list[str]:
    """The name of the release each run assessed, from its parameters as the history
    holds them (JSON text); "—" for a run of no release."""
    names = []
    for value in params:
        try:
            parsed = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            parsed = None
        found = history.assessed_release({"params": parsed}) if parsed else None
        names.append((found or {}).get("name") or "—")
    return names


#: What made a release, besides its models, named where a run names the release it
#: assessed (the algorithm's own options follow).
RELEASE_SETTINGS = ("max_suppression", "seed")


def release_line(run: Mapping[str, Any], lang: str, *, made_by: int | None = None) -> str | None:
    """Which release a run assessed, in words (plain text), or None: "Release assessed:
    «k3» · made with Datafly (k ≥ 3, Suppression limit (share of rows) = 10%, Seed = 0)
    · fingerprint de71cd19011187db… · 9 rows × 4 columns · made by run #17". How it was
    made is said when the run recorded it (a readiness report on a release made on the
    Anonymize page); ``made_by``: the run that made it, when the caller knows it (the
    session's shelf holds each release's run)."""
    found = history.assessed_release(run)
    if found is None:
        return None
    parts = [text("history.release_assessed", lang, name=found["name"] or "—")]
    algorithm = found["algorithm"]
    if algorithm:
        made = found["parameters"]
        settings = [
            requirement(model, str(model.get("model") or ""), lang)
            for model in made.get("constraints") or ()
            if isinstance(model, Mapping)
        ]
        options = ALGORITHMS[algorithm].options if algorithm in ALGORITHMS else ()
        for name in (*RELEASE_SETTINGS, *options):
            if made.get(name) is not None:
                label = words.field_label(name, None, lang)
                settings.append(f"{label} = {words.value_text(name, made[name], lang)}")
        parts.append(
            text(
                "history.release_made_with",
                lang,
                algorithm=words.code_word("algorithm", algorithm, lang),
                settings=text("report.list.separator", lang).join(s for s in settings if s) or "—",
            )
        )
    if found["sha256"]:
        parts.append(text("history.release_fingerprint", lang, sha=found["sha256"][:16]))
    if isinstance(found["rows"], int) and isinstance(found["columns"], int):
        parts.append(
            text(
                "history.release_size",
                lang,
                rows=f"{found['rows']:,}",
                columns=f"{found['columns']:,}",
            )
        )
    if made_by is not None:
        parts.append(text("history.release_run", lang, id=int(made_by)))
    return SEPARATOR.join(parts)


def run_json(run: Mapping[str, Any]) -> str:
    """A run's parameters and results as the JSON the history holds (for experts)."""
    keep = ("id", "kind", "page", "status", "error", "started_at", "params", "results")
    return json.dumps({k: run.get(k) for k in keep}, ensure_ascii=False, indent=2)


def show_details(run: Mapping[str, Any]) -> None:
    """A run's parameters and results as two tables, its error in words, and the
    download of its JSON."""
    lang = current_language()
    params = words.describe(run.get("params") or {}, lang, run.get("kind"))
    results = words.describe(run.get("results") or {}, lang, run.get("kind"))
    for title, lines in ((t("history.params"), params), (t("history.results"), results)):
        st.markdown(f"*{title}*")
        if lines:
            st.dataframe(table(lines, lang), hide_index=True, width="stretch")
        else:
            st.caption(t("history.nothing_recorded"))
    recorded = (run.get("results") or {}) if isinstance(run.get("results"), Mapping) else {}
    if run.get("kind") == "error":  # a fault of the app: its reference and the exception
        message = text("history.unexpected", lang, name=str(run.get("error") or "—"))
        st.error(escape_md(message), icon=":material/error:")
    elif run.get("error") and "error" not in recorded:
        st.error(escape_md(words.error_sentence(run["error"], lang)), icon=":material/error:")
    st.download_button(
        t("history.download_json"),
        data=run_json(run),
        file_name=f"run{run.get('id')}_parameters_results.json",
        mime="application/json",
        on_click="ignore",
        key=f"run_json::{run.get('id')}",
    )


def show_comparison(runs: Sequence[Mapping[str, Any]]) -> None:
    """Parameters and results of several runs side by side."""
    lang = current_language()
    for title, section in ((t("history.params"), "params"), (t("history.results"), "results")):
        st.markdown(f"*{title}*")
        st.dataframe(compare(runs, section, lang), hide_index=True, width="stretch")


def header(run: Mapping[str, Any]) -> str:
    """The heading of a run's details: "#7 · measure · done" (Markdown)."""
    lang = current_language()
    parts = [
        f"#{run['id']}",
        words.kind_label(run["kind"], lang),
        words.status_label(run["status"], lang),
        words.page_label(run.get("page"), lang),
    ]
    return "**" + escape_md(SEPARATOR.join(parts)) + "**"

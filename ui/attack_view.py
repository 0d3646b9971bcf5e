"""Views of the Attack simulator page: roll preview, before/after charts, victims, and
the page on a table opened in an engine (:func:`table_page`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from privcore.attacks import AttackReport, RollFrequencySet, Simulation, VoterRoll
from privcore.attacks.roll import max_roll
from privcore.data import Dataset
from privcore.errors import PrivcoreError
from privcore.runs import AttackRequest, Inputs, TaskRequest, tasks
from privcore.runs.registry import OPTIONS
from privcore.words.labels import attack_table
from ui.charts import ACCENT, FAIL, MUTED
from ui.components import bounded_slider, escape_md, fmt
from ui.errors import show_error
from ui.heavy import compute_heavy, heavy_button, run_heavy
from ui.i18n import current_language, labels, t, t_plain
from ui.progress import progress_bar
from ui.shared import shared_compute
from ui.state import Workbench, is_bundled, keep, load_upload
from ui.workspace import choice_title

#: Columns of a roll frequency set's targets that hold rows of the joint frequency set or
#: names (left empty: a frequency set names nobody), not shown.
_FREQUENCY_SET_ONLY = ("person_id", "name", "record", "matched_record")

WHEN = ("before", "after")


def when_label(when: str) -> str:
    return t(f"at.{when}")


def share(part: Any, whole: Any) -> float:
    return float(part) / float(whole) if whole else 0.0


def before_after_frame(sim: Simulation) -> pd.DataFrame:
    """Long table of the headline figures (shares in [0, 1]) before and after."""
    rows = []
    for when in WHEN:
        link = sim.linkage[when].summary
        hom = sim.homogeneity[when].summary
        risk = link.get("risk", {})
        targets = link.get("targets", 0)
        figures = {
            t("at.fig_reidentified"): share(link.get("reidentified", 0), targets),
            **{
                t_plain("at.fig_disclosed", sa=sa): share(n, targets)
                for sa, n in (link.get("attribute_disclosed") or {}).items()
            },
            **{
                t_plain("at.fig_within", sa=sa, tolerance=percent(link.get("tolerance"))): share(
                    n, targets
                )
                for sa, n in (link.get("attribute_within_tolerance") or {}).items()
            },
            t("at.fig_homogeneous"): hom.get("records_exposed_share", 0.0),
            t("at.fig_prosecutor_max"): risk.get("prosecutor_max") or 0.0,
            t("at.fig_journalist_max"): risk.get("journalist_max") or 0.0,
            t("at.fig_marketer"): risk.get("marketer") or 0.0,
        }
        rows += [{"figure": k, "when": when_label(when), "value": v} for k, v in figures.items()]
    return pd.DataFrame(rows)


def before_after_chart(sim: Simulation) -> alt.Chart:
    data = before_after_frame(sim)
    order = list(dict.fromkeys(data["figure"]))
    return (
        alt.Chart(data, title=t("at.chart_title"))
        .mark_bar()
        .encode(
            y=alt.Y("figure:N", title=None, sort=order, axis=alt.Axis(labelLimit=260)),
            x=alt.X(
                "value:Q",
                title=t("at.chart_x"),
                axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1]),
            ),
            yOffset="when:N",
            color=alt.Color(
                "when:N",
                title=None,
                scale=alt.Scale(domain=[when_label(w) for w in WHEN], range=[FAIL, ACCENT]),
            ),
            tooltip=["figure:N", "when:N", alt.Tooltip("value:Q", format=".1%")],
        )
    )


def headline(sim: Simulation) -> None:
    """Metric cards: re-identified and disclosed, after, with the change from before."""
    after, before = sim.linkage["after"].summary, sim.linkage["before"].summary
    cols = st.columns(4)
    cols[0].metric(t("at.targets"), f"{after['targets']:,}")
    cols[1].metric(
        t("at.reidentified"),
        f"{after['reidentified']:,}",
        delta=f"{after['reidentified'] - before['reidentified']:,}",
        delta_color="inverse",
        help=t("at.reidentified_help"),
    )
    disclosed_after = sum((after.get("attribute_disclosed") or {}).values())
    disclosed_before = sum((before.get("attribute_disclosed") or {}).values())
    cols[2].metric(
        t("at.disclosed"),
        f"{disclosed_after:,}",
        delta=f"{disclosed_after - disclosed_before:,}",
        delta_color="inverse",
        help=t("at.disclosed_help"),
    )
    cols[3].metric(t("at.baseline"), fmt(after.get("baseline")), help=t("at.baseline_help"))


def percent(share_of_one: Any) -> str:
    """0.1 → "10" (the tolerance as a percentage, without trailing zeros)."""
    return f"{100 * float(share_of_one or 0.0):g}"


def tolerance_input(original: pd.DataFrame, sa: list[str]) -> float:
    """The tolerance of the numeric disclosure, in percent on the page (0–100; the
    request's ``tolerance`` is its share of 1), shown when a sensitive attribute is
    numeric."""
    default = AttackRequest().tolerance
    numeric = [s for s in sa if s in original and pd.api.types.is_numeric_dtype(original[s])]
    if not numeric:
        return default
    top = float(OPTIONS["tolerance"].maximum or 1.0)
    chosen = st.number_input(
        t("at.tolerance", columns=", ".join(numeric)),
        min_value=0.0,
        max_value=100.0 * top,
        value=100.0 * default,
        step=1.0,
        format="%g",
        help=t("at.tolerance_help"),
        key=keep("at_tolerance"),
    )
    return round(float(chosen) / 100.0, 6)


def within_tolerance(sim: Simulation) -> None:
    """Per numeric sensitive attribute: the targets whose value the attacker learns
    within the tolerance (after, with the change from before)."""
    after, before = sim.linkage["after"].summary, sim.linkage["before"].summary
    within = after.get("attribute_within_tolerance") or {}
    if not within:
        return
    tolerance = percent(after.get("tolerance"))
    cols = st.columns(max(len(within), 2))
    for col, (sa, n) in zip(cols, within.items(), strict=False):
        was = (before.get("attribute_within_tolerance") or {}).get(sa, 0)
        col.metric(
            t("at.within", sa=sa, tolerance=tolerance),
            f"{n:,}",
            delta=f"{n - was:,}",
            delta_color="inverse",
            help=t("at.within_help", tolerance=tolerance),
        )


def explanations(report: AttackReport) -> None:
    """The attack's own sentences (English), or the figures restated in Chinese."""
    if current_language() == "en":
        for sentence in report.explanations:
            st.markdown(f"- {escape_md(sentence)}")
        return
    s = report.summary
    if report.attack == "linkage":
        st.markdown(
            "- "
            + t(
                "at.zh_linkage",
                targets=s.get("targets"),
                unique=s.get("unique_matches"),
                reid=s.get("reidentified"),
                baseline=fmt(s.get("baseline")),
            )
        )
    elif report.attack == "homogeneity":
        st.markdown(
            "- "
            + t(
                "at.zh_homogeneity",
                classes=s.get("classes_exposed"),
                records=s.get("records_exposed"),
            )
        )


def chain_words(step: dict[str, Any]) -> str:
    """One victim's chain of reasoning (the library's steps) in the page's language."""
    person = t("at.list_sep").join(f"{q} {v}" for q, v in step["person"])
    parts = [t("at.step_voter", name=step["name"], person=person)]
    if step["classes"] == 0:
        parts.append(
            t("at.step_no_class") + (t("at.step_suppressed") if step["suppressed"] else "")
        )
    elif step["classes"] == 1:
        parts.append(t("at.step_one_class", cls=step["first_class"]))
    else:
        parts.append(t("at.step_classes", n=step["classes"], first=step["first_class"]))
    n = step["candidates"]
    if n == 1:
        key = "at.step_right_person" if step["correct"] else "at.step_someone_else"
        parts.append(t(key, record=step["matched_record"]))
    elif n:
        parts.append(t("at.step_candidates", n=f"{n:,}"))
    for sa, values, disclosed in step["sensitive"]:
        verdict = t("at.disclosed_yes") if disclosed else t("at.disclosed_no")
        parts.append(t("at.step_sa", sa=sa, values=values, verdict=verdict))
    return " → ".join(parts)


def victims(report: AttackReport, sa: list[str], *, limit: int = 10) -> None:
    """Example victims with their synthetic names and the attacker's reasoning; with a
    roll frequency set (targets counted in ``people``), which names nobody, the targets'
    rows with the people each stands for (:func:`counted_targets`)."""
    targets = report.targets
    if targets.empty:
        st.info(t("at.no_targets"))
        return
    if "people" in targets.columns:
        st.info(t("at.names_nobody"), icon=":material/groups:")
        shown = counted_targets(targets.sort_values("candidate_records", kind="stable").head(200))
        st.dataframe(attack_table(shown, current_language()), hide_index=True)
        return
    if report.details.get("chain_steps"):
        for step in report.details["chain_steps"][:limit]:
            st.markdown(f"- {chain_words(step)}")  # t() escaped the data in it
    else:
        for row in targets.head(limit).to_dict("records"):
            parts = []
            for name in sa:
                verdict = (
                    t("at.disclosed_yes") if row.get(f"{name} disclosed") else t("at.disclosed_no")
                )
                parts.append(f"{name}: {row.get(f'{name} values')} → {verdict}")
            st.markdown(
                "- "
                + t(
                    "at.chain",
                    name=str(row.get("name", "")),
                    n=row.get("candidate_records"),
                    values="; ".join(parts),
                )
            )
    shown = targets.sort_values("candidate_records").head(200)
    st.dataframe(attack_table(shown, current_language()), hide_index=True)


def counted_targets(targets: pd.DataFrame) -> pd.DataFrame:
    """The targets of an attack with a roll frequency set as shown: each row a
    distinct combination of the data set's people, with how many people it stands for
    (headed in words) after their quasi-identifiers; no names or row numbers of the
    frequency set."""
    shown = targets.drop(columns=[c for c in _FREQUENCY_SET_ONLY if c in targets.columns])
    people = shown.pop("people")
    at = list(shown.columns).index("candidate_classes")
    shown.insert(at, t_plain("at.col_people"), people.to_numpy(dtype=np.int64))
    return shown.reset_index(drop=True)


def roll_rows(roll: RollFrequencySet, limit: int) -> pd.DataFrame:
    """The first ``limit`` rows of a roll frequency set as shown: the quasi-identifiers,
    whether the row's people are records of the data set, and how many people it stands
    for (headed in words)."""
    frame = roll.frame.head(limit)
    out = frame[list(roll.qi)].reset_index(drop=True).copy()
    out[t_plain("at.col_in_dataset")] = (frame["record"].to_numpy() >= 0).tolist()
    out[t_plain("at.col_people")] = frame["count"].to_numpy(dtype=np.int64)
    return out


def homogeneous_classes(report: AttackReport) -> None:
    if report.targets.empty:
        st.success(t("at.no_homogeneous"), icon=":material/check_circle:")
    else:
        st.dataframe(attack_table(report.targets.head(500), current_language()), hide_index=True)


def posterior_chart(reports: dict[str, AttackReport]) -> alt.Chart:
    """Distribution of the attacker's confidence in each record's true value."""
    rows = []
    for when, report in reports.items():
        hist = report.details.get("posterior_histogram") or {}
        edges, counts = hist.get("edges", []), hist.get("counts", [])
        for i, count in enumerate(counts):
            rows.append(
                {"from": edges[i], "to": edges[i + 1], "records": count, "when": when_label(when)}
            )
    data = pd.DataFrame(rows)
    return (
        alt.Chart(data, title=t("at.posterior_title"))
        .mark_bar(opacity=0.75)
        .encode(
            x=alt.X("from:Q", bin="binned", title=t("at.posterior_x"), axis=alt.Axis(format="%")),
            x2="to:Q",
            y=alt.Y("records:Q", title=t("at.records"), stack=None),
            color=alt.Color("when:N", title=None, scale=alt.Scale(range=[FAIL, ACCENT])),
            tooltip=[
                "when:N",
                alt.Tooltip("from:Q", format=".0%"),
                alt.Tooltip("to:Q", format=".0%"),
                "records:Q",
            ],
        )
    )


def effective_k_chart(report: AttackReport) -> alt.Chart:
    hist = report.details.get("effective_k_histogram") or {}
    data = pd.DataFrame({"k": [int(k) for k in hist], "records": list(hist.values())})
    data["re-identified"] = np.where(data["k"] == 1, t("at.yes"), t("at.no"))
    return (
        alt.Chart(data, title=t("at.effective_k_title"))
        .mark_bar()
        .encode(
            x=alt.X("k:O", title=t("at.effective_k_x")),
            y=alt.Y("records:Q", title=t("at.records")),
            color=alt.Color(
                "re-identified:N", title=t("at.reidentified"), scale=alt.Scale(range=[MUTED, FAIL])
            ),
            tooltip=["k:O", "records:Q"],
        )
    )


def shared_roll(
    name: str, original: Dataset, qi: tuple[str, ...], progress: Any, **options: Any
) -> VoterRoll:
    """The voter roll of a bundled sample for these options, built once per server and
    shared by every session (:func:`ui.shared.shared_compute`: the same public
    table, columns, size, seed and names give the same roll; Adult's default holds
    301,620 people). Never used for a visitor's own data, which stays in their session."""
    key = json.dumps(["roll", name, original.fingerprint.sha256, qi, options], sort_keys=True)
    request, inputs = _roll_run(original, qi, options)
    roll, _cached = shared_compute(
        key, lambda: compute_heavy(request, inputs, progress)[0], progress
    )
    return roll


def _roll_run(original: Dataset, qi: Sequence[str], options: dict) -> tuple:
    """The run that builds a voter roll (a task of :mod:`privcore.runs.tasks`, so that it
    is costed, holds a heavy slot and can go to a worker like every computation)."""
    work = partial(
        tasks.roll_task,
        original.frame,
        list(qi),
        options["size"],
        options["seed"],
        options["locale"],
        options["joint"],
    )
    request = TaskRequest(task="roll", params={"qi": list(qi), **options})
    return request, Inputs(original=original, work=work)


def roll_controls(wb: Workbench, original: Dataset, qi: list[str], *, key: str) -> None:
    """Build a synthetic voter roll, or upload a real one and map its columns to the QIs.

    The roll is kept in the session under ``key`` with the data set it belongs to.
    """
    source = st.radio(
        t("at.roll_source"),
        ["synthetic", "upload"],
        horizontal=True,
        format_func=labels(["synthetic", "upload"], lambda s: t(f"at.roll_{s}")),
        key=keep(f"{key}_source"),
    )
    n = original.n_rows
    if source == "synthetic":
        limit = max_roll()
        if n > limit:
            st.error(t("at.too_big", rows=f"{n:,}", limit=f"{limit:,}"))
            return
        upper = min(limit, max(n * 50, n + 10))
        # a table of exactly the limit's rows: its own people only, no slider to move
        size = bounded_slider(
            t("at.roll_size"),
            n,
            upper,
            n * 10,
            help=t("at.roll_size_help"),
            key=keep("at_roll_size", scope=wb.active, valid=lambda v: n <= v <= upper),
            fixed=t("at.roll_size_fixed", size=f"{n:,}", limit=f"{limit:,}"),
        )
        c1, c2, c3 = st.columns(3)
        locales = list(OPTIONS["locale"].allowed() or ())
        locale = c1.selectbox(
            t("at.locale"),
            locales,
            format_func=labels(locales, lambda x: choice_title(f"at.locale_{x}", x)),
            key=keep("at_locale"),
        )
        seed_top = int(min(OPTIONS["seed"].maximum or 2**31 - 1, 2**53 - 1))
        seed = int(c2.number_input(t("an.seed"), 0, seed_top, 0, key=keep("at_seed")))
        joint = c3.toggle(t("at.joint"), help=t("at.joint_help"), key=keep("at_joint"))
        if heavy_button(t("at.build_roll"), key="at_build", primary=False):
            try:
                options = {"size": size, "seed": seed, "locale": locale, "joint": joint}
                if is_bundled(original):
                    with progress_bar(t("at.building")) as bar:
                        roll = shared_roll(wb.active, original, tuple(qi), bar, **options)
                else:
                    request, inputs = _roll_run(original, qi, options)
                    roll = run_heavy(
                        request, inputs, label=t("at.building"), page="attack", record=False
                    ).result
                st.session_state[key] = {
                    "data": wb.active,
                    "roll": roll,
                    "public": is_bundled(original),
                }
            except PrivcoreError as exc:
                show_error(exc)
        return
    upload = st.file_uploader(
        t("at.roll_file"),
        type=["csv", "tsv", "txt", "xlsx", "parquet", "jsonl", "gz", "zip"],
        help=t("at.roll_file_help"),
        key=f"{key}_file",
    )
    if upload is None:
        return
    try:
        frame = load_upload(upload.getvalue(), upload.name).frame
    except PrivcoreError as exc:
        show_error(exc)
        return
    columns = [str(c) for c in frame.columns]
    mapping = {}
    for column in qi:
        default = columns.index(column) if column in columns else 0
        mapping[column] = st.selectbox(
            t("at.map_column", qi=column), columns, index=default, key=f"{key}_map_{column}"
        )
    if st.button(t("at.use_roll"), key=f"{key}_use"):
        mapped = pd.DataFrame({q: frame[c].to_numpy() for q, c in mapping.items()})
        mapped.insert(0, "person_id", np.arange(len(frame)))
        mapped["name"] = (
            frame[columns[0]].astype(str).to_numpy()
            if "name" not in frame
            else (frame["name"].astype(str).to_numpy())
        )
        mapped["record"] = -1  # who in the register is in the data set is unknown
        mapped["in_dataset"] = False
        roll = VoterRoll(
            mapped, tuple(qi), {c: q for q, c in mapping.items()}, 0, "uploaded", False
        )
        st.session_state[key] = {"data": wb.active, "roll": roll, "public": False}
        st.caption(t("at.uploaded_roll_note"))


def prior_controls(values: pd.Series, *, key: str) -> dict | None:
    """An optional prior of the attacker: one value believed n times as likely."""
    if not st.toggle(t("at.use_prior"), help=t("at.prior_help"), key=keep(f"{key}_on")):
        return None
    options = values.dropna().astype(str).value_counts().index.tolist()[:200]
    c1, c2 = st.columns(2)
    value = c1.selectbox(
        t("at.prior_value"), options, key=keep(f"{key}_value", valid=lambda v: v in options)
    )
    weight = c2.number_input(t("at.prior_weight"), 0.01, 100.0, 3.0, 0.5, key=keep(f"{key}_weight"))
    return {value: float(weight)}


def unpaired_linkage(measurement) -> None:
    """The linkage attack's figures that need no pairing of rows: the release's classes
    matched against the roll (prosecutor, journalist and marketer risk, records at risk),
    and why who was re-identified is not shown."""
    st.info(t("at.unpaired"), icon=":material/swap_vert:")
    risk = measurement.to_dict()["risk"]
    cols = st.columns(4)
    cols[0].metric(t("at.fig_prosecutor_max"), fmt(risk.get("prosecutor_max")))
    cols[1].metric(t("at.fig_journalist_max"), fmt(risk.get("journalist_max")))
    cols[2].metric(t("at.fig_marketer"), fmt(risk.get("marketer")))
    cols[3].metric(
        t("pl.at_risk", threshold=fmt(risk.get("threshold"), 2)),
        fmt(risk.get("records_at_risk")),
    )
    st.caption(t("at.unpaired_classes", classes=measurement.to_dict()["classes"]))


def unparsed_warning(report: AttackReport) -> None:
    unparsed = report.summary.get("unparsed_cells") or {}
    if any(unparsed.values()):
        listed = "; ".join(f"{c}: {', '.join(map(str, v[:5]))}" for c, v in unparsed.items() if v)
        st.warning(t("at.unparsed", cells=listed), icon=":material/warning:")


# --------------------------------------------------------------------------- engine tables

TABLE_ATTACKED = "at_table_attacked"  # engine table → its last attack and its parameters
ROLL_ROWS_SHOWN = 50


def table_roll_controls(wb: Workbench, records: int) -> tuple[int, int]:
    """The roll's size in people — from the table's records to 50 times as many, 10
    times by default, as for a table in memory — and the seed it is drawn with."""
    upper = max(records * 50, records + 10)
    size = bounded_slider(
        t("at.roll_size"),
        records,
        upper,
        records * 10,
        help=t("at.roll_size_help"),
        key=keep("at_roll_size", scope=wb.active, valid=lambda v: records <= v <= upper),
    )
    seed_top = int(min(OPTIONS["seed"].maximum or 2**31 - 1, 2**53 - 1))
    seed = int(st.number_input(t("an.seed"), 0, seed_top, 0, key=keep("at_seed")))
    return int(size), seed


def table_page(wb: Workbench) -> None:
    """The Attack page on a table opened in an engine: a release file (by default the
    last one the Anonymize page wrote from it in this session; a file written shuffled
    is not paired by position), its rows paired with the table's by position or by a key
    column, a voter roll of the size and seed chosen — a roll frequency set drawn from
    the table — and Run: linkage and homogeneity before vs after, computed in the engine
    (:func:`ui.large_table.attack`, recorded), shown with this page's views."""
    from ui import large_table
    from ui.workspace import result_header

    key = wb.active
    table = wb.table(key)
    schema = wb.schema(key)
    if schema is None or not schema.quasi_identifiers or not schema.sensitive:
        st.warning(t("an.schema_first"), icon=":material/warning:")
        st.page_link("pages/data_roles.py", label=t("nav.data"), icon=":material/table_view:")
        st.stop()
    qi, sa = list(schema.quasi_identifiers), list(schema.sensitive)
    st.markdown(f"**{t('pl.original')}**: {escape_md(key)}")
    st.caption(t("an.columns_used", qi=", ".join(qi), sa=", ".join(sa)))
    left, right = st.columns(2, gap="large")
    with left:
        release_path, key_column = large_table.release_file_input(table, key, page="at")
    with right:
        roll_size, seed = table_roll_controls(wb, table.rows)
        st.caption(t("at.engine_roll"))
    tolerance = tolerance_input(table.preview, sa)
    values = {
        "qi": qi,
        "sa": sa,
        "key": key_column,
        "roll_size": roll_size,
        "seed": seed,
        "tolerance": tolerance,
    }
    params = {**values, "release_file": str(release_path or "").strip()}
    attacked = st.session_state.setdefault(TABLE_ATTACKED, {})
    outcome = large_table.run_buttons(
        go_label=t("at.run_linkage"),
        go_key="at_run",
        cancel_key="at_cancel",
        cancelled=t("at.cancelled"),
        working=t("at.working"),
        call=lambda bar: large_table.attack(wb, key, schema, values, release_path, progress=bar),
    )
    if outcome is not None:
        name = large_table.file_name(release_path)
        attacked[key] = {"params": params, "name": name, "value": outcome}
    stored = attacked.get(key)
    if stored is None:
        return
    outcome = stored["value"]
    result_header(
        stored,
        None,
        params,
        run_id=outcome.run_id,
        shown=("release_file", "key", "roll_size", "seed"),
    )
    render_table_attack(outcome.result, sa)


def render_table_attack(sim: Simulation, sa: list[str]) -> None:
    """An attack made on an engine (a roll frequency set against the joint frequency
    set): the roll, the figures before vs after, the targets with the people each row
    stands for, and the homogeneous classes."""
    roll = sim.roll
    with st.expander(
        t(
            "at.engine_roll_preview",
            size=f"{roll.size:,}",
            rows=f"{roll.rows:,}",
            embedded=f"{roll.embedded:,}",
        )
    ):
        st.caption(t("at.engine_roll_rows", shown=f"{min(roll.rows, ROLL_ROWS_SHOWN):,}"))
        st.dataframe(roll_rows(roll, ROLL_ROWS_SHOWN), hide_index=True)
    unparsed_warning(sim.linkage["after"])
    headline(sim)
    within_tolerance(sim)
    st.altair_chart(before_after_chart(sim), width="stretch")
    explanations(sim.linkage["after"])
    st.subheader(t("at.victims"))
    victims(sim.linkage["after"], sa)
    st.subheader(t("at.homogeneous"))
    explanations(sim.homogeneity["after"])
    homogeneous_classes(sim.homogeneity["after"])

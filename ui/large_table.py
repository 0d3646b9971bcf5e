"""Tables larger than memory in the app: open one in an engine, profile it, tag roles,
give hierarchies, anonymize, measure and attack it there (SPEC §9; ``privcore.engines``).

A table is opened from a path of this machine (a Parquet file, a glob or folder of
Parquet parts, a CSV/TSV file, or a table of a DuckDB database file) in DuckDB or Spark,
when this installation allows it (:func:`privcore.config.local_tables_allowed`; never on
the hosted demo). The session keeps the engine and its handle on the table
(:class:`ui.state.LargeTable`), never the rows: the first :data:`PREVIEW_ROWS` rows, and
a profile the engine computes — per column its one-column frequency set (the distinct
values and their counts), brought into memory only up to :data:`PROFILE_LIMIT` values.

Role suggestions (:func:`suggest_table_roles`) and suggested hierarchies
(:func:`suggested_hierarchy`) apply the rules of :mod:`privcore.data.roles` and
:mod:`privcore.data.hierarchy_suggestions` to those distinct values. Runs go through
:func:`privcore.runs.run` like any other (recorded in the history): the release is
written by the engine to a file (:func:`privcore.runs.tables.anonymize_table`), and a
release file is measured (:func:`~privcore.runs.tables.measure_tables`), attacked
(:func:`~privcore.runs.tables.attack_tables`) and given its readiness report
(:func:`~privcore.runs.tables.readiness_tables`) against the table there.
"""

from __future__ import annotations

import glob
import re
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from privcore.config import local_tables_allowed
from privcore.core.progress import Progress, Stage
from privcore.data import Hierarchy, Schema
from privcore.data.hierarchy_suggestions import HierarchySuggestion, suggest_hierarchy
from privcore.data.profile import column_type
from privcore.data.roles import RoleSuggestion, _suggest_one
from privcore.engines.base import COUNT
from privcore.engines.text import is_text_file
from privcore.errors import DataFormatError, InfeasibleError, ParameterError, PrivcoreError
from privcore.runs import (
    AnonymizeRequest,
    AttackRequest,
    Inputs,
    MeasureRequest,
    Outcome,
    ReportRequest,
    RiskRequest,
    TaskRequest,
)
from privcore.runs.registry import ALGORITHMS
from privcore.runs.tables import NEEDS_RECORDS
from privcore.words import labels as words
from ui.components import escape_md
from ui.ec_table import MAX_SHADED, MAX_SHOWN, sa_distribution_chart, shaded
from ui.errors import guard, show_error
from ui.heavy import cancel_pressed, heavy_button, new_request, run_heavy
from ui.i18n import current_language, labels, t, t_plain
from ui.progress import progress_bar
from ui.state import ENGINE_TITLES, LargeTable, Workbench
from ui.workspace import algorithm_title, file_stem, guard_run

PREVIEW_ROWS = 200  # rows of the table a session holds (the preview)
PROFILE_LIMIT = 100_000  # distinct values of one column brought into memory, at most
TOP_VALUES_UP_TO = 20  # a column with at most this many distinct values shows its top values
TOP_SHOWN = 5
DATABASE_SUFFIXES = (".duckdb", ".ddb", ".db")
RELEASE_SUFFIXES = (".parquet", ".csv")
RELEASE_FOLDER = Path("data") / "releases"
#: Session keys of the results the pages keep per engine table (ui.anonymize_view,
#: ui.measure_view, ui.attack_view, ui.report_view).
RESULTS = (
    "an_table_made",
    "pl_table_measured",
    "pl_table_offered",
    "at_table_attacked",
    "at_table_offered",
    "rp_table_reported",
    "rp_table_offered",
)
#: How a release file's rows are paired with the table's (Privacy level, Attack, Report).
PAIRINGS = ("position", "key")
#: Algorithms that run on an engine table: those that work on a weighted frequency set.
ENGINE_ALGORITHMS = tuple(a for a in ALGORITHMS if a not in NEEDS_RECORDS)
_MEMORY = re.compile(r"^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)$", re.IGNORECASE)
_ENGINE_MODULES = ("duckdb", "_duckdb", "pyspark", "py4j")


# --------------------------------------------------------------------------- opening


def resolve_source(text: str) -> tuple[str, str]:
    """The path to scan for ``text`` (surrounding quotes and white space removed, ``~``
    expanded) and the table's name: a folder of Parquet parts becomes the glob of its
    parts (named after the folder). A path that matches no file is a clear error."""
    raw = str(text or "").strip().strip("\"'").strip()
    if not raw:
        raise ParameterError("Give the path of a table.", code="data.no_path")
    path = Path(raw).expanduser()
    if path.is_dir():
        parts = sorted(path.glob("*.parquet"))
        if not parts:
            raise DataFormatError(
                f"The folder {path} holds no Parquet parts (*.parquet).",
                code="data.no_parts",
                path=str(path),
            )
        return str(path / "*.parquet"), path.name
    if glob.has_magic(str(path)):
        if not glob.glob(str(path)):
            raise DataFormatError(f"No file matches {path}.", code="data.not_found", path=str(path))
        return str(path), path.parent.name or path.name
    if not path.is_file():
        raise DataFormatError(f"No file matches {path}.", code="data.not_found", path=str(path))
    return str(path), path.name


def make_engine(
    name: str,
    *,
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    master: str | None = None,
) -> Any:
    """A DuckDB engine (``memory_limit`` such as ``4GB``, ``temp_dir`` where it spills)
    or a Spark engine (``master``, ``local[2]`` by default)."""
    if name == "duckdb":
        from privcore.engines.duckdb_engine import DuckDBEngine

        limit = (memory_limit or "").strip() or None
        if limit is not None and not _MEMORY.match(limit):
            raise ParameterError(
                f"'{limit}' is not an amount of memory DuckDB reads: write it like 4GB or 512MB.",
                code="engines.memory_limit",
                value=limit,
            )
        folder = (temp_dir or "").strip() or None
        if folder is not None:
            folder_path = Path(folder).expanduser()
            if folder_path.exists() and not folder_path.is_dir():
                raise ParameterError(
                    f"{folder_path} is a file, not a folder for DuckDB's temporary files.",
                    code="engines.temp_dir",
                    path=str(folder_path),
                )
            folder = str(folder_path)
        return DuckDBEngine(memory_limit=limit, temp_dir=folder)
    if name == "spark":
        from privcore.engines.spark_engine import SparkEngine, spark_available

        why_not = spark_available()
        if why_not is not None:
            raise ParameterError(why_not, code="engines.spark_unavailable")
        return SparkEngine(master=(master or "").strip() or "local[2]")
    raise ParameterError(
        f"Unknown engine {name!r}: choose duckdb or spark.",
        code="engines.unknown",
        option="engine",
        allowed=["duckdb", "spark"],
    )


@contextmanager
def engine_errors() -> Iterator[None]:
    """An engine's own error (DuckDB, Spark) as a :class:`DataFormatError` whose message
    is the engine's first line: the page shows it, the history keeps its code."""
    try:
        yield
    except PrivcoreError:
        raise
    except OSError as exc:
        raise DataFormatError(
            f"The file could not be read or written: {exc.strerror or exc}.",
            code="engines.io",
        ) from exc
    except Exception as exc:
        if type(exc).__module__.split(".")[0] not in _ENGINE_MODULES:
            raise
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataFormatError(f"The engine stopped: {first}", code="engines.failed") from exc


def open_table(
    path: str,
    *,
    table: str | None = None,
    engine: str = "duckdb",
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    master: str | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
) -> LargeTable:
    """Open the table at ``path`` (``table``: of a DuckDB database file) in ``engine``:
    its rows counted, its first :data:`PREVIEW_ROWS` rows and its profile
    (:func:`profile_columns`, at most ``limit`` distinct values of a column in memory;
    default :data:`PROFILE_LIMIT`) computed by the engine, roles suggested from them."""
    limit = PROFILE_LIMIT if limit is None else int(limit)
    stage = Stage(progress)
    source, name = resolve_source(path)
    table = (table or "").strip() or None
    database = Path(source).suffix.lower() in DATABASE_SUFFIXES
    if database and table is None:
        raise ParameterError(
            f"{name} is a DuckDB database file: give the name of its table.",
            code="data.table_name",
            name=name,
        )
    if table is not None and not database:
        raise ParameterError(
            "A table name is read from a DuckDB database file (.duckdb, .ddb, .db) only.",
            code="data.table_not_database",
        )
    if database and engine != "duckdb":
        raise ParameterError(
            "A DuckDB database file is read by the DuckDB engine.", code="data.database_engine"
        )
    if not database and not is_text_file(source) and not source.lower().endswith(".parquet"):
        raise DataFormatError(
            f"{name} is not a table the engines read: give a Parquet file or parts, a "
            "CSV/TSV file, or a DuckDB database file.",
            code="data.engine_format",
            name=name,
        )
    stage(0.0, t_plain("lt.step_scan"))
    with engine_errors():
        worker = make_engine(engine, memory_limit=memory_limit, temp_dir=temp_dir, master=master)
        scanned = worker.scan(source, table=table) if table else worker.scan(source)
        rows = worker.rows(scanned)
        columns = [str(c) for c in worker.columns(scanned)]
        preview = worker.head(scanned, PREVIEW_ROWS)
        profile, distinct = profile_columns(
            worker, scanned, columns, limit=limit, progress=stage.part(0.1, 1.0)
        )
    suggestions = suggest_table_roles(profile, distinct, preview, rows, limit)
    return LargeTable(
        name=table or name,
        source=source,
        engine=worker,
        scanned=scanned,
        rows=rows,
        columns=columns,
        preview=preview,
        profile=profile,
        distinct=distinct,
        suggestions=suggestions,
        profile_limit=limit,
        table=table,
    )


# --------------------------------------------------------------------------- profile


def profile_columns(
    engine: Any,
    scanned: Any,
    columns: list[str],
    *,
    limit: int,
    progress: Progress | None = None,
) -> tuple[pd.DataFrame, dict[str, pd.DataFrame | None]]:
    """One row per column, computed by the engine from the column's one-column
    frequency set (``grouped(…, limit=limit)``): ``distinct`` present values (NA: more
    than ``limit``), ``missing`` cells (NA: not counted, the set was not brought into
    memory), ``missing_share``, ``uniqueness`` = distinct / present cells, ``min`` and
    ``max`` of a numeric column, ``top`` values (with counts) of a column with at most
    :data:`TOP_VALUES_UP_TO` values, and its ``type`` (:func:`privcore.data.profile.column_type`
    of its distinct values). Returns the profile and each column's frequency set (None
    above the limit)."""
    rows, sets = [], {}
    for index, column in enumerate(columns):
        if progress is not None:
            progress(index / max(len(columns), 1), t_plain("lt.step_profile", column=column))
        try:
            counted = engine.grouped(scanned, [column], limit=limit).frame
        except (InfeasibleError, ParameterError) as exc:
            if exc.code not in ("engines.too_many_groups", "engines.reserved_column"):
                raise
            counted = None
        sets[column] = counted
        rows.append(_column_row(column, counted))
    if progress is not None:
        progress(1.0, t_plain("lt.step_done"))
    profile = pd.DataFrame(rows)
    for name in ("distinct", "missing"):
        profile[name] = profile[name].astype("Int64")
    for name in ("missing_share", "uniqueness", "min", "max"):
        profile[name] = profile[name].astype("float64")
    return profile, sets


def _column_row(column: str, counted: pd.DataFrame | None) -> dict[str, Any]:
    if counted is None:
        return {
            "column": column,
            "type": "many",
            "distinct": None,
            "missing": None,
            "missing_share": None,
            "uniqueness": None,
            "min": None,
            "max": None,
            "top": "",
        }
    values = counted[column]
    present = values.notna().to_numpy()
    counts = counted[COUNT].to_numpy(dtype=np.int64)
    missing = int(counts[~present].sum())
    total = int(counts.sum())
    distinct = int(present.sum())
    kept = values[present]
    numeric = pd.api.types.is_numeric_dtype(values.dtype) and distinct > 0
    top = ""
    if 0 < distinct <= TOP_VALUES_UP_TO:
        order = np.argsort(-counts[present], kind="stable")[:TOP_SHOWN]
        top = " · ".join(
            f"{_shown_value(kept.iloc[i])} ({int(counts[present][i]):,})" for i in order
        )
    return {
        "column": column,
        "type": column_type(_integral(kept.reset_index(drop=True))),
        "distinct": distinct,
        "missing": missing,
        "missing_share": missing / total if total else 0.0,
        "uniqueness": distinct / (total - missing) if total > missing else 0.0,
        "min": float(kept.min()) if numeric else None,
        "max": float(kept.max()) if numeric else None,
        "top": top,
    }


def _shown_value(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _integral(values: pd.Series) -> pd.Series:
    """Whole numbers as integers: an engine's frequency set holds every number as a
    float, the loader a column of whole numbers as integers (the role and type rules
    tell the two apart)."""
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.dropna()
        if len(finite) and np.all(np.isfinite(finite)) and np.all(np.mod(finite, 1) == 0):
            return values.astype("Int64")
    return values


def present_values(table: LargeTable, column: str) -> pd.Series | None:
    """The distinct present values of ``column`` (None above the profile's limit)."""
    counted = table.distinct.get(column)
    if counted is None:
        return None
    values = counted[column]
    return _integral(values[values.notna()].reset_index(drop=True)).rename(column)


# --------------------------------------------------------------------------- suggestions


def suggest_table_roles(
    profile: pd.DataFrame,
    distinct: Mapping[str, pd.DataFrame | None],
    preview: pd.DataFrame,
    rows: int,
    limit: int,
) -> list[RoleSuggestion]:
    """One role suggestion per column by the rules of :func:`privcore.data.suggest_roles`
    (value patterns, name, uniqueness, dates), applied to what the engine counted: the
    column's distinct values (value patterns, dates, a single value) and the uniqueness
    ratio distinct / present cells of the whole table. Above ``limit`` distinct values
    the patterns are read in the preview's values and the ratio is its lower bound
    (limit + 1) / rows."""
    suggestions = []
    for record in profile.to_dict("records"):
        column = record["column"]
        counted = distinct.get(column)
        if counted is None:
            values = _integral(preview[column].reset_index(drop=True))
            ratio = min(1.0, (limit + 1) / rows) if rows else 0.0
        else:
            values = _integral(counted[column].dropna().reset_index(drop=True))
            ratio = float(record["uniqueness"])
        suggestions.append(_suggest_one(column, values.rename(column), rows, ratio))
    return suggestions


_SUGGESTED: weakref.WeakKeyDictionary[LargeTable, dict[str, HierarchySuggestion | None]] = (
    weakref.WeakKeyDictionary()
)


def suggested_hierarchy(table: LargeTable, column: str) -> HierarchySuggestion | None:
    """The hierarchy :func:`privcore.data.hierarchy_suggestions.suggest_hierarchy`
    suggests for ``column`` from its distinct values (each counted once), computed once
    per table; None when the column has more distinct values than the profile brought
    into memory, or none at all."""
    known = _SUGGESTED.setdefault(table, {})
    if column not in known:
        values = present_values(table, column)
        suggestion = None
        if values is not None and len(values):
            try:
                suggestion = suggest_hierarchy(values, column)
            except PrivcoreError:
                suggestion = None
        known[column] = suggestion
    return known[column]


def checked_schema(table: LargeTable, schema: Schema) -> None:
    """Raise unless ``schema`` fits the table (:meth:`privcore.data.Schema.validate`):
    every column has a role, and every hierarchy covers the column's distinct values
    (a column above the profile's limit is checked when a run reads it)."""
    parts = {}
    for column in table.columns:
        values = present_values(table, column) if column in schema.hierarchies else None
        parts[column] = pd.Series([], dtype=object) if values is None else values
    frame = pd.concat(parts, axis=1) if parts else pd.DataFrame()
    schema.validate(frame)


def confirm(wb: Workbench, key: str, table: LargeTable, schema: Schema) -> bool:
    """Check and confirm ``schema`` for the table, recorded as a profile run (as for an
    upload, :func:`ui.roles_editor.confirm_checked`)."""
    from ui.roles_editor import confirm_checked

    return confirm_checked(
        wb,
        key,
        schema,
        [s.to_dict() for s in table.suggestions],
        check=lambda: checked_schema(table, schema),
        original=table,
        profile_table=lambda: table.profile,
    )


# --------------------------------------------------------------------------- Data & roles


def open_expander(wb: Workbench) -> None:
    """ "Open a large table", under the uploader: a path, the engine and its settings,
    and the button that opens it (off on the hosted demo, which says why)."""
    with st.expander(t("lt.open_title"), expanded=False):
        if not local_tables_allowed():
            st.info(t("lt.disabled"), icon=":material/lock:")
            return
        from privcore.engines.spark_engine import spark_available

        st.caption(t("lt.open_lead"))
        path = st.text_input(t("lt.path"), key="lt_path", help=t("lt.path_help"))
        table_name = st.text_input(t("lt.table"), key="lt_table", help=t("lt.table_help"))
        spark_missing = spark_available()
        engines = ["duckdb", "spark"]
        if spark_missing is not None:
            st.session_state["lt_engine"] = "duckdb"
        engine = st.radio(
            t("lt.engine"),
            engines,
            horizontal=True,
            format_func=labels(engines, lambda e: ENGINE_TITLES[e]),
            key="lt_engine",
            disabled=spark_missing is not None,
            help=t("lt.engine_help"),
        )
        if spark_missing is not None:
            st.caption(t("lt.spark_missing", reason=spark_missing))
        memory_limit = temp_dir = master = None
        if engine == "duckdb":
            c1, c2 = st.columns(2)
            memory_limit = c1.text_input(
                t("lt.memory_limit"), key="lt_memory", placeholder="4GB", help=t("lt.memory_help")
            )
            temp_dir = c2.text_input(t("lt.temp_dir"), key="lt_temp", help=t("lt.temp_help"))
        else:
            master = st.text_input(
                t("lt.master"), key="lt_master", placeholder="local[2]", help=t("lt.master_help")
            )
        if not heavy_button(t("lt.open"), key="lt_open"):
            return
        try:

            def opening(progress):  # in place: the engine's connection lives in this process
                opened = open_table(
                    path,
                    table=table_name,
                    engine=engine,
                    memory_limit=memory_limit,
                    temp_dir=temp_dir,
                    master=master,
                    progress=progress,
                )
                return opened, {"rows": opened.rows}

            request = TaskRequest(task="open_table", params={"engine": engine})
            opened = run_heavy(
                request, Inputs(work=opening), label=t("lt.opening"), page="data", record=False
            ).result
            wb.add_table(opened)
        except Exception as exc:  # noqa: BLE001 - shown to the user; nothing else changes
            show_error(exc)
            return
    st.rerun()


def render(wb: Workbench, key: str) -> None:
    """The Data & roles page of a table opened in an engine: its facts, removal, and the
    Roles · Profile · Preview · Hierarchies · Schema file tabs."""
    table = wb.table(key)
    st.subheader(escape_md(key))
    st.caption(
        t(
            "lt.facts",
            rows=f"{table.rows:,}",
            columns=table.n_columns,
            engine=table.engine_title,
        )
    )
    st.text(table.source if table.table is None else f"{table.source} · {table.table}")
    if st.button(t("data.remove"), key=f"remove::{key}", help=t("lt.remove_help")):
        wb.remove_table(key)
        for results in RESULTS:  # the runs' results on the page: not for a table opened later
            st.session_state.get(results, {}).pop(key, None)
        st.rerun()
    tab_roles, tab_profile, tab_preview, tab_hier, tab_schema = st.tabs(
        [
            t("data.tab_roles"),
            t("data.tab_profile"),
            t("data.tab_preview"),
            t("data.tab_hierarchies"),
            t("data.tab_schema"),
        ]
    )
    with tab_roles:
        render_roles(wb, key, table)
    with tab_profile:
        render_profile(table)
    with tab_preview:
        st.dataframe(table.preview, hide_index=True)
        st.caption(t("lt.preview_caption", n=len(table.preview), total=f"{table.rows:,}"))
    with tab_hier, guard():
        render_hierarchies(wb, key, table)
    with tab_schema:
        render_schema_file(wb, key, table)


def render_roles(wb: Workbench, key: str, table: LargeTable) -> None:
    from ui.roles_editor import edit_roles

    st.caption(t("lt.roles_from", limit=f"{table.profile_limit:,}", preview=len(table.preview)))
    edit_roles(
        wb,
        key,
        [s.to_dict() for s in table.suggestions],
        lambda schema: confirm(wb, key, table, schema),
    )


def profile_shown(table: LargeTable) -> pd.DataFrame:
    """The profile as shown: counts as text ("more than 100,000" above the limit, "—"
    where not counted), types in words, headings in the page's language."""
    profile = table.profile
    more = t_plain("lt.more_than", n=f"{table.profile_limit:,}")

    def count(value: Any, fallback: str) -> str:
        return fallback if pd.isna(value) else f"{int(value):,}"

    return pd.DataFrame(
        {
            t_plain("profile.column"): profile["column"],
            t_plain("profile.type"): profile["type"].map(
                lambda kind: (
                    t_plain(f"lt.kind.{kind}")
                    if kind == "many"
                    else t_plain(f"profile.kind.{kind}")
                )
            ),
            t_plain("profile.distinct"): [count(v, more) for v in profile["distinct"]],
            t_plain("profile.missing"): [count(v, "—") for v in profile["missing"]],
            t_plain("profile.missing_share"): profile["missing_share"],
            t_plain("profile.uniqueness"): profile["uniqueness"],
            t_plain("lt.min"): profile["min"],
            t_plain("lt.max"): profile["max"],
            t_plain("lt.top"): profile["top"],
        }
    )


def render_profile(table: LargeTable) -> None:
    st.dataframe(
        profile_shown(table),
        hide_index=True,
        column_config={
            t_plain("profile.missing_share"): st.column_config.NumberColumn(format="percent"),
            t_plain("profile.uniqueness"): st.column_config.ProgressColumn(
                min_value=0.0, max_value=1.0, format="percent", help=t("profile.uniqueness_help")
            ),
        },
    )
    many = table.profile.loc[table.profile["distinct"].isna(), "column"].tolist()
    st.caption(t("lt.profile_caption", engine=table.engine_title))
    if many:
        st.caption(t("lt.profile_many", columns=", ".join(many), limit=f"{table.profile_limit:,}"))


def render_hierarchies(wb: Workbench, key: str, table: LargeTable) -> None:
    """Per quasi-identifier: its hierarchy (imported from an ARX CSV file, or the one
    suggested from its distinct values), checked against those values."""
    from ui import hierarchy_editor as editor

    draft = wb.draft(key)
    qis = draft.quasi_identifiers
    if not qis:
        st.info(t("lt.no_qi"), icon=":material/info:")
        return
    without = [c for c in qis if c not in draft.hierarchies]
    suggestions = {c: s for c in without if (s := suggested_hierarchy(table, c)) is not None}
    if suggestions:
        st.markdown(f"**{t('hsug.title')}**")
        st.caption(t("lt.hierarchy_lead"))
        editor.suggestion_table(suggestions, table.preview)
        if st.button(t("hsug.use_all"), type="primary", key=f"lt_use_all::{key}"):
            schema = wb.draft(key)
            for column, suggestion in suggestions.items():
                schema = schema.with_hierarchy(column, suggestion.hierarchy)
            wb.drafts[key] = schema
            st.rerun()
    must_import = [c for c in without if c not in suggestions]
    if must_import:
        st.warning(
            t("lt.must_import", columns=", ".join(must_import), limit=f"{table.profile_limit:,}"),
            icon=":material/warning:",
        )
    column = st.selectbox(t("hierarchy.column"), qis, key=f"lt_hcol::{key}")
    values = present_values(table, column)
    current = draft.hierarchies.get(column)
    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**{t('lt.import_title')}**")
        upload = st.file_uploader(
            t("hierarchy.arx_file"), type=["csv", "txt"], key=f"lt_arx::{key}::{column}"
        )
        if upload is not None and st.button(t("hierarchy.import"), key=f"lt_import::{column}"):
            imported = Hierarchy.read_arx(upload.getvalue(), name=column)
            uncovered = [] if values is None else imported.uncovered_values(values)
            if uncovered:
                st.error(
                    t(
                        "hierarchy.uncovered",
                        n=len(uncovered),
                        values=", ".join(map(str, uncovered[:5])),
                    ),
                    icon=":material/error:",
                )
            else:
                wb.drafts[key] = wb.draft(key).with_hierarchy(column, imported)
                st.rerun()
    with right:
        suggestion = suggestions.get(column)
        shown = current if current is not None else None
        if shown is not None:
            st.markdown(f"**{t('hierarchy.current_title')}**")
        elif suggestion is not None:
            st.markdown(f"**{t('hsug.suggested_title')}**")
            st.caption(
                t(
                    "lt.suggested_caption",
                    kind=editor.kind_text(suggestion),
                    reason=editor.reason_text(suggestion),
                )
            )
            shown = suggestion.hierarchy
        if shown is None:
            st.info(t("lt.import_needed"), icon=":material/info:")
            return
        if values is None:
            st.caption(t("lt.coverage_later", limit=f"{table.profile_limit:,}"))
            st.dataframe(editor.level_headings(shown.to_frame().head(500)), hide_index=True)
        else:
            uncovered = shown.uncovered_values(values)
            if uncovered:
                st.error(
                    t(
                        "hierarchy.uncovered",
                        n=len(uncovered),
                        values=", ".join(map(str, uncovered[:5])),
                    ),
                    icon=":material/error:",
                )
            else:
                st.success(
                    t("hierarchy.covers", height=shown.height), icon=":material/check_circle:"
                )
            st.dataframe(editor.preview_frame(shown, values), hide_index=True)
        if current is not None:
            export, remove = st.columns(2)
            export.download_button(
                t("hierarchy.export"),
                data=lambda: current.to_arx_csv().encode("utf-8"),
                file_name=f"hierarchy_{file_stem(column)}.csv",
                mime="text/csv",
                key=f"lt_exp::{column}",
                on_click="ignore",
            )
            if remove.button(t("hierarchy.remove"), key=f"lt_rm::{column}"):
                wb.drafts[key] = wb.draft(key).with_hierarchy(column, None)
                st.rerun()
        elif st.button(t("hierarchy.use"), type="primary", key=f"lt_use::{column}"):
            wb.drafts[key] = wb.draft(key).with_hierarchy(column, shown)
            st.rerun()


def render_schema_file(wb: Workbench, key: str, table: LargeTable) -> None:
    st.write(t("data.schema_lead"))
    st.download_button(
        t("data.schema_download"),
        data=wb.draft(key).to_json().encode("utf-8"),
        file_name=f"schema_{file_stem(table.name)}.json",
        mime="application/json",
        on_click="ignore",
    )
    schema_file = st.file_uploader(t("data.schema_upload"), type=["json"], key=f"schema::{key}")
    if schema_file is not None and st.button(t("data.schema_apply"), key=f"lt_schema::{key}"):
        with guard():
            from ui.roles_editor import editor_key

            schema = Schema.from_json(schema_file.getvalue())
            if confirm(wb, key, table, schema):
                wb.drafts[key] = schema
                st.session_state.pop(editor_key(key), None)
                st.rerun()


def not_on_engine(wb: Workbench, title: str) -> None:
    """On a page (titled by the key ``title``) that reads the active data set in memory:
    when that is a table opened in an engine, say so — the Privacy level, Attack and
    Report pages give its figures and its report — and stop."""
    if wb.is_table():
        st.info(t("lt.in_memory_only", page=t_plain(title), name=wb.active), icon=":material/info:")
        st.stop()


# --------------------------------------------------------------------------- runs


def default_output(table: LargeTable, algorithm: str) -> str:
    """``data/releases/<table stem>_<algorithm>.parquet``."""
    stem = file_stem(Path(table.name).stem or table.name)
    return str(RELEASE_FOLDER / f"{stem}_{algorithm}.parquet")


def output_path(text: str, table: LargeTable) -> Path:
    """Where the release goes: a .parquet or .csv path (its folder made when missing),
    never the table itself."""
    raw = str(text or "").strip().strip("\"'").strip()
    if not raw:
        raise ParameterError("Give the path of the release file.", code="engines.out_path")
    path = Path(raw).expanduser()
    if path.suffix.lower() not in RELEASE_SUFFIXES:
        raise ParameterError(
            "The release is written as a .parquet or .csv file.",
            code="engines.out_format",
            option="out",
        )
    sources = {Path(p).resolve() for p in glob.glob(table.source)} | {Path(table.source).resolve()}
    if path.resolve() in sources:
        raise ParameterError(
            "The release would overwrite the table it is made from: give another path.",
            code="engines.out_is_input",
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParameterError(
            f"The folder {path.parent} cannot be made: {exc.strerror or exc}.",
            code="engines.out_folder",
        ) from exc
    return path


def anonymize(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    out: str,
    *,
    keep_order: bool = False,
    progress: Progress | None = None,
) -> Outcome:
    """Anonymize the table with the controls' ``values`` and write the release to
    ``out``, through :func:`privcore.runs.run` (recorded, page "anonymize"): the engine
    groups the table, the frequency set is anonymized with its counts as weights, and
    the engine writes and checks the release
    (:func:`privcore.runs.tables.anonymize_table`). The file's rows are shuffled
    (in an order drawn from the seed) unless ``keep_order``: the table's order."""
    from privcore.runs.tables import ReadRecord, anonymize_table, engine_inputs

    table = wb.table(key)
    request = new_request(AnonymizeRequest, values, Inputs(original=table), page="anonymize")
    target = output_path(out, table)

    def call(progress):
        with engine_errors():
            made = anonymize_table(
                table.engine,
                table.scanned,
                schema.restricted(request.qi, request.sa),
                request.constraints(),
                target,
                algorithm=request.algorithm,
                max_suppression=request.max_suppression,
                seed=request.seed,
                name=table.name,
                shuffle=not keep_order,
                progress=progress,
                **request.options(),
            )
        return made, made.dataset

    names = {"engine": table.engine_name, "release_file": target.name, "keep_order": keep_order}
    inputs = engine_inputs(
        call,
        lambda made, _: (made.history_summary(),),
        names=names,
        record=ReadRecord(table.summary(), table.rows),
        schema=schema,
    )
    outcome = run_heavy(request, inputs, label="", page="anonymize", progress=progress)
    table.last_release, table.last_release_shuffled = str(target), not keep_order
    return outcome


def shuffled_here(table: LargeTable, release_path: str) -> bool:
    """Is ``release_path`` the file the Anonymize page last wrote from ``table``, with
    its rows shuffled?"""
    if not table.last_release or not table.last_release_shuffled:
        return False
    given = Path(str(release_path or "").strip().strip("\"'").strip()).expanduser()
    return given.resolve() == Path(table.last_release).resolve()


def refuse_shuffled_by_position(table: LargeTable, release_path: str, key: str | None) -> None:
    """Raise when ``release_path`` is to be paired with the table by position (no
    ``key``) but is the file the Anonymize page last wrote from it shuffled: its row i is
    not the table's row i, and every figure that pairs them would be wrong."""
    if key is None and shuffled_here(table, release_path):
        raise ParameterError(
            "The Anonymize page wrote this file's rows in shuffled order: they cannot be "
            "paired with the table's rows by position. Pair them by a key column, or write "
            "the release again with the table's row order kept.",
            code="measure.shuffled_release",
        )


def release_file_input(table: LargeTable, key: str, *, page: str) -> tuple[str, str | None]:
    """The release file to pair with the table (by default the last one the Anonymize
    page wrote from it in this session, offered once per new file) and how its rows are
    paired: by position, or by a key column. ``page`` prefixes the widgets' keys and the
    session's record of the file offered (``<page>_table_offered``). Returns the path as
    typed and the key column (None: by position)."""
    path_key = f"{page}_release_file::{key}"
    offered = st.session_state.setdefault(f"{page}_table_offered", {})
    if table.last_release and offered.get(key) != table.last_release:
        st.session_state[path_key] = table.last_release  # the newest file written here
        offered[key] = table.last_release
    release_path = st.text_input(t("lt.release_file"), key=path_key, help=t("lt.release_file_help"))
    if table.last_release:
        st.caption(t("lt.release_offered"))
    if shuffled_here(table, release_path):
        st.caption(t("lt.release_shuffled"))
    pairing = st.radio(
        t("ws.pairing"),
        PAIRINGS,
        horizontal=True,
        format_func=labels(PAIRINGS, lambda p: t(f"lt.pairing_{p}")),
        key=f"{page}_table_pairing::{key}",
    )
    key_column = None
    if pairing == "key":
        key_column = st.selectbox(
            t("pl.key"), table.columns, help=t("pl.key_help"), key=f"{page}_table_key::{key}"
        )
    return release_path, key_column


def run_buttons(
    *, go_label: str, go_key: str, cancel_key: str, cancelled: str, working: str, call: Any
) -> Outcome | None:
    """The run button of an engine page and its Cancel button (pressing it stops the
    running work at its next step, recorded as cancelled), with a progress bar:
    ``call(progress)`` when the run button is pressed (its outcome, None after an error
    shown), else None."""
    go_column, cancel_column = st.columns([1, 3])
    go = heavy_button(
        go_label, key=go_key, where=go_column, cancel_where=cancel_column, cancel_key=cancel_key
    )
    cancel = cancel_pressed(cancel_key)
    bar_slot = st.empty()
    if cancel:
        st.warning(cancelled, icon=":material/cancel:")
    if not go:
        return None
    with progress_bar(working, slot=bar_slot) as bar:
        return guard_run(lambda: call(bar))


def file_name(release_path: str) -> str:
    """The name of the file at ``release_path`` as typed (quotes and spaces removed)."""
    return Path(str(release_path).strip().strip("\"'")).name


def _on_release(
    wb: Workbench,
    key: str,
    request_type: type,
    values: Mapping[str, Any],
    release_path: str,
    page: str,
    compute: Any,
    summarize: Any,
    progress: Progress | None,
) -> Outcome:
    """A run of ``page`` on the table and the release file ``release_path``, paired in the
    engine by position or by the key column ``values["key"]`` (a file this session wrote
    shuffled is refused by position), through :func:`privcore.runs.run` (recorded):
    ``compute(table, release, request, release_name, progress)`` returns (result, the
    frequency set read), ``summarize(result, request, inputs)`` the rest of what the
    run returns (:func:`privcore.runs.tables.engine_inputs`)."""
    from privcore.runs.tables import ReadRecord, engine_inputs

    table = wb.table(key)
    source, name = resolve_source(release_path)
    refuse_shuffled_by_position(table, release_path, values.get("key"))
    request = new_request(
        request_type, values, Inputs(original=table, release_name=name), page=page
    )

    def call(progress):
        with engine_errors():
            return compute(table, table.engine.scan(source), request, name, progress)

    inputs = engine_inputs(
        call,
        lambda result, inputs: summarize(result, request, inputs),
        release_name=name,
        names={"engine": table.engine_name},
        record=ReadRecord(table.summary(), table.rows),
    )
    return run_heavy(request, inputs, label="", page=page, progress=progress)


def measure(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    release_path: str,
    *,
    progress: Progress | None = None,
) -> Outcome:
    """Measure the release file ``release_path`` against the table (page
    "privacy_level"; :func:`privcore.runs.tables.measure_tables`; see :func:`_on_release`)."""
    from privcore.runs.tables import measure_tables

    def compute(table, release, request, name, progress):
        return measure_tables(
            table.engine,
            table.scanned,
            release,
            qi=request.qi,
            sa=request.sa,
            models=request.constraints(),
            hierarchies=dict(schema.hierarchies),
            key=request.key,
            name=table.name,
            progress=progress,
            risk_threshold=request.risk_threshold,
            t_distance=request.t_distance,
        )

    return _on_release(
        wb,
        key,
        MeasureRequest,
        values,
        release_path,
        "privacy_level",
        compute,
        lambda measurement, request, inputs: (measurement.history_summary(),),
        progress,
    )


def risk(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    release_path: str,
    *,
    control: Any = None,
    progress: Progress | None = None,
) -> Outcome:
    """Risk beyond class sizes of the release file ``release_path`` against the table,
    paired by position (page "privacy_level"; :func:`privcore.runs.tables.risk_tables`;
    see :func:`_on_release`); ``control``: an uploaded control set, or None."""
    from privcore.runs.tables import risk_tables

    def compute(table, release, request, name, progress):
        return risk_tables(
            table.engine,
            table.scanned,
            release,
            qi=request.qi,
            sa=request.sa,
            hierarchies=dict(schema.hierarchies),
            name=table.name,
            progress=progress,
            sampling_fraction=request.sampling_fraction,
            control=control,
            seed=request.seed,
            gdpr=request.gdpr,
        )

    return _on_release(
        wb,
        key,
        RiskRequest,
        values,
        release_path,
        "privacy_level",
        compute,
        lambda assessment, request, inputs: (assessment.history_summary(),),
        progress,
    )


def attack(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    release_path: str,
    *,
    progress: Progress | None = None,
) -> Outcome:
    """Attack the release file ``release_path`` and the table with a voter roll (page
    "attack"; :func:`privcore.runs.tables.attack_tables`: linkage and homogeneity before
    and after, on their joint frequency set, with a roll frequency set of
    ``values["roll_size"]`` people drawn with ``values["seed"]``; see
    :func:`_on_release`)."""
    from privcore.runs.tables import attack_tables

    def compute(table, release, request, name, progress):
        return attack_tables(
            table.engine,
            table.scanned,
            release,
            qi=request.qi,
            sa=request.sa,
            hierarchies=dict(schema.hierarchies),
            key=request.key,
            name=table.name,
            progress=progress,
            roll_size=request.roll_size,
            seed=request.seed,
            tau=request.tau,
            risk_threshold=request.risk_threshold,
            tolerance=request.tolerance,
        )

    return _on_release(
        wb,
        key,
        AttackRequest,
        values,
        release_path,
        "attack",
        compute,
        lambda simulation, request, inputs: (simulation.to_dict(),),
        progress,
    )


def report(
    wb: Workbench,
    key: str,
    schema: Schema,
    values: Mapping[str, Any],
    release_path: str,
    *,
    progress: Progress | None = None,
) -> Outcome:
    """The readiness report of the release file ``release_path`` against the table with
    the thresholds ``values["thresholds"]`` (page "report";
    :func:`privcore.runs.tables.readiness_tables`; see :func:`_on_release`): recorded as
    its measure and attack runs, then the report run that names them, as a report on
    tables in memory is."""
    from privcore.runs.execute import report_parts
    from privcore.runs.tables import readiness_tables

    def compute(table, release, request, name, progress):
        return readiness_tables(
            table.engine,
            table.scanned,
            release,
            qi=request.qi,
            sa=request.sa,
            thresholds=request.thresholds,
            hierarchies=dict(schema.hierarchies),
            key=request.key,
            roll_size=request.roll_size,
            seed=request.seed,
            progress=progress,
            original_name=table.name,
            release_name=name,
        )

    return _on_release(
        wb,
        key,
        ReportRequest,
        values,
        release_path,
        "report",
        compute,
        lambda made, request, inputs: (
            made.history_summary(),
            report_parts(request, made, inputs.describe()),
        ),
        progress,
    )


def algorithm_note() -> str:
    """Why KACA and condensation are not offered on an engine table."""
    left_out = [a for a in ALGORITHMS if a not in ENGINE_ALGORITHMS]
    return t("lt.needs_records", algorithms=", ".join(algorithm_title(a) for a in left_out))


# --------------------------------------------------------------------------- classes


def render_classes(
    class_table: pd.DataFrame,
    classes: Any,
    frame: pd.DataFrame,
    weights: np.ndarray,
    *,
    key: str,
) -> None:
    """The equivalence-class table of a release of a frequency set (sizes are records),
    with a drill-down that shows a class's rows of the frequency set with their counts
    (labelled so) and its sensitive values' shares counted in records."""
    only_bad = st.toggle(t("ec.only_violating"), key=f"{key}::bad")
    order = st.radio(
        t("ec.sort"),
        ["size_asc", "size_desc", "class"],
        horizontal=True,
        format_func=labels(["size_asc", "size_desc", "class"], lambda o: t(f"ec.sort_{o}")),
        key=f"{key}::order",
    )
    table = class_table
    if only_bad:
        table = table[table["violates"] != ""]
    if order != "class":
        table = table.sort_values(["size", "class"], ascending=[order == "size_asc", True])
    shown = table.head(MAX_SHOWN)
    st.caption(
        t(
            "ec.count",
            shown=f"{len(shown):,}",
            total=f"{len(table):,}",
            bad=f"{int((class_table['violates'] != '').sum()):,}",
        )
    )
    worded = words.class_table(shown, current_language())
    violates = t_plain("ec.col.violates")
    event = st.dataframe(
        shaded(worded, violates) if len(worded) <= MAX_SHADED and not only_bad else worded,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key=f"{key}::table",
        column_config={violates: st.column_config.TextColumn(t("ec.violates"))},
    )
    picked = [i for i in (event.selection.rows if event else []) if i < len(shown)]
    if not picked:
        st.caption(t("ec.click_hint"))
        return
    class_id = int(shown.iloc[picked[0]]["class"])
    members = np.flatnonzero(classes.ids == class_id)
    records = int(weights[members].sum())
    st.markdown(
        f"**{t('lt.class_title', id=class_id, size=f'{records:,}', rows=f'{len(members):,}')}**"
    )
    st.dataframe(counted_rows(frame, weights, members[:1000]), hide_index=True)
    for sa in classes.sensitive:
        st.altair_chart(
            sa_distribution_chart(frame[sa], members, sa, weights=weights), width="stretch"
        )


def counted_rows(frame: pd.DataFrame, weights: np.ndarray, rows: Any = None) -> pd.DataFrame:
    """Rows of a frequency set with the records each stands for, in a last column
    headed in words."""
    picked = frame if rows is None else frame.iloc[rows]
    out = picked.reset_index(drop=True).copy()
    counts = weights if rows is None else weights[rows]
    out[t_plain("lt.count_column")] = np.asarray(counts, dtype=np.int64)
    return out


__all__ = [
    "ENGINE_ALGORITHMS",
    "PROFILE_LIMIT",
    "anonymize",
    "attack",
    "checked_schema",
    "confirm",
    "default_output",
    "measure",
    "not_on_engine",
    "open_expander",
    "open_table",
    "output_path",
    "profile_columns",
    "refuse_shuffled_by_position",
    "release_file_input",
    "render",
    "render_classes",
    "report",
    "resolve_source",
    "suggest_table_roles",
    "suggested_hierarchy",
]

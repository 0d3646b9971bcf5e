"""The History page in words: the run list, a run's parameters and results, the comparison.

A run is recorded with its parameters and results as JSON (:mod:`privcore.history`):
keys such as ``risk_threshold`` or ``l_distinct``, codes such as ``grr`` or
``within_margin``. Nothing of that form reaches the page; every part is worded here.

- The run list: kind, page and status by their labels (``kind.<kind>``,
  ``history.page.<page>`` or the page's navigation title, ``history.status.<status>``).
- A run's parameters and results become rows "what · value" (:func:`describe`). A key has
  a label, the first the catalogue holds of: ``history.field.<parent>.<key>`` (a key whose
  meaning depends on where it sits), ``history.field.<key>``, a figure's or a readiness
  threshold's name (``figure.<key>``, ``report.threshold.<key>``), the label another page
  shows for it (:data:`REUSED`), a parameter's name (``param.<key>``); a key nobody
  labelled is humanized (``risk_threshold`` → "Risk threshold"); a top-level key that
  means something else in one kind of run has that kind's label (:data:`KIND_LABELS`:
  a DP query's ``epsilon`` is its guarantee, an audit's a claim). Nested mappings are
  flattened into labelled paths ("Re-identification risk · Highest record risk"); a
  mapping keyed by columns puts the column in parentheses ("Distinct l (Salary)").
  Values are formatted for people: lists joined with ", ", an interval as "a – b",
  booleans yes/no, None "—", shares as percentages, other numbers to four significant
  digits, codes by their label (an algorithm's or mechanism's title, a verdict, a
  reason). A list of privacy-model reports is one row per model ("k-anonymity: k ≥ 5 —
  achieved k = 9 — passed"); a readiness report's checks, reasons, conditions and notes
  are the report's own sentences (:mod:`privcore.words.catalog`); an error is its message in the
  language of the page; the library's notes (English sentences) are shown as they are,
  one row each under "Notes".
- The comparison (:func:`ui.history.view.compare`): the same rows, one column per run.
- Times are shown in UTC to the second (:func:`privcore.history.display_time`); a run
  that assessed a release names it (:func:`ui.history.view.release_line`): its name, how
  it was made, its fingerprint and the run that made it.

The JSON itself stays one click away: :func:`ui.history.view.run_json` is the download of
a run's parameters and results.
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from privcore.dp.audit import AUDIT_MECHANISMS, DEFAULT_GAUSSIAN_DELTA, SUM_RECORDS
from privcore.runs.registry import ALGORITHMS, MECHANISMS, algorithm_parameters
from privcore.words.catalog import (
    catalogue,
    check_label,
    check_sentence,
    condition_sentence,
    figure,
    format_text,
    has,
    note_sentence,
    percent,
    text,
)
from privcore.words.labels import dataset_name, humanize, model_title, requirement, sentence_text
from ui.history.labels import (
    AUDIT_MEASURES,
    BY_COLUMN,
    BY_COLUMN_OR_FIELD,
    CODE_WORDS,
    CODE_WORDS_UNDER,
    DIGESTS,
    INTERVALS,
    KIND_LABELS,
    KIND_NUMBERS,
    MODEL_LISTS,
    PAGE_TITLES,
    REPORT_ITEMS,
    REUSED,
    SEPARATOR,
    SHARES,
    SHARES_UNDER,
    SKIPPED,
)


def _word(key: str, lang: str, **params: Any) -> str | None:
    """The catalogue's text of ``key``, or None when there is none."""
    return text(key, lang, **params) if has(key) else None


def page_label(page: Any, lang: str) -> str:
    """The page a run came from: the page's title, "command line", or "—"."""
    if page is None or page is pd.NA or (isinstance(page, float) and math.isnan(page)):
        return "—"
    if str(page) == "":
        return "—"
    name = str(page)
    for key in (f"history.page.{name}", PAGE_TITLES.get(name)):
        if key and has(key):
            return text(key, lang)
    return humanize(name)


def kind_label(kind: Any, lang: str) -> str:
    return _word(f"kind.{kind}", lang) or humanize(str(kind))


def status_label(status: Any, lang: str) -> str:
    return _word(f"history.status.{status}", lang) or humanize(str(status))


def _label_keys(key: Any, parent: Any) -> list[str]:
    """Catalogue keys that may label ``key`` under ``parent``, the most specific first."""
    keys = []
    if parent is not None:
        keys += [f"history.field.{parent}.{key}", REUSED.get(f"{parent}.{key}")]
    declared = algorithm_parameters().get(str(key))  # an algorithm's own option
    keys += [
        f"history.field.{key}",
        f"figure.{key}",
        f"report.threshold.{key}",
        REUSED.get(str(key)),
        None if declared is None else declared.label_key,
        f"param.{key}",
    ]
    return [k for k in keys if k]


def field_label(key: Any, parent: Any, lang: str) -> str:
    """The label of ``key`` (under ``parent``): see the module docstring."""
    for candidate in _label_keys(key, parent):
        if has(candidate):
            return text(candidate, lang)
    return humanize(str(key))


def _labelled(key: Any, parent: Any) -> bool:
    return any(has(candidate) for candidate in _label_keys(key, parent))


def code_word(
    field: str, value: str, lang: str, kind: str | None = None, parent: Any = None
) -> str:
    """A code in words: an algorithm's title, a verdict, a reason, a role…"""
    keys = list(CODE_WORDS_UNDER.get((parent, field), CODE_WORDS.get(field, ())))
    if field == "verdict":
        keys = ["report.verdict.{v}"] if kind == "report" else ["ldp.verdict_{v}"]
    normal = str(value).strip().replace(" ", "_")
    for template in [*keys, f"history.value.{field}.{{v}}"]:
        word = _word(template.format(v=normal), lang)
        if word is not None:
            return word
    if field == "algorithm" and value in ALGORITHMS:
        return ALGORITHMS[value].title
    if field in ("mechanism", "sweep") and value in MECHANISMS:
        return MECHANISMS[value].title
    return humanize(str(value))


def _number(value: float | int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if abs(value) < 1e-12:
            return "0"
    return figure(value, 4)


def _is_share(field: str, parent: Any, kind: str | None = None) -> bool:
    if parent is None and (kind, field) in KIND_NUMBERS:
        return False
    if field in SHARES or field.endswith("_share") or (parent, field) in SHARES_UNDER:
        return True
    return field == "tolerance" and parent not in AUDIT_MEASURES


def _neighbours_words(value: str, lang: str) -> str:
    """A DP audit's neighbouring data sets (stored as the library's English) in ``lang``:
    the words of the first audited mechanism with those data sets (the page's rule)."""
    first = next((n for n, e in AUDIT_MECHANISMS.items() if e.neighbours == value), None)
    key = f"dp.neighbours_{first}"
    if first is None or not has(key):
        return value
    return text(
        key, lang, delta=f"{DEFAULT_GAUSSIAN_DELTA:g}", records=", ".join(map(str, SUM_RECORDS))
    )


def value_text(
    field: str, value: Any, lang: str, *, parent: Any = None, kind: str | None = None
) -> str:
    """A recorded value for people (see the module docstring)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return text("words.yes" if value else "words.no", lang)
    if isinstance(value, (int, float)):
        if field.endswith("_run"):
            return f"#{int(value)}"
        if _is_share(field, parent, kind) and not (isinstance(value, float) and math.isnan(value)):
            return percent(value)
        return _number(value)
    if isinstance(value, str):
        if field in DIGESTS:
            return value[:16] + "…" if len(value) > 16 else value
        if field in CODE_WORDS or field == "verdict" or (parent, field) in CODE_WORDS_UNDER:
            return code_word(field, value, lang, kind, parent)
        if field in ("notes", "pl_notes", "note"):  # the library's notes, as stored
            return sentence_text(value, lang)
        if field == "neighbours":
            return _neighbours_words(value, lang)
        return dataset_name(value, lang) if value else value  # a bundled sample in words
    if isinstance(value, Mapping):
        if not value:
            return "—"
        return "; ".join(
            f"{field_label(k, field, lang)}: {value_text(str(k), v, lang, parent=field, kind=kind)}"
            for k, v in value.items()
        )
    if isinstance(value, Sequence):
        if not value:
            return "—"
        if field in INTERVALS and len(value) == 2:
            low, high = (value_text(field, v, lang, parent=parent, kind=kind) for v in value)
            if field == "loss_interval" and value[1] is None:
                high = "∞"  # a DP audit's event never seen on the second data set
            return f"{low} – {high}"
        parts = []
        for item in value:
            if isinstance(item, int) and not isinstance(item, bool):
                parts.append(str(item))  # no thousands separator: the list's is ", "
                continue
            shown = value_text(field, item, lang, parent=parent, kind=kind)
            is_list = isinstance(item, Sequence) and not isinstance(item, str)
            parts.append(f"({shown})" if is_list else shown)
        return ", ".join(parts)
    return str(value)


def _achieved(achieved: Any, lang: str) -> str:
    """``{"k": 9}`` → "k = 9"; ``{"l": {"Salary": 9}}`` → "l = 9 (Salary)"."""
    if not isinstance(achieved, Mapping):
        return value_text("achieved", achieved, lang)
    parts = []
    for name, value in achieved.items():
        if name == "distance":
            continue  # said by the requirement
        if isinstance(value, Mapping):
            each = ", ".join(
                text("history.by_column", lang, label=value_text(name, v, lang), name=sa)
                for sa, v in value.items()
            )
            parts.append(f"{name} = {each}" if each else f"{name} = —")
        else:
            parts.append(f"{name} = {value_text(name, value, lang)}")
    return "; ".join(parts) or "—"


def verdict_line(verdict: Mapping[str, Any], lang: str) -> str:
    """One model report: "k-anonymity: k ≥ 5 — achieved k = 9 — passed"."""
    parameters = verdict.get("parameters")
    return text(
        "history.verdict_line",
        lang,
        model=model_title(parameters, str(verdict.get("model") or "—"), lang),
        requirement=requirement(parameters, str(verdict.get("requirement") or ""), lang),
        achieved=_achieved(verdict.get("achieved"), lang),
        status=text("history.passed" if verdict.get("passed") else "history.failed", lang),
    )


def model_line(model: Mapping[str, Any], lang: str) -> str:
    """A model asked for: "k-anonymity: k ≥ 5"."""
    if "passed" in model:
        return verdict_line(model, lang)
    return text(
        "history.model_line",
        lang,
        model=model_title(model, str(model.get("model") or "—"), lang),
        requirement=requirement(model, "", lang),
    )


@dataclass(frozen=True)
class Line:
    """One row of a run's parameters or results: where it is in the JSON (``path``),
    what it is in words (``label``) and its value in words (``value``)."""

    path: tuple[Any, ...]
    label: str
    value: str


def error_sentence(error: Any, lang: str) -> str | None:
    """A recorded error in words: a ``{"code", "params"}`` by the catalogue's message for
    its code (as :func:`ui.common.i18n.error_text` does; a code without one by its parameters,
    never the code itself), a code alone likewise, a message or an exception's name as
    it was recorded."""
    if not error:
        return None
    if isinstance(error, Mapping):
        code, params = str(error.get("code") or ""), dict(error.get("params") or {})
    elif isinstance(error, str) and has(f"error.{error}"):
        code, params = error, {}
    else:
        return str(error)
    shown = {k: _error_value(k, v, lang) for k, v in params.items()}
    template = _error_template(code, params, lang)
    if template is not None:
        return format_text(template, shown)
    if not shown:  # no wording for this code yet: what it was about, in words
        return text("history.error_plain", lang)
    details = "; ".join(f"{field_label(k, None, lang)}: {v}" for k, v in shown.items())
    return text("history.error_unworded", lang, details=details)


def _error_value(name: str, value: Any, lang: str) -> str:
    """An error's parameter in words; an ``option`` (a parameter's name) by its label."""
    if name == "option" and isinstance(value, str):
        return field_label(value, None, lang)
    return value_text(name, value, lang)


def _error_template(code: str, params: Mapping[str, Any], lang: str) -> str | None:
    """The most specific wording of ``error.<code>`` whose placeholders ``params`` fill."""
    base = f"error.{code}"
    fitting = []
    for key, template in catalogue(lang).items():
        if key != base and not key.startswith(base + "."):
            continue
        needed = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        if needed <= set(params):
            fitting.append((len(needed), key, template))
    return max(fitting)[2] if fitting else None


def _report_item(key: str, item: Mapping[str, Any], lang: str) -> tuple[str, str]:
    """(label, sentence) of a readiness report's check, reason, condition or note."""
    if key == "checks":
        status = text(f"report.status.{item.get('status')}", lang)
        return check_label(item, lang), text(
            "history.check_line", lang, sentence=check_sentence(item, lang), status=status
        )
    if key == "reasons":
        return check_label(item, lang), check_sentence({**item, "status": "fail"}, lang)
    if key == "conditions":
        return "", condition_sentence(item, lang)
    return "", note_sentence(item, lang)


def describe(data: Any, lang: str, kind: str | None = None) -> list[Line]:
    """The rows "what · value" of a run's parameters or results (see the module
    docstring); ``kind`` is the run's kind (a report's verdict is not an audit's)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return [Line((), text("history.col_value", lang), data)]
    if not isinstance(data, Mapping):
        return [] if data is None else [Line((), text("history.col_value", lang), str(data))]
    out: list[Line] = []
    for key, value in data.items():
        special = KIND_LABELS.get((kind, str(key)))
        label = text(special, lang) if special else field_label(key, None, lang)
        _walk(str(key), value, (key,), label, None, lang, kind, out)
    return out


def _walk(
    key: str,
    value: Any,
    path: tuple[Any, ...],
    label: str,
    parent: Any,
    lang: str,
    kind: str | None,
    out: list[Line],
    field: str | None = None,
) -> None:
    field = field or key
    if (str(parent), key) in SKIPPED:
        return
    if key == "error" and parent is None and isinstance(value, Mapping) and "code" in value:
        out.append(Line(path, label, error_sentence(value, lang) or "—"))
        return
    items = value if isinstance(value, list) and value else None
    if items and key == "notes" and all(isinstance(i, str) for i in items):
        # the library's own notes (stored as English sentences), one row each
        for index, item in enumerate(items):
            worded = sentence_text(item, lang)
            out.append(Line((*path, index), f"{label}{SEPARATOR}{index + 1}", worded))
        return
    if items and all(isinstance(i, Mapping) for i in items):
        for index, item in enumerate(items):
            where, numbered = (*path, index), f"{label}{SEPARATOR}{index + 1}"
            if key in MODEL_LISTS and "model" in item:
                out.append(Line(where, numbered, model_line(item, lang)))
            elif key in REPORT_ITEMS and kind == "report":
                name, sentence = _report_item(key, item, lang)
                out.append(Line(where, f"{label}{SEPARATOR}{name}" if name else numbered, sentence))
            else:
                out.append(Line(where, numbered, value_text(key, item, lang, kind=kind)))
        return
    if isinstance(value, Mapping):
        if not value:
            out.append(Line(path, label, "—"))
            return
        for child_key, child in value.items():
            by_column = key in BY_COLUMN or (
                key in BY_COLUMN_OR_FIELD and not _labelled(child_key, key)
            )
            if by_column:
                name = text("report.attribute.all", lang) if child_key == "all" else child_key
                _walk(
                    str(child_key),
                    child,
                    (*path, child_key),
                    text("history.by_column", lang, label=label, name=name),
                    key,
                    lang,
                    kind,
                    out,
                    field=field,
                )
            else:
                # under a column (``field`` the mapping keyed by columns): labelled as
                # fields of that mapping ("inference" → its risk), not of the column
                child_label = f"{label}{SEPARATOR}{field_label(child_key, field, lang)}"
                _walk(str(child_key), child, (*path, child_key), child_label, key, lang, kind, out)
        return
    out.append(Line(path, label, value_text(field, value, lang, parent=parent, kind=kind)))

"""Words for what the library hands over as keys and codes — no Streamlit here.

The library speaks in keys (``c_avg``, ``l_kind``, ``distinct_l``) and English notes
that carry codes (:class:`privcore.core.notes.Note`). A page never shows a key: it asks
this module for the words in its language, from the catalogue in ``privcore/words/locales``:

- :func:`figure_label` — a figure of a measurement (``figure.<key>``);
- :func:`param_label` and :func:`param_value` — a run parameter and its value
  (``param.<name>``, then the report's threshold labels; choices through their own
  catalogue keys), :func:`describe_params` — "k = 5 · l 的形式 = 不同值";
- :func:`model_title`, :func:`requirement` — a privacy model's verdict from its
  parameters (``model.<code>``, ``model.<code>.requirement``);
- :func:`class_column` — the columns of an equivalence-class table;
- :func:`note_text` — a library note by its code (``note.<code>``), else its sentence;
- :func:`humanize` — the last resort for a key nobody named: words, never snake_case.

Results keep codes and parameters and are worded when shown, so a result computed
before a switch of language is shown in the new one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from privcore.data.samples import SAMPLES
from privcore.models import (
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from privcore.words.catalog import catalogue, format_text, text

__all__ = [
    "attack_table",
    "class_column",
    "class_table",
    "dataset_name",
    "describe_params",
    "figure_label",
    "humanize",
    "model_title",
    "note_text",
    "param_label",
    "param_value",
    "requirement",
    "sentence_text",
    "violated_models",
]

#: Parameters whose values are choices with words of their own: name → key prefix.
_CHOICE_KEYS = {
    "algorithm": "alg.",
    "l_kind": "pl.l_kind_",
    "t_distance": "distance.",
    "distance": "distance.",
    "loss_metric": "metric.",
    "summary": "an.summary_",
    "locale": "at.locale_",
    "mechanism": "mechanism.",
    "method": "ldp.method_",
    "methods": "ldp.method_",
    "density": "ldp.density_",
    "alignment": "param.alignment.",
    "pairing": "param.pairing.",
    "audited": "dp.audited_",
    "noise": "dp.noise_",
    "noise_law": "dp.noise_",
    "publish": "history.value.publish.",
    "relation": "dp.relation_",
    "query": "dp.query_",
    "leaver": "dp.diner_",
    "attack": "history.value.attack.",
}
_ABBREVIATIONS = {"qi": "QI", "sa": "SA", "pl": "PL", "ul": "UL", "dr": "DR", "id": "ID"}


def _lookup(key: str, lang: str) -> str | None:
    """The catalogue's string for ``key`` in ``lang`` (English when Chinese lacks it),
    or None when neither has it."""
    return catalogue(lang).get(key) or catalogue("en").get(key)


def humanize(key: str) -> str:
    """A key in words when no catalogue names it: "risk_threshold" → "Risk threshold",
    "qi" → "QI"."""
    words = [w for w in re.split(r"[_\s]+", str(key)) if w]
    if not words:
        return str(key)
    out = [_ABBREVIATIONS.get(w.lower(), w) for w in words]
    first = out[0]
    out[0] = first if first.isupper() or len(first) == 1 else first[:1].upper() + first[1:]
    return " ".join(out)


def figure_label(key: str, lang: str) -> str:
    """The name of a figure (``c_avg`` → "Normalized average class size (C_avg)")."""
    return _lookup(f"figure.{key}", lang) or humanize(key)


def param_label(name: str, lang: str) -> str:
    """The name of a run parameter or readiness threshold."""
    return (
        _lookup(f"param.{name}", lang)
        or _lookup(f"report.threshold.{name}", lang)
        or _lookup(f"figure.{name}", lang)
        or humanize(name)
    )


def param_value(name: str, value: Any, lang: str) -> str:
    """A parameter's value for people: choices in words, lists joined, None as a dash,
    booleans as yes/no, floats without trailing zeros."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return text("words.yes" if value else "words.no", lang)
    if isinstance(value, (list, tuple)):
        return ", ".join(param_value(name, v, lang) for v in value) or "—"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {param_value(name, v, lang)}" for k, v in value.items()) or "—"
    if isinstance(value, float):
        return f"{value:g}"
    prefix = _CHOICE_KEYS.get(name)
    if prefix is not None and isinstance(value, str):
        # a choice is keyed as it is ("add_remove") or, when it is a name, in lower case
        # with underscores ("Zhang San" → dp.diner_zhang_san)
        for choice in dict.fromkeys((value, "_".join(value.lower().split()))):
            worded = _lookup(prefix + choice, lang)
            if worded is not None and "{" not in worded:
                return worded
    return str(value)


def describe_params(
    params: Mapping[str, Any], lang: str, names: tuple[str, ...] | None = None
) -> str:
    """The parameters of a result in words, the ones set, in order: "k = 5 · QI = ZIP,
    Age · form of l = distinct"."""
    shown = []
    for name, value in params.items():
        if names is not None and name not in names:
            continue
        if value is None or value == [] or value == ():
            continue
        shown.append(f"{param_label(name, lang)} = {param_value(name, value, lang)}")
    return " · ".join(shown)


def model_title(parameters: Mapping[str, Any] | None, fallback: str, lang: str) -> str:
    """The name of a privacy model from its parameters (``{"model": "distinct_l", …}``)."""
    code = (parameters or {}).get("model")
    return (_lookup(f"model.{code}", lang) if code else None) or fallback


def requirement(parameters: Mapping[str, Any] | None, fallback: str, lang: str) -> str:
    """What a model requires, in words ("k ≥ 5", "l ≥ 2（不同值）")."""
    params = dict(parameters or {})
    code = params.get("model")
    template = _lookup(f"model.{code}.requirement", lang) if code else None
    if template is None:
        return fallback
    distance = params.get("distance")
    if isinstance(distance, str):
        params["distance"] = _lookup(f"distance.short.{distance}", lang) or distance
    elif isinstance(distance, Mapping):  # resolved per attribute: the distinct ones
        words = {_lookup(f"distance.short.{d}", lang) or str(d) for d in distance.values()}
        params["distance"] = ", ".join(sorted(words))
    for key in ("k", "l", "c", "t"):
        if isinstance(params.get(key), float):
            params[key] = f"{params[key]:g}"
    return format_text(template, params)


#: Per-SA columns of the equivalence-class table: suffix → catalogue key.
_CLASS_SUFFIXES = (
    (" · distinct", "ec.col.distinct"),
    (" · entropy l", "ec.col.entropy_l"),
    (" · top share", "ec.col.top_share"),
)
_T_COLUMN = re.compile(r"^(?P<sa>.+) · t \((?P<distance>[a-z]+)\)$")


def class_column(column: str, lang: str) -> str:
    """The heading of a column of the equivalence-class table
    (:attr:`privcore.models.ModelReport.class_table`): ``class``, ``size``, ``violates``,
    a QI's own name, and per SA "Salary · distinct" → "Salary · 不同值个数"."""
    if column in ("class", "size", "violates", "suppressed"):
        return text(f"ec.col.{column}", lang)
    for suffix, key in _CLASS_SUFFIXES:
        if column.endswith(suffix):
            return f"{column[: -len(suffix)]} · {text(key, lang)}"
    match = _T_COLUMN.match(column)
    if match:
        distance = _lookup(f"distance.short.{match['distance']}", lang) or match["distance"]
        return f"{match['sa']} · " + text("ec.col.t", lang, distance=distance)
    return column


#: A privacy model's English name (``PrivacyModel.name``) → its code.
_MODEL_CODES = {
    KAnonymity.name: "k",
    DistinctLDiversity.name: "distinct_l",
    EntropyLDiversity.name: "entropy_l",
    RecursiveCLDiversity.name: "recursive_cl",
    TCloseness.name: "t",
}


def violated_models(names: str, lang: str) -> str:
    """The ``violates`` cell of a class table ("k-anonymity, t-closeness") in words."""
    if not names:
        return names
    out = []
    for name in str(names).split(", "):
        code = _MODEL_CODES.get(name.split(":")[0])
        worded = _lookup(f"model.{code}", lang) if code else None
        out.append(name.replace(name.split(":")[0], worded, 1) if worded else name)
    return ", ".join(out)


def class_table(table: Any, lang: str) -> Any:
    """An equivalence-class table (:attr:`privcore.models.ModelReport.class_table`) as
    shown: column headings and the names of violated models in ``lang``."""
    shown = table.copy()
    if "violates" in shown.columns:
        column = shown["violates"]
        if hasattr(column, "cat"):
            shown["violates"] = column.cat.rename_categories(
                [violated_models(c, lang) for c in column.cat.categories]
            )
        else:
            shown["violates"] = column.map(lambda v: violated_models(v, lang))
    return shown.rename(columns={c: class_column(str(c), lang) for c in shown.columns})


def dataset_name(name: str | None, lang: str) -> str:
    """A data set's name as stored (a file name, or a bundled sample's English title) in
    ``lang``: a bundled sample's title is worded (``sample.<key>``), a file name kept."""
    if not name:
        return "—"
    for key, sample in SAMPLES.items():
        if name == sample.title:
            return _lookup(f"sample.{key}", lang) or name
    return str(name)


#: Columns of the attack simulator's tables (victims, homogeneous classes) with words.
_ATTACK_COLUMNS = (
    "person_id", "name", "record", "candidate_classes", "candidate_records",
    "matched_record", "correct", "class", "size", "attribute", "value", "count", "share",
)  # fmt: skip
#: Per sensitive attribute: "Salary values" → "Salary · values seen".
_ATTACK_SUFFIXES = (" values", " disclosed", " wrong", " within tolerance")


def attack_table(table: Any, lang: str) -> Any:
    """A table of the attack simulator as shown: headings in ``lang`` (a quasi-identifier
    keeps its name), and "no record" (−1) as an empty cell."""
    shown = table.copy()
    if "matched_record" in shown.columns:
        matched = shown["matched_record"]
        shown["matched_record"] = matched.where(matched >= 0).astype("Int64")
    names = {}
    for column in map(str, shown.columns):
        if column in _ATTACK_COLUMNS:
            names[column] = text(f"at.col.{column}", lang)
            continue
        for suffix in _ATTACK_SUFFIXES:
            if column.endswith(suffix):
                key = "at.col.sa_" + suffix.strip().replace(" ", "_")
                names[column] = f"{column[: -len(suffix)]} · {text(key, lang)}"
                break
    return shown.rename(columns=names)


def note_text(note: Any, lang: str) -> str:
    """A library note in ``lang``: by its code when the catalogue words it
    (``note.<code>``), else the note's own English sentence. The attribute "all" of a
    privacy-level note is every sensitive attribute together."""
    code = getattr(note, "code", None)
    template = _lookup(f"note.{code}", lang) if code else None
    if template is None:
        return str(note)
    params = dict(getattr(note, "params", {}) or {})
    if params.get("attribute") == "all":
        params["attribute"] = text("note.all_attributes", lang)
    return format_text(template, params)


@cache
def _note_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each ``note.<code>``'s English template as a pattern that captures its
    parameters, longest first (a stored note is its English sentence)."""
    out = []
    for key, template in catalogue("en").items():
        if not key.startswith("note."):
            continue
        parts = re.split(r"\{(\w+)\}", template)
        pattern = "".join(
            re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)" for i, part in enumerate(parts)
        )
        out.append((re.compile(f"^{pattern}$", re.DOTALL), key))
    return tuple(sorted(out, key=lambda p: -len(p[0].pattern)))


def sentence_text(sentence: Any, lang: str) -> str:
    """A library note as stored (its English sentence, without its code — in the
    history) in ``lang``: recognized by the English words of a ``note.<code>`` and
    worded again with the parameters it holds; a sentence no note has is kept."""
    if not isinstance(sentence, str):
        return str(sentence)
    if getattr(sentence, "code", None):
        return note_text(sentence, lang)
    if lang == "en":
        return sentence
    for pattern, key in _note_patterns():
        match = pattern.match(sentence)
        if match:
            params = match.groupdict()
            if params.get("attribute") == "all":
                params["attribute"] = text("note.all_attributes", lang)
            return text(key, lang, **params)
    return sentence

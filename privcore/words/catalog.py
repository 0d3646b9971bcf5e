"""The string catalogue, and the words of a readiness report — no Streamlit here.

One JSON catalogue per language in ``privcore/words/locales/`` (``en.json``, ``zh.json``, plus topic
files such as ``learn_en.json`` and ``report_en.json`` merged into them) with the same
keys. :func:`text` formats the string of a key in a language (a key missing in Chinese
falls back to English, a missing key shows itself); :func:`escape_md` makes any text
safe to embed in Markdown. The pages reach these through :mod:`ui.i18n` (which adds the
session's language); the command line and the HTML report use them directly.

A readiness report (:class:`privcore.report.ReadinessReport`) holds codes and
parameters only; :func:`texts_of` words it in one language — the verdict, every reason
with what would fix it, every condition, check and note — so that the page
(:mod:`ui.report_view`), the HTML document (:mod:`privcore.words.report_html`) and the command line
(:func:`report_json`, :func:`report_lines`) say the same thing with the same numbers.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from privcore.errors import ParameterError

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "CheckText",
    "ItemText",
    "ReportTexts",
    "action_label",
    "as_dict",
    "catalogue",
    "escape_md",
    "figure",
    "format_text",
    "report_json",
    "report_lines",
    "text",
    "texts_of",
    "yes_no",
]

LANGUAGES = {"en": "English", "zh": "简体中文"}
DEFAULT_LANGUAGE = "en"
LOCALES = Path(__file__).resolve().parent / "locales"


# --------------------------------------------------------------------------- catalogue


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The strings of one language (cached for the process)."""
    merged: dict[str, str] = {}
    for path in sorted(LOCALES.glob(f"*{lang}.json")):
        if path.name == f"{lang}.json" or path.name.endswith(f"_{lang}.json"):
            merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def format_text(template: str, params: Mapping[str, Any]) -> str:
    """``str.format_map`` that leaves unknown placeholders as they are."""
    try:
        return string.Formatter().vformat(template, (), _Lenient(params))
    except (ValueError, IndexError):
        return template


def text(key: str, lang: str = DEFAULT_LANGUAGE, /, **params: Any) -> str:
    """The string ``key`` in ``lang`` with ``params`` filled in, as plain text (falls
    back to English, then to the key itself)."""
    template = catalogue(lang).get(key) or catalogue(DEFAULT_LANGUAGE).get(key) or key
    return format_text(template, params)


def has(key: str) -> bool:
    return key in catalogue(DEFAULT_LANGUAGE)


_MARKDOWN = re.compile(r"([\\`*_\[\]<>$~@&])")
# The renderer's bare-URL links (remark-gfm) and icons (``:material/x:``, ``:streamlit:``,
# emoji shortcodes) are found in the text *after* its backslash escapes are undone, so a
# backslash cannot stop them: an invisible word joiner splits what they look for.
_JOINER = "\u2060"
_UNLINK = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)", re.IGNORECASE)
_SHORTCODE = re.compile(r"(?<=:)(?=[\w+-]+:|material/)", re.IGNORECASE)
# Streamlit's directives (``:red[…]``, ``:blue-background[…]``, ``:small``, ``:color{…}``):
# a colon before a letter, escaped so that no directive starts there.
_DIRECTIVE = re.compile(r":(?=[A-Za-z])")  # after _MARKDOWN: no escape before it
_BLOCK_MARKER = re.compile(r"^(\s*(?:\d+)?)([-+.)]|#+)(?=\s|$)")


def escape_md(value: Any) -> str:
    """Text safe to embed in Markdown (and Streamlit's directives): it renders as the
    same characters and nothing else — no emphasis, link, image, HTML, code, formula
    (``$``) or strikethrough; bare URLs, ``www.`` and e-mail addresses do not become
    links either (a word joiner, U+2060, follows ``://``'s colon, ``www`` and ``@``), nor
    do ``:red[…]`` and other directives colour anything (``\\:``), nor do ``:material/…:``,
    ``:streamlit:`` or emoji shortcodes become icons (a word joiner after the colon). Line
    breaks become spaces, so a value cannot start a block of its own (a table needs a
    second line), and a leading list or heading marker is escaped."""
    flat = " ".join(str(value).splitlines()) if isinstance(value, str) else str(value)
    flat = _SHORTCODE.sub(_JOINER, _UNLINK.sub(_JOINER, flat))
    flat = _DIRECTIVE.sub(r"\\:", _MARKDOWN.sub(r"\\\1", flat))
    return _BLOCK_MARKER.sub(lambda m: m.group(1) + "\\" + m.group(2), flat)


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ParameterError(
            f"The report language must be one of {', '.join(LANGUAGES)}, not {lang!r}.",
            code="report.bad_language",
            lang=str(lang),
        )
    return lang


# --------------------------------------------------------------------------- numbers

#: At or above this magnitude a figure is written with an exponent (1.23e+15).
EXPONENT_FROM = 1e15


def yes_no(value: Any, lang: str = DEFAULT_LANGUAGE) -> str:
    """A yes/no answer in words ("yes", "是"); "—" for None."""
    if value is None:
        return "—"
    return text("words.yes" if value else "words.no", lang)


def _positional(number: float, digits: int) -> str:
    """``number`` to ``digits`` significant digits, in positional notation (never an
    exponent below :data:`EXPONENT_FROM`), thousands separated, trailing zeros dropped:
    0.0001234 → "0.0001234", 0.74251 → "0.7425", 12345.6 → "12,346"."""
    if not math.isfinite(number):
        return "—" if math.isnan(number) else ("∞" if number > 0 else "−∞")
    if abs(number) >= EXPONENT_FROM:
        return f"{number:.{digits}g}"
    if abs(number) >= 10 ** (digits - 1):
        return f"{number:,.0f}"
    rounded = float(f"{number:.{digits}g}")
    if rounded == 0:
        return "0"
    decimals = max(digits - 1 - math.floor(math.log10(abs(rounded))), 0)
    shown = f"{rounded:,.{decimals}f}"
    return shown.rstrip("0").rstrip(".") if "." in shown else shown


def _whole(value: Any) -> int | None:
    """``value`` as a whole number when it is one (an int, a whole float below
    :data:`EXPONENT_FROM`), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (hasattr(value, "dtype") and value.dtype.kind in "iu"):
        return int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < EXPONENT_FROM:
        return int(value)
    return None


def _counted(value: Any, lang: str) -> str | None:
    """Nothing as "—", a boolean as yes/no in ``lang``, a whole number with thousands
    separators; None for any other figure."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return yes_no(value, lang)
    whole = _whole(value)
    return None if whole is None else f"{whole:,}"


def short(value: Any, lang: str = DEFAULT_LANGUAGE) -> str:
    """A figure in a sentence: whole numbers with thousands separators, others to 3
    significant digits (no exponent below 10¹⁵); booleans as yes/no."""
    said = _counted(value, lang)
    return said if said is not None else _positional(float(value), 3)


def limit(value: Any) -> str:
    """A threshold as it was set, to 6 significant digits (``0.05``, ``5``,
    ``0.333333``, ``0.00001``), never an exponent below 10¹⁵."""
    if value is None:
        return "—"
    number = float(value)
    if number.is_integer() and abs(number) < EXPONENT_FROM:
        return f"{int(number):,}"
    return _positional(number, 6)


def percent(share: Any, digits: int | None = None) -> str:
    """A share as a percentage: ``digits`` decimals, or as few as it needs (5%, 2.5%)."""
    if share is None:
        return "—"
    value = float(share) * 100
    if digits is None:
        digits = 0 if abs(value - round(value)) < 1e-9 else 1
    return f"{value:.{digits}f}%"


def figure(value: Any, digits: int = 4, lang: str = DEFAULT_LANGUAGE) -> str:
    """A figure in a table: whole numbers with thousands separators, others to
    ``digits`` significant digits (no exponent below 10¹⁵), booleans as yes/no in
    ``lang``, nothing as "—"."""
    said = _counted(value, lang)
    if said is not None:
        return said
    if isinstance(value, float) or (hasattr(value, "dtype") and value.dtype.kind == "f"):
        return _positional(float(value), digits)
    return str(value)


# --------------------------------------------------------------------------- report words


@dataclass(frozen=True)
class ItemText:
    """A reason or a condition in words: what was found (``sentence``), what fixes it
    and why (``advice``, reasons only) and the label of a button that tries the fix
    (``button``; None when there is nothing the app can try)."""

    sentence: str
    advice: str | None = None
    button: str | None = None


@dataclass(frozen=True)
class CheckText:
    """One check in words: its ``label`` ("distinct l of Disease"), the ``sentence``
    ("distinct l of Disease = 3 ≥ 2"), its ``requirement`` ("≥ 2") and ``status``."""

    label: str
    sentence: str
    requirement: str
    status: str


@dataclass(frozen=True)
class ReportTexts:
    """Everything a readiness report says, in one language, in the report's order:
    ``reasons[i]`` words ``report.reasons[i]``, and so on."""

    lang: str
    verdict: str
    summary: str
    reasons: list[ItemText]
    conditions: list[ItemText]
    checks: list[CheckText]
    notes: list[str]
    fix: str | None  # the label of one button trying every fix, when no single one does


def as_dict(report: Any) -> Mapping[str, Any]:
    """A report as its ``to_dict()`` (a mapping is taken as one already)."""
    return report.to_dict() if hasattr(report, "to_dict") else report


def names(values: Sequence[Any], lang: str) -> str:
    """Column names, quoted and joined the way the language does it."""
    return text("report.list.separator", lang).join(
        text("report.list.quoted", lang, name=str(v)) for v in values
    )


def _attribute(attribute: Any, lang: str) -> str:
    return text("report.attribute.all", lang) if attribute == "all" else str(attribute)


def check_label(check: Mapping[str, Any], lang: str) -> str:
    """The name of a check in words: k, distinct l of Disease, journalist risk…"""
    return text(f"report.check.{check['check']}", lang, attribute=check.get("attribute") or "")


def check_sentence(check: Mapping[str, Any], lang: str) -> str:
    """``"k = 3 < 5"``: label, value, the comparison as it came out, threshold, and the
    counts behind a share."""
    detail = check.get("detail") or {}
    if detail.get("kind") == "all_suppressed":
        return text("report.check.all_suppressed", lang)
    label = check_label(check, lang)
    if check.get("value") is None:
        return text("report.check.not_measured", lang, check=label)
    at_least = check["comparison"] == ">="
    signs = ("<", "≥") if at_least else (">", "≤")
    sign = signs[0] if check["status"] == "fail" else signs[1]
    sentence = text(
        "report.comparison",
        lang,
        check=label,
        value=short(check["value"]),
        sign=sign,
        threshold=limit(check["threshold"]),
    )
    if detail.get("kind") in ("people", "rows"):
        kind = detail["kind"]
        if kind == "people" and check.get("attribute"):
            kind = "people_of"
        counts = {"count": short(detail.get("count")), "total": short(detail.get("total"))}
        counts["attribute"] = check.get("attribute")
        detail_text = text(f"report.detail.{kind}", lang, **counts)
        if detail.get("method") == "distance":  # judged on distance-based linkage
            low, high = detail.get("interval") or (None, None)
            detail_text = text(
                "report.detail.by_distance",
                lang,
                detail=detail_text,
                low=percent(low) if low is not None else "?",
                high=percent(high) if high is not None else "?",
            )
        sentence = text("report.with_detail", lang, sentence=sentence, detail=detail_text)
    elif detail.get("kind") == "gdpr":
        low, high = detail["ci"]
        detail_text = text(
            "report.detail.gdpr",
            lang,
            confidence=percent(detail.get("confidence", 0.95)),
            low=short(low),
            high=short(high),
            baseline=short(detail.get("baseline")),
        )
        sentence = text("report.with_detail", lang, sentence=sentence, detail=detail_text)
    elif detail.get("kind") == "reconstruction":
        detail_text = _reconstruction_detail(detail, lang)
        sentence = text("report.with_detail", lang, sentence=sentence, detail=detail_text)
    return sentence


def _reconstruction_detail(detail: Mapping[str, Any], lang: str) -> str:
    """The tables the reconstruction read, the share within tolerance and the people
    re-identified through a voter roll."""
    tables = text("report.list.separator", lang).join(
        "×".join(str(c) for c in table) for table in detail.get("tables") or []
    )
    cells = detail.get("release_cells") or 0
    if detail.get("reidentified") is None:
        linked = text("report.detail.reconstruction_not_linked", lang)
    else:
        linked = text(
            "report.detail.reconstruction_reidentified",
            lang,
            count=short(detail["reidentified"]),
            total=short(detail.get("people")),
        )
    out = text(
        "report.detail.reconstruction",
        lang,
        tables=tables,
        cells=text("report.detail.reconstruction_cells", lang, cells=short(cells)) if cells else "",
        within=percent(detail.get("within_tolerance_share") or 0.0),
        reidentified=linked,
    )
    if detail.get("timed_out"):
        out += text("report.detail.reconstruction_timed_out", lang)
    return out


def _requirement(check: Mapping[str, Any]) -> str:
    return f"{'≥' if check['comparison'] == '>=' else '≤'} {limit(check['threshold'])}"


def _action_params(action: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """An action's parameters as they are shown (shares as percentages, algorithms by
    their title)."""
    out: dict[str, Any] = {}
    for name, value in action.items():
        if name == "max_suppression":
            out[name] = percent(value)
        elif name == "algorithm":
            out[name] = text(f"alg.{value}", lang)
        elif name == "columns":
            out[name] = names(value, lang)
        elif name in ("k", "l", "t"):
            out[name] = limit(value)
        else:
            out[name] = value
    return out


def action_label(action: Mapping[str, Any] | None, lang: str = DEFAULT_LANGUAGE) -> str | None:
    """The label of a button that tries ``action`` ("Try k = 10", "Shuffle the rows",
    "Remove 'name'"), or None without an action."""
    if not action:
        return None
    kind = action.get("action")
    shown = _action_params(action, lang)
    if kind == "anonymize":
        changes = [
            text(f"report.change.{name}", lang, **shown)
            for name in ("k", "l", "t", "max_suppression", "algorithm")
            if name in action
        ]
        separator = text("report.list.separator", lang)
        return text("report.try.anonymize", lang, changes=separator.join(changes))
    return text(f"report.try.{kind}", lang, **shown)


#: Failed checks whose advice is worth saying though no anonymize action fixes them
#: (the tables published beside a release are not the release).
_ADVICE_WITHOUT_ACTION = ("reconstructed_share",)


def _reason(reason: Mapping[str, Any], lang: str) -> ItemText:
    check = {**reason, "status": "fail"}
    action = reason.get("action")
    advice = None
    if action or reason["check"] in _ADVICE_WITHOUT_ACTION:
        advice = text(
            f"report.advice.{reason['check']}",
            lang,
            attribute=reason.get("attribute") or "",
            threshold=limit(reason.get("threshold")),
            **_action_params(action or {}, lang),
        )
    return ItemText(check_sentence(check, lang), advice, action_label(action, lang))


def _condition_params(params: Mapping[str, Any], lang: str) -> dict[str, Any]:
    shown = dict(params)
    if "check" in params:
        shown["check"] = check_label(params, lang)
    for name in ("value", "rho", "low", "high"):
        if name in params:
            shown[name] = short(params[name])
    if "confidence" in params:
        shown["confidence"] = percent(params["confidence"])
    if "threshold" in params:
        shown["threshold"] = limit(params["threshold"])
    if "margin" in params:
        shown["margin"] = percent(params["margin"])
    if "share" in params:
        shown["share"] = percent(params["share"], 1)
    for name in ("attributes", "columns"):
        if name in params:
            shown[name] = names(params[name], lang)
    if "key" in params:
        shown["key"] = names([params["key"]], lang)
    if "attribute" in params:
        shown["attribute"] = _attribute(params["attribute"], lang)
    for name in ("rows", "records", "count", "total", "classes", "in_place"):
        if _whole(params.get(name)) is not None:
            shown[name] = short(params[name], lang)
    return shown


def _item_sentence(family: str, code: str, params: Mapping[str, Any], lang: str) -> str:
    """A condition's or a note's sentence (``report.<family>.<code>``; a privacy-level
    note has one sentence per kind of note)."""
    key = f"report.{family}.{code}"
    if code == "pl_note":
        key += f".{params.get('note', 'flagged')}"
    shown = _condition_params(params, lang)
    if code == "rules_changed":
        shown["verdict"] = text(f"report.verdict.{params.get('verdict')}", lang)
    if code == "gdpr_not_measured":
        shown["reason"] = error_words(params, lang)
    return text(key, lang, **shown)


def error_words(params: Mapping[str, Any], lang: str) -> str:
    """The words of the error a note carries (``error`` its code, ``error_params`` its
    parameters), as the pages word that error; its code when it has no words."""
    code = str(params.get("error") or "")
    key = f"error.{code}"
    if not has(key):
        return code
    given = {
        k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v
        for k, v in (params.get("error_params") or {}).items()
    }
    return text(key, lang, **given)


def condition_sentence(condition: Mapping[str, Any], lang: str) -> str:
    return _item_sentence("condition", condition["condition"], condition.get("params") or {}, lang)


def note_sentence(note: Mapping[str, Any], lang: str) -> str:
    return _item_sentence("note", note["note"], note.get("params") or {}, lang)


def texts_of(report: Any, lang: str = DEFAULT_LANGUAGE) -> ReportTexts:
    """Every sentence of ``report`` (a :class:`~privcore.report.ReadinessReport` or its
    ``to_dict()``) in ``lang`` ("en" or "zh"); plain text, to be escaped by whoever
    renders it (Markdown or HTML)."""
    from privcore.report import merge_actions  # loaded with any report

    check_language(lang)
    data = as_dict(report)
    verdict = data["verdict"]
    reasons = list(data.get("reasons") or [])
    fixes = [r["action"] for r in reasons if (r.get("action") or {}).get("action") == "anonymize"]
    fix = merge_actions(fixes)
    return ReportTexts(
        lang=lang,
        verdict=text(f"report.verdict.{verdict}", lang),
        summary=text(f"report.verdict.{verdict}.text", lang),
        reasons=[_reason(r, lang) for r in reasons],
        conditions=[
            ItemText(condition_sentence(c, lang), None, action_label(c.get("action"), lang))
            for c in data.get("conditions") or []
        ],
        checks=[
            CheckText(
                label=check_label(c, lang),
                sentence=check_sentence(c, lang),
                requirement=_requirement(c),
                status=text(f"report.status.{c['status']}", lang),
            )
            for c in data.get("checks") or []
        ],
        notes=[note_sentence(n, lang) for n in data.get("notes") or []],
        fix=None if fix is None or fix in fixes else action_label(fix, lang),
    )


# --------------------------------------------------------------------------- command line


def report_json(report: Any, lang: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """The report's ``to_dict()`` with a ``message`` on every reason, condition, check
    and note (and an ``advice`` on every reason that has one), in ``lang``: the command
    line's ``--json``."""
    words = texts_of(report, lang)
    data = dict(as_dict(report))
    data["reasons"] = [
        {**r, "message": w.sentence, **({"advice": w.advice} if w.advice else {})}
        for r, w in zip(data.get("reasons") or [], words.reasons, strict=True)
    ]
    data["conditions"] = [
        {**c, "message": w.sentence}
        for c, w in zip(data.get("conditions") or [], words.conditions, strict=True)
    ]
    data["checks"] = [
        {**c, "message": w.sentence}
        for c, w in zip(data.get("checks") or [], words.checks, strict=True)
    ]
    data["notes"] = [
        {**n, "message": w} for n, w in zip(data.get("notes") or [], words.notes, strict=True)
    ]
    return data


def report_lines(report: Any, lang: str = DEFAULT_LANGUAGE) -> list[str]:
    """The verdict, reasons (with what would fix them) and conditions as lines for a
    terminal: ``verdict: not ready``, ``  FAIL k = 3 < 5 → …``, ``conditions:``, ``  - …``."""
    words = texts_of(report, lang)
    data = as_dict(report)
    lines = [f"verdict: {data['verdict'].replace('_', ' ')}"]
    for reason in words.reasons:
        advice = f" → {reason.advice}" if reason.advice else ""
        lines.append(f"  FAIL {reason.sentence}{advice}")
    if words.conditions:
        lines.append("conditions:")
        lines += [f"  - {c.sentence}" for c in words.conditions]
    return lines

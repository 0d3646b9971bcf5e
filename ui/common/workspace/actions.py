"""A failing verdict's fix: the anonymize action that would make it pass, the button that
tries it, and the Anonymize page's control values that ask for a request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from privcore.runs import AnonymizeRequest
from privcore.runs.registry import ALGORITHMS
from ui.common.i18n import t, t_plain
from ui.common.state import ShelfRelease, Workbench, set_controls
from ui.common.workspace.names import algorithm_title

REQUESTED = "an_requested"  # a verdict's action asks the Anonymize page for a run


REVIEW = "review"  # REQUESTED's value when the release it makes is to be reviewed
#: The Anonymize page's controls as a request's defaults.
DEFAULTS = AnonymizeRequest()


#: The widget keys of algorithm options that predate the rule ``an_<name>``.
WIDGET_KEYS = {"loss_metric": "an_metric", "summary": "an_summary"}


def widget_key(name: str) -> str:
    """The Anonymize page's widget key of the algorithm option ``name``."""
    return WIDGET_KEYS.get(name, f"an_{name}")


def controls_for(request: Mapping[str, Any]) -> dict[str, Any]:
    """The widget values that ask for ``request`` (an AnonymizeRequest's values): what a
    verdict's action sets before it opens the Anonymize page."""
    values = {**DEFAULTS.to_dict(), **{k: v for k, v in request.items() if v is not None}}
    out: dict[str, Any] = {
        "an_algorithm": values["algorithm"],
        "an_k": int(values["k"]),
        "an_use_l": request.get("l") is not None,
        "an_use_t": request.get("t") is not None,
        "an_sup": round(100.0 * float(values["max_suppression"]), 6),
        "an_seed": int(values["seed"]),
        "an_metric": values["loss_metric"],
        "an_summary": values["summary"],
    }
    for parameter in ALGORITHMS[values["algorithm"]].parameters:
        value = values[parameter.name]
        if parameter.kind in ("int", "float"):
            value = int(value) if parameter.kind == "int" else float(value)
        out[widget_key(parameter.name)] = value
    if request.get("qi"):
        out["an_qi"] = list(request["qi"])
    if request.get("sa"):
        out["an_sa"] = list(request["sa"])
    if request.get("l") is not None:
        out.update(an_l=float(values["l"]), an_l_kind=values["l_kind"], an_c=float(values["c"]))
    if request.get("t") is not None:
        out.update(an_t=float(values["t"]), an_distance=values["t_distance"])
    return out


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

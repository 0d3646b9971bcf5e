"""A privacy model from its plain parameters (:func:`model_from_dict`, the inverse of
:meth:`~privcore.models.PrivacyModel.to_dict`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from privcore.errors import ParameterError
from privcore.models.base import PrivacyModel
from privcore.models.k_anonymity import KAnonymity
from privcore.models.l_diversity import DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity
from privcore.models.t_closeness import TCloseness

_MODELS: dict[str, tuple[type[PrivacyModel], tuple[str, ...]]] = {
    "k": (KAnonymity, ("k",)),
    "distinct_l": (DistinctLDiversity, ("l", "attributes")),
    "entropy_l": (EntropyLDiversity, ("l", "attributes")),
    "recursive_cl": (RecursiveCLDiversity, ("c", "l", "attributes")),
    "t": (TCloseness, ("t", "distance", "attributes")),
}


def model_from_dict(d: Mapping[str, Any]) -> PrivacyModel:
    """Rebuild a model from :meth:`PrivacyModel.to_dict` output (``{"model": "k", "k": 5}``)."""
    if not isinstance(d, Mapping) or d.get("model") not in _MODELS:
        kind = d.get("model") if isinstance(d, Mapping) else d
        raise ParameterError(
            f"Unknown privacy model {kind!r}; expected one of {', '.join(_MODELS)}.",
            code="models.unknown_model",
            model=str(kind),
        )
    cls, fields = _MODELS[d["model"]]
    unknown = sorted(set(d) - {"model", *fields})
    if unknown:
        raise ParameterError(
            f"Unknown parameter(s) {', '.join(unknown)} for privacy model '{d['model']}'.",
            code="models.unknown_parameter",
            parameters=unknown,
        )
    required = [f for f in fields if f not in ("attributes", "distance")]
    ParameterError.unless_present(
        required,
        d,
        f"Privacy model '{d['model']}' needs {{names}}.",
        code="models.missing_parameter",
        missing_param="parameters",
    )
    return cls(**{f: d[f] for f in fields if f in d})

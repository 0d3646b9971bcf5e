"""The application layer: one path from a user's request to a recorded result.

Pages and the command line are two front ends of the same runs. A user action becomes a
frozen request (:mod:`privcore.runs.requests`); :func:`run` executes it on its
:class:`Inputs` and records success, error or cancel in the history with one policy
(:mod:`privcore.runs.execute`). :mod:`privcore.runs.registry` lists everything runnable
with its options, defaults and choices, from which the command line's options and the
pages' widgets are built.
"""

from privcore.runs.accountant import Accountant, cost_of
from privcore.runs.analysis_requests import (
    BackgroundRequest,
    ComplementaryRequest,
    DifferencingRequest,
    OrderingRequest,
    ReconstructionRequest,
    RollRequest,
    SweepRequest,
)
from privcore.runs.execute import (
    Outcome,
    compute,
    error_record,
    make_request,
    run,
)
from privcore.runs.inputs import EngineTable, Inputs, Part
from privcore.runs.registry import ALGORITHMS, ATTACKS, MECHANISMS, MODELS, OPTIONS, Entry, Option
from privcore.runs.requests import (
    AnonymizeRequest,
    AttackRequest,
    AuditRequest,
    DinnerRequest,
    DpAccuracyRequest,
    DpAuditRequest,
    DpQueryRequest,
    DpReleaseRequest,
    MeasureRequest,
    ReplayRequest,
    ReportRequest,
    Request,
    RiskRequest,
    TaskRequest,
    check_value,
    request_from_dict,
)

__all__ = [
    "ALGORITHMS",
    "ATTACKS",
    "MECHANISMS",
    "MODELS",
    "OPTIONS",
    "Accountant",
    "AnonymizeRequest",
    "AttackRequest",
    "AuditRequest",
    "BackgroundRequest",
    "ComplementaryRequest",
    "DifferencingRequest",
    "DinnerRequest",
    "DpAccuracyRequest",
    "DpAuditRequest",
    "DpQueryRequest",
    "DpReleaseRequest",
    "EngineTable",
    "Entry",
    "Inputs",
    "MeasureRequest",
    "Option",
    "OrderingRequest",
    "Outcome",
    "Part",
    "ReconstructionRequest",
    "ReplayRequest",
    "ReportRequest",
    "Request",
    "RiskRequest",
    "RollRequest",
    "SweepRequest",
    "TaskRequest",
    "check_value",
    "compute",
    "cost_of",
    "error_record",
    "make_request",
    "request_from_dict",
    "run",
]

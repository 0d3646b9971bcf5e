"""The Differential privacy page, one module per tab on the active data set
(:class:`~ui.dp.context.Context`): the dinner story and the differencing attack
(:mod:`.dinner`), the query builder and its budget (:mod:`.queries`), accuracy against
ε (:mod:`.accuracy`), the ε that meets a target (:mod:`.plan`, no data read), DP vs
k-anonymity (:mod:`.release`) and the audit of central mechanisms (:mod:`.audit`); their
views are the ``*_view`` modules (SPEC §10)."""

from ui.dp.accuracy import accuracy_tab
from ui.dp.audit import audit_tab
from ui.dp.context import Context
from ui.dp.dinner import dinner_tab
from ui.dp.plan import plan_tab
from ui.dp.queries import queries_tab
from ui.dp.release import release_tab

__all__ = [
    "Context",
    "accuracy_tab",
    "audit_tab",
    "dinner_tab",
    "plan_tab",
    "queries_tab",
    "release_tab",
]

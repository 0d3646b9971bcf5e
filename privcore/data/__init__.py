"""Data sets: loading, column roles, generalization hierarchies, schemas, samples."""

from privcore.data.hierarchy import (
    Hierarchy,
    cut_hierarchy,
    date_hierarchy,
    interval_hierarchy,
    mapping_hierarchy,
    masking_hierarchy,
    rounding_hierarchy,
    value_keys,
)
from privcore.data.loading import (
    MISSING_MARKERS,
    Dataset,
    Fingerprint,
    detect_encoding,
    fingerprint,
    load,
)
from privcore.data.profile import column_type, profile
from privcore.data.roles import ROLES, Role, RoleSuggestion, suggest_roles
from privcore.data.samples import SAMPLES, load_sample
from privcore.data.schema import Schema
from privcore.data.writing import SavedTable, guard_formulas, save, to_csv_bytes

__all__ = [
    "MISSING_MARKERS",
    "ROLES",
    "SAMPLES",
    "Dataset",
    "Fingerprint",
    "Hierarchy",
    "Role",
    "RoleSuggestion",
    "SavedTable",
    "Schema",
    "column_type",
    "cut_hierarchy",
    "date_hierarchy",
    "detect_encoding",
    "fingerprint",
    "guard_formulas",
    "interval_hierarchy",
    "load",
    "load_sample",
    "mapping_hierarchy",
    "masking_hierarchy",
    "profile",
    "rounding_hierarchy",
    "save",
    "suggest_roles",
    "to_csv_bytes",
    "value_keys",
]

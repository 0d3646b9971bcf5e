"""A schema: the role of every column and the hierarchies of the generalizable ones."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from privcore.data.hierarchy import Hierarchy
from privcore.data.roles import ROLES, Role, RoleSuggestion
from privcore.errors import HierarchyError, RoleError

SCHEMA_VERSION = 1


def _columns_of(role: Role) -> property:
    """A schema's columns of ``role``, in column order, read as an attribute."""
    return property(lambda schema: schema.columns_with(role))


@dataclass(frozen=True)
class Schema:
    """Roles per column (in column order) and generalization hierarchies per column.

    Immutable: :meth:`with_role` and :meth:`with_hierarchy` return a new schema.
    JSON round-trip: :meth:`to_json` / :meth:`from_json`.
    """

    roles: Mapping[str, Role]
    hierarchies: Mapping[str, Hierarchy] = field(default_factory=dict)

    def __post_init__(self) -> None:
        roles = {}
        for column, role in dict(self.roles).items():
            RoleError.unless_one_of(
                role,
                ROLES,
                "Unknown role '{role}' for column '{column}'. Allowed: {choices}.",
                code="roles.unknown",
                column=str(column),
                role=str(role),
            )
            roles[str(column)] = Role(role)
        object.__setattr__(self, "roles", roles)
        object.__setattr__(self, "hierarchies", dict(self.hierarchies))

    # --- views -------------------------------------------------------------------
    def columns_with(self, role: Role) -> list[str]:
        return [c for c, r in self.roles.items() if r is role]

    quasi_identifiers = _columns_of(Role.QUASI_IDENTIFIER)
    sensitive = _columns_of(Role.SENSITIVE)
    identifiers = _columns_of(Role.IDENTIFIER)
    insensitive = _columns_of(Role.INSENSITIVE)

    # --- changes -----------------------------------------------------------------
    def with_role(self, column: str, role: Role | str) -> Schema:
        return replace(self, roles={**self.roles, column: Role(role)})

    def restricted(
        self, qi: Iterable[str] | None = None, sa: Iterable[str] | None = None
    ) -> Schema:
        """This schema for a run that uses only the quasi-identifiers ``qi`` and the
        sensitive attributes ``sa`` (all of them when ``None``): a QI or SA left out is
        insensitive for the run (released as it is) and loses its hierarchy; every other
        role and hierarchy is unchanged. An empty choice leaves no QI (or SA), which the
        algorithms refuse with ``roles.no_qi`` / ``roles.no_sa``."""
        keep_qi = set(self.quasi_identifiers if qi is None else qi)
        keep_sa = set(self.sensitive if sa is None else sa)
        left_out = {c for c in self.quasi_identifiers if c not in keep_qi} | {
            c for c in self.sensitive if c not in keep_sa
        }
        if not left_out:
            return self
        return Schema(
            {c: Role.INSENSITIVE if c in left_out else r for c, r in self.roles.items()},
            {c: h for c, h in self.hierarchies.items() if c not in left_out},
        )

    def with_hierarchy(self, column: str, hierarchy: Hierarchy | None) -> Schema:
        hierarchies = dict(self.hierarchies)
        if hierarchy is None:
            hierarchies.pop(column, None)
        else:
            hierarchies[column] = hierarchy
        return replace(self, hierarchies=hierarchies)

    @classmethod
    def from_suggestions(cls, suggestions: Iterable[RoleSuggestion]) -> Schema:
        return cls({s.column: s.role for s in suggestions})

    # --- checks ------------------------------------------------------------------
    def validate(self, frame: pd.DataFrame) -> None:
        """Raise RoleError/HierarchyError unless the schema fits ``frame`` exactly.

        Every column of the table has a role, every role names a column of the table,
        every hierarchy belongs to a column of the table and covers all its values.
        """
        columns = [str(c) for c in frame.columns]
        RoleError.unless_present(
            self.roles,
            columns,
            "The schema names columns the table does not have: {names}.",
            code="roles.unknown_columns",
            first=5,
        )
        RoleError.unless_present(
            columns,
            self.roles,
            "These columns have no role yet: {names}.",
            code="roles.untagged",
            first=5,
        )
        for column, hierarchy in self.hierarchies.items():
            if column not in columns:
                raise HierarchyError(
                    f"There is a hierarchy for '{column}', which the table does not have.",
                    code="hierarchy.unknown_column",
                    column=column,
                )
            missing = hierarchy.uncovered_values(frame[column])
            if missing:
                shown = ", ".join(map(str, missing[:5]))
                raise HierarchyError(
                    f"The hierarchy of '{column}' does not cover {len(missing)} value(s) "
                    f"of the table: {shown}.",
                    code="hierarchy.uncovered",
                    column=column,
                    count=len(missing),
                    values=missing[:5],
                )

    # --- JSON --------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "version": SCHEMA_VERSION,
            "roles": {c: r.value for c, r in self.roles.items()},
            "hierarchies": {c: h.to_dict() for c, h in self.hierarchies.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Schema:
        if not isinstance(data, Mapping) or "roles" not in data:
            raise RoleError(
                "This is not a schema file: it has no 'roles'.", code="roles.bad_schema_file"
            )
        if not isinstance(data["roles"], Mapping):
            raise RoleError("'roles' must map column names to roles.", code="roles.bad_schema_file")
        hierarchies = {
            str(c): Hierarchy.from_dict(h) for c, h in dict(data.get("hierarchies") or {}).items()
        }
        return cls(dict(data["roles"]), hierarchies)

    @classmethod
    def from_json(cls, text: str | bytes) -> Schema:
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # deep nesting too
            raise RoleError(
                "The schema file is not valid JSON.", code="roles.bad_schema_file"
            ) from exc
        return cls.from_dict(data)

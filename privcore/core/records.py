"""The ``to_dict()`` of a result whose summary is its fields (:class:`PlainFields`)."""

from __future__ import annotations

from typing import Any, ClassVar

from privcore.core.jsonsafe import plain_fields

__all__ = ["PlainFields"]


class PlainFields:
    """Mixin for a dataclass whose summary is its fields: ``to_dict()`` gives them by
    name, in their order, as plain JSON types (:func:`~privcore.core.jsonsafe.plain_fields`),
    without the fields named in ``summary_leaves_out`` (one value per record, say)."""

    summary_leaves_out: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        return plain_fields(self, leave_out=self.summary_leaves_out)

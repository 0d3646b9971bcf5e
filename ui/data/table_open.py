"""What the Data & roles page asks of a table it opens in an engine (SPEC §9;
:func:`privcore.engines.opening.open_table`).

A session keeps the table's preview and profile in memory, and of each column's
frequency set at most :data:`PROFILE_LIMIT` distinct values: the page passes it with
every table it opens, so a server can lower what one session holds.
"""

from __future__ import annotations

from privcore.engines import opening

PROFILE_LIMIT = opening.PROFILE_LIMIT  # distinct values of one column a session holds, at most

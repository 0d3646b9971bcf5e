"""The eight lessons of the Learn page, one module each (two for the lessons on
l-diversity and t-closeness).

Every lesson runs the real privcore functions on a small bundled table (the 9-patient
table, a table built here from it, the ten diners of the differencing attack, or the
census block of seven people of the reconstruction lesson) and ends with a small exercise
whose answer is computed from the lesson's data too, so the page can never disagree with
the rest of the workbench. Strings come from
``privcore/words/locales/learn_{lang}.json``; data values are shown in tables or escaped.
"""

from __future__ import annotations

from collections.abc import Callable

from ui.learn.closeness import lesson_t_closeness, tiny_table
from ui.learn.common import exercise
from ui.learn.differencing import largest_ratio, lesson_differencing, output_probabilities
from ui.learn.diversity import diverse_release, lesson_l_diversity
from ui.learn.k_anonymity import judge_node, lesson_k_anonymity, satisfying_nodes
from ui.learn.linkage import lesson_linkage
from ui.learn.local_dp import lesson_local_dp
from ui.learn.measuring import lesson_measuring
from ui.learn.reconstruction import age_combinations, lesson_reconstruction

LESSONS: dict[int, Callable[[], None]] = {
    1: lesson_linkage,
    2: lesson_k_anonymity,
    3: lesson_l_diversity,
    4: lesson_t_closeness,
    5: lesson_local_dp,
    6: lesson_measuring,
    7: lesson_differencing,
    8: lesson_reconstruction,
}

__all__ = [
    "LESSONS",
    "age_combinations",
    "diverse_release",
    "exercise",
    "judge_node",
    "largest_ratio",
    "output_probabilities",
    "satisfying_nodes",
    "tiny_table",
]

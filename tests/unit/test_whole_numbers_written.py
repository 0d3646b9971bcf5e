"""A column of whole numbers with a missing cell is stored as floats by pandas; it is
written as it was read (510630, not 510630.0), in every file the product writes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcore.data import load
from privcore.data.writing import csv_text, to_csv_bytes


def test_whole_floats_with_gaps_are_written_as_whole_numbers():
    frame = pd.DataFrame(
        {
            "zip": [510630.0, np.nan, 100080.0],  # codes with a gap
            "age": [42.0, 37.0, np.nan],
            "mean": [1.5, 2.0, np.nan],  # a fraction: left as it is
            "starred": [510630.0, "*", np.nan],  # a numeric column with a suppressed cell
            "beyond": [2.0**60, np.nan, 1.0],  # not every integer is a float up there
        }
    )
    text, _ = csv_text(frame)
    assert text.splitlines() == [
        "zip,age,mean,starred,beyond",
        "510630,42,1.5,510630,1.152921504606847e+18",
        ",37,2.0,*,",
        "100080,,,,1.0",
    ]
    assert frame["zip"].dtype == np.float64 and frame["starred"][0] == 510630.0  # untouched


def test_a_zip_column_with_gaps_reads_back_the_same(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("zip,age\n510630,42\n,37\n100080,\n", encoding="utf-8")
    table = load(path).frame
    again = tmp_path / "again.csv"
    again.write_bytes(to_csv_bytes(table))
    assert again.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")

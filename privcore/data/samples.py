"""Bundled sample data sets with their roles and hierarchies.

- ``adult``: UCI Adult (30,162 rows, 9 columns) as shipped by ARX, with ARX's
  generalization hierarchies; roles as in ARX's example (8 QIs, occupation sensitive).
- ``hospital``: the 9-patient table of SPEC §2 (Li, Li & Venkatasubramanian 2007).
- ``hospital_release``: that table as released in the worked example (ZIP masked,
  age as <=40 / >=40), the second half of the PL / DR / UL example of SPEC §3.
"""

from __future__ import annotations

from dataclasses import dataclass

from privcore.config import assets_dir
from privcore.data.hierarchy import Hierarchy
from privcore.data.loading import Dataset, load
from privcore.data.roles import Role
from privcore.data.schema import Schema
from privcore.errors import DataFormatError

#: Rows a bundled sample may have: it is read whatever ``PRIVCORE_MAX_ROWS`` says (the
#: largest ships 30,162 rows).
SHIPPED_MAX_ROWS = 1_000_000

Q, S = Role.QUASI_IDENTIFIER, Role.SENSITIVE


@dataclass(frozen=True)
class Sample:
    """A bundled data set: where its files are and which roles it comes with."""

    key: str
    title: str
    folder: str
    table: str
    roles: dict[str, Role]
    hierarchy_prefix: str
    is_release: bool = False

    def load(self) -> tuple[Dataset, Schema]:
        folder = assets_dir() / self.folder
        path = folder / self.table
        if not path.is_file():
            raise DataFormatError(
                f"The bundled data set '{self.key}' is missing ({path}).",
                code="data.sample_missing",
                sample=self.key,
            )
        # a shipped table, not an upload: the installation's row limit (which a demo may
        # set below a sample's size) is for visitors' files
        dataset = load(path, max_rows=SHIPPED_MAX_ROWS)
        dataset = Dataset(
            dataset.frame,
            self.title,
            dataset.source_format,
            dataset.encoding,
            dataset.delimiter,
            dataset.notes,
        )
        hierarchies: dict[str, Hierarchy] = {}
        for column in dataset.frame.columns:
            file = folder / f"{self.hierarchy_prefix}{column}.csv"
            if file.is_file():
                hierarchies[str(column)] = Hierarchy.read_arx(file, name=str(column))
        return dataset, Schema(self.roles, hierarchies)


SAMPLES: dict[str, Sample] = {
    "adult": Sample(
        "adult",
        "Adult (UCI census, 30,162 rows)",
        "adult",
        "adult.csv",
        {
            "sex": Q,
            "age": Q,
            "race": Q,
            "marital-status": Q,
            "education": Q,
            "native-country": Q,
            "workclass": Q,
            "occupation": S,
            "salary-class": Q,
        },
        "adult_hierarchy_",
    ),
    "hospital": Sample(
        "hospital",
        "Hospital (9 patients, the textbook example)",
        "hospital",
        "hospital.csv",
        {"ZIP": Q, "Age": Q, "Salary": S, "Disease": S},
        "hospital_hierarchy_",
    ),
    "hospital_release": Sample(
        "hospital_release",
        "Hospital release (worked example)",
        "hospital",
        "hospital_release.csv",
        {"ZIP": Q, "Age": Q, "Salary": S, "Disease": S},
        "hospital_release_hierarchy_",
        is_release=True,
    ),
}


def load_sample(key: str) -> tuple[Dataset, Schema]:
    """Load a bundled data set and its schema by key (see :data:`SAMPLES`)."""
    try:
        sample = SAMPLES[key]
    except KeyError as exc:
        known = ", ".join(SAMPLES)
        raise DataFormatError(
            f"There is no bundled data set '{key}'. Known: {known}.",
            code="data.sample_unknown",
            sample=key,
        ) from exc
    return sample.load()

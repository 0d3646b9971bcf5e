"""Role suggestions: quality on Adult and on a Chinese-header GBK file, and each rule."""

from __future__ import annotations

import pandas as pd

from privcore.data import Role, load, profile, suggest_roles

Q, S, ID, N = Role.QUASI_IDENTIFIER, Role.SENSITIVE, Role.IDENTIFIER, Role.INSENSITIVE


def roles_of(frame: pd.DataFrame) -> dict[str, Role]:
    return {s.column: s.role for s in suggest_roles(frame)}


def test_adult_suggestions_match_the_usual_setup(adult_path):
    frame = load(adult_path).frame
    roles = roles_of(frame)
    qis = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
    assert {c: roles[c] for c in qis} == dict.fromkeys(qis, Q)
    assert roles["occupation"] is S
    assert roles["salary-class"] is S
    # every suggestion carries a reason and a confidence
    for s in suggest_roles(frame):
        assert s.reason and s.confidence in ("high", "medium", "low")


def gbk_patients() -> bytes:
    lines = ["姓名,身份证号,性别,年龄,邮编,疾病,月薪,手机,备注,科室"]
    for i in range(40):
        lines.append(
            f"病人{i},11010119900101{i:03d}X,{'男女'[i % 2]},{20 + i % 30},1000{i % 9},"
            f"{['流感', '胃炎', '肺炎'][i % 3]},{5000 + i * 10},1380013{i:04d},无,"
            f"{['内科', '外科', '儿科'][i % 3]}"
        )
    return ("\n".join(lines) + "\n").encode("gbk")


def test_chinese_gbk_file_suggestions():
    ds = load(gbk_patients(), filename="病人.csv")
    assert ds.encoding == "gb18030"
    roles = roles_of(ds.frame)
    assert roles == {
        "姓名": ID,
        "身份证号": ID,
        "性别": Q,
        "年龄": Q,
        "邮编": Q,
        "疾病": S,
        "月薪": S,
        "手机": ID,
        "备注": N,
        "科室": Q,
    }
    by_column = {s.column: s for s in suggest_roles(ds.frame)}
    assert by_column["身份证号"].rule == "value_pattern"
    assert by_column["备注"].rule == "constant"
    # no rule matched "科室" (department): it is a QI, but flagged for review
    assert by_column["科室"].rule == "default" and by_column["科室"].confidence == "low"


def test_value_patterns_beat_names():
    frame = pd.DataFrame(
        {
            "contact": [f"user{i}@example.org" for i in range(20)],
            "mobile_no": [f"+1 765 555 {1000 + i}" for i in range(20)],
            "ssn": [f"123-45-{6000 + i}" for i in range(20)],
        }
    )
    by_column = {s.column: s for s in suggest_roles(frame)}
    assert by_column["contact"].role is ID and by_column["contact"].rule == "value_pattern"
    assert by_column["ssn"].details["pattern"] == "social security numbers"
    assert by_column["mobile_no"].role is ID


def test_uniqueness_rule_and_its_limits():
    n = 50
    frame = pd.DataFrame(
        {
            "ticket": [f"T{i:05d}" for i in range(n)],  # unique text → identifier
            "score": [i + 0.5 for i in range(n)],  # unique float measurement → not by uniqueness
            "colour": ["red", "blue"] * (n // 2),
        }
    )
    by_column = {s.column: s for s in suggest_roles(frame)}
    assert by_column["ticket"].role is ID and by_column["ticket"].rule == "unique"
    assert by_column["ticket"].details["unique_ratio"] == 1.0
    assert by_column["score"].rule == "default"
    assert by_column["colour"].role is Q and by_column["colour"].confidence == "low"


def test_unique_column_with_qi_name_stays_qi_with_a_note():
    frame = pd.DataFrame({"birth_date": [f"1990-01-{d:02d}" for d in range(1, 21)]})
    [s] = suggest_roles(frame)
    assert s.role is Q and "unique" in s.reason


def test_date_values_suggest_qi():
    frame = pd.DataFrame({"visit": ["2020-01-03", "2020-02-04", "2021-03-05"] * 3})
    [s] = suggest_roles(frame)
    assert (s.role, s.rule) == (Q, "dates")


def test_names_with_separators_and_words():
    frame = pd.DataFrame(
        {
            "Patient_ID": range(3),
            "zipCode": [1, 2, 1],
            "Annual Income": [1, 2, 3],
            "patientName": list("abc"),
        }
    )
    roles = roles_of(frame)
    assert roles["Patient_ID"] is ID
    assert roles["Annual Income"] is S
    assert roles["zipCode"] is Q
    assert roles["patientName"] is ID


def test_profile_columns(adult_path):
    table = profile(load(adult_path).frame)
    row = table.set_index("column").loc["age"]
    assert row["type"] == "integer"
    assert row["distinct"] == 72
    assert row["missing"] == 0
    assert row["uniqueness"] == 72 / 30162
    sex = table.set_index("column").loc["sex"]
    assert sex["examples"].startswith("Male")


def test_profile_missing_and_types():
    frame = pd.DataFrame({"a": [1.5, None, 2.0], "b": ["x", None, None], "c": [None, None, None]})
    table = profile(frame).set_index("column")
    assert table.loc["a", "type"] == "decimal"
    assert table.loc["b", "missing"] == 2
    assert table.loc["b", "missing_share"] == 2 / 3
    assert table.loc["c", "type"] == "empty"


def test_suggestion_summary_names_the_role_as_plain_text():
    """The summary of a suggestion is its fields as JSON types: the role as its value
    (a StrEnum is a str, but the summary holds the plain string), details copied."""
    from privcore.core.jsonsafe import plain
    from privcore.data.roles import RoleSuggestion

    summary = RoleSuggestion("zip", Q, "name_pattern", "r", "high", {"n": (1, 2)}).to_dict()
    assert list(summary) == ["column", "role", "rule", "reason", "confidence", "details"]
    assert type(summary["role"]) is str and summary["role"] == "quasi_identifier"
    assert summary["details"] == {"n": [1, 2]}
    assert type(plain({"r": S})["r"]) is str

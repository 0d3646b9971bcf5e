"""privcore.words.labels: every key and code the library hands over gets words in both languages."""

from __future__ import annotations

import pandas as pd

from privcore.core.notes import Note
from privcore.data import load_sample
from privcore.words.catalog import catalogue
from privcore.words.labels import (
    attack_table,
    class_column,
    class_table,
    dataset_name,
    describe_params,
    figure_label,
    humanize,
    model_title,
    note_text,
    param_label,
    param_value,
    requirement,
)


def test_a_key_nobody_named_becomes_words():
    assert humanize("risk_threshold") == "Risk threshold"
    assert humanize("qi") == "QI"
    assert humanize("max_pl") == "Max PL"


def test_figures_and_parameters_have_labels_in_both_languages():
    assert figure_label("c_avg", "en") == "Normalized average class size (C_avg)"
    assert figure_label("c_avg", "zh") == "归一化平均等价类大小（C_avg）"
    assert param_label("l_kind", "zh") == "l-多样性的形式"
    assert param_label("min_k", "en") == "Minimum k"  # a readiness threshold
    assert param_value("l_kind", "distinct", "zh") == "可区分"
    assert (
        param_value("methods", ["ab", "lb"], "en")
        == "AB (white-box estimate), certified lower bound"
    )
    assert param_value("k", None, "en") == "—" and param_value("x", True, "zh") == "是"
    described = describe_params({"qi": ["ZIP", "Age"], "k": 5, "l": None}, "zh")
    assert described == "准标识符 = ZIP, Age · k = 5"


def test_models_are_named_from_their_parameters():
    k = {"model": "k", "k": 5}
    assert model_title(k, "k-anonymity", "zh") == "k-匿名"
    assert requirement(k, "k ≥ 5", "zh") == "k ≥ 5"
    distinct = {"model": "distinct_l", "l": 2, "attributes": None}
    assert requirement(distinct, "l ≥ 2 (distinct)", "zh") == "l ≥ 2（可区分）"
    t = {"model": "t", "t": 0.2, "distance": {"Salary": "ordered", "Disease": "equal"}}
    assert requirement(t, "", "en") == "t ≤ 0.2 (equal, ordered)"
    assert model_title({"model": "unknown"}, "fallback", "zh") == "fallback"


def test_class_table_headings_and_violated_models():
    assert class_column("Salary · distinct", "zh") == "Salary · 不同取值个数"
    assert class_column("Salary · t (ordered)", "zh") == "Salary · t（有序距离）"
    assert class_column("ZIP", "zh") == "ZIP"
    table = pd.DataFrame(
        {"class": [0, 1], "size": [3, 2], "violates": pd.Categorical(["", "k-anonymity"])}
    )
    shown = class_table(table, "zh")
    assert list(shown.columns) == ["等价类", "大小", "违反的模型"]
    assert list(shown["违反的模型"]) == ["", "k-匿名"]


def test_attack_tables_have_headings_and_no_minus_one():
    table = pd.DataFrame(
        {"name": ["Ann"], "ZIP": ["47677"], "candidate_records": [3], "matched_record": [-1],
         "Salary values": ["3K, 4K"], "Salary disclosed": [False]}
    )  # fmt: skip
    shown = attack_table(table, "en")
    assert list(shown.columns) == [
        "Name", "ZIP", "Candidate records", "Record matched (when unique)",
        "Salary · values seen", "Salary · disclosed",
    ]  # fmt: skip
    assert shown["Record matched (when unique)"].isna().all()


def test_notes_are_worded_by_their_code():
    note = Note("measure.pl.constant", "PL of ZIP: constant column", attribute="ZIP")
    assert note == "PL of ZIP: constant column"  # still the English sentence
    assert note_text(note, "en") == "PL of ZIP: constant column"
    assert note_text(note, "zh").startswith("ZIP 的 PL")
    everything = Note("measure.pl.constant", "PL of all: constant column", attribute="all")
    assert "全部敏感属性" in note_text(everything, "zh")
    assert note_text("a plain sentence", "zh") == "a plain sentence"
    dataset, _ = load_sample("hospital")
    read = dataset.notes[0]
    assert (
        note_text(read, "en") == str(read)
        and note_text(read, "zh") == "按 utf-8 文本读取，逗号分隔。"
    )


def test_every_note_code_of_the_library_has_words_that_fit_its_sentence():
    """Each ``note.<code>`` in English, filled with a note's parameters, is that note's
    own sentence — so the catalogue says what the library says."""
    hospital, _ = load_sample("hospital")
    notes = [
        *hospital.notes,
        Note("measure.pl.constant", "PL of ZIP: constant column", attribute="ZIP"),
        Note(
            "measure.loss.no_hierarchy.left_out",
            "No hierarchy for 'age': WHD, GCP and precision leave it out.",
            column="age",
            detail="",
        ),
    ]
    for note in notes:
        assert note_text(note, "en") == str(note)
    english = catalogue("en")
    assert all(f"note.{n.code}" in english for n in notes)


def test_bundled_data_sets_are_named_in_the_language():
    hospital, _ = load_sample("hospital")
    assert dataset_name(hospital.name, "zh") == "医院（9 名病人，教材示例）"
    assert dataset_name("mine.csv", "zh") == "mine.csv"


def test_a_stored_note_is_recognized_by_its_english_words():
    """The history keeps notes as their English sentences (no code): the Chinese page
    recognizes a sentence by the English words of its note and words it again."""
    from privcore.words.labels import sentence_text

    assert sentence_text("PL of ZIP: constant column", "zh").startswith("ZIP 的 PL")
    assert sentence_text("PL of all: constant column", "zh").startswith("全部敏感属性 的 PL")
    stored = "No hierarchy for 'age': WHD, GCP and precision leave it out."
    assert sentence_text(stored, "zh") == "“age”没有泛化层次：WHD、GCP 和精度不计入该列。"
    assert sentence_text("constant column", "zh") == "该列只有一个取值（PL 记为 0）"
    assert sentence_text("something else", "zh") == "something else"
    assert sentence_text(stored, "en") == stored

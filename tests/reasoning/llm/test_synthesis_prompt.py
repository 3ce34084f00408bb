"""The chat model's synthesis prompt names columns by their labels and asks for an answer that
neither restates the question nor lists the rows."""

from __future__ import annotations

from nl2sql.labels import ColumnInfo
from nl2sql.reasoning.base import ResultPreview, SynthesizeRequest
from nl2sql.reasoning.llm.builders import synthesizer_prompt


def test_the_results_are_headed_by_labels_and_the_rules_forbid_echoes_and_row_lists():
    preview = ResultPreview(
        "compare", ["area", "count_visits_a", "count_visits_b", "count_visits_diff"],
        [("Uplands", 12, 30, 18)], 1,
        column_info=(ColumnInfo("area", "Area", "category"), ColumnInfo("count_visits_a", "Visits (web)", "measure"),
                     ColumnInfo("count_visits_b", "Visits (app)", "measure"),
                     ColumnInfo("count_visits_diff", "Difference", "measure")))
    text = "\n".join(str(m.content) for m in synthesizer_prompt(SynthesizeRequest("visits by area?", [preview])).messages())
    assert "| Area | Visits (web) | Visits (app) | Difference |" in text
    assert "count_visits_a" not in text
    assert "not the question again" in text and "never list its rows" in text

"""docs/suites.md defines the verdict words as the code judges them: each word, its levels, its meaning."""

from __future__ import annotations

from pathlib import Path

from rpcarena.suites import vocabulary

DOCS = Path(__file__).resolve().parents[2] / "docs" / "suites.md"


def test_the_docs_define_every_verdict_word_with_the_codes_meaning_and_levels():
    text = DOCS.read_text()
    for word, meaning in vocabulary.MEANINGS.items():
        levels = vocabulary.LEVELS.get(word)
        shown = f"{levels[0]}, {levels[1]}" if levels else "-"
        assert f"| {word} | {shown} | {meaning} |" in text, word

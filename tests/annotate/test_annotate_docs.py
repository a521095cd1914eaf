"""Every ``>>>`` example of docs/annotations.md runs and prints what the page shows."""

from __future__ import annotations

import doctest
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "annotations.md"


def test_annotations_page_examples():
    text = PAGE.read_text()
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/annotations.md", str(PAGE), 0)
    assert len(test.examples) > 10
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0

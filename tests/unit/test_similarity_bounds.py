"""Similar hand-ins' own arithmetic, without copydetect or a database: what the side-by-side view
splits a file into gives the file back whole, its marks exactly the shared stretches; the
fingerprints kept in the process stay within their bound of text."""

from __future__ import annotations

import random

from grader.web.site.similarity import _Kept, _spans, lines_marked


def test_a_file_split_into_marked_lines_is_the_file_and_its_marks_are_the_spans():
    chances = random.Random(37)
    for _ in range(500):
        text = "".join(chances.choice("ab \n<>&\r\t") for _ in range(chances.randrange(0, 60)))
        cuts = sorted(chances.randrange(-3, len(text) + 4) for _ in range(2 * chances.randrange(0, 4)))
        spans = _spans([cuts[0::2], cuts[1::2]], len(text)) if cuts else ()
        lines = lines_marked(text, spans)
        rebuilt = "\n".join("".join(piece for piece, _ in line) for line in lines)
        assert rebuilt + ("\n" if text.endswith("\n") else "") == text
        marked = [shared for line in lines for piece, shared in line for _ in piece]
        wanted = [any(start <= i < end for start, end in spans) for i, char in enumerate(text) if char != "\n"]
        assert marked == wanted
        assert all(piece for line in lines for piece, _ in line), "no empty piece"


def test_spans_are_ordered_apart_and_within_the_text():
    chances = random.Random(38)
    for _ in range(500):
        length = chances.randrange(0, 50)
        starts = [chances.randrange(-5, 60) for _ in range(chances.randrange(0, 6))]
        ends = [start + chances.randrange(-3, 20) for start in starts]
        spans = _spans([starts, ends], length)
        assert all(0 <= start < end <= length for start, end in spans)
        assert all(one[1] < two[0] for one, two in zip(spans, spans[1:]))


def test_what_is_kept_stays_within_its_count_and_its_weight_the_newest_always():
    kept = _Kept(3, heavy=100)
    for n in range(10):
        kept.put(n, str(n), weight=40)
        assert kept.get(n) == str(n)
        assert len(kept.found) <= 3 and (kept.weight <= 100 or len(kept.found) == 1)
    assert kept.get(0) is None and kept.get(9) == "9" and kept.get(8) == "8" and kept.get(7) is None
    kept.put("huge", "h", weight=1000)  # heavier than the bound: kept alone
    assert kept.get("huge") == "h" and len(kept.found) == 1
    kept.put("huge", "h2", weight=10)  # the same key again replaces it, weighed once
    assert kept.weight == 10

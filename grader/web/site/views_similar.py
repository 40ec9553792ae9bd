"""Similar hand-ins, for instructors: the section of ``/teach/`` alone (``/teach/similar/``, the
class page includes the same) and the side-by-side view of two students' hand-ins of one task with
the stretches they share marked (``similarity.matched``).

In: requests of signed-in instructors; two submission numbers. Out: the pages (403 for a student,
the sign-in page for a visitor, 404 for submissions of two different tasks or of one student).
The students' code reaches the page only as text the template escapes (``safe_text.for_page``
first: control characters as markers), never as HTML: copydetect's own HTML report is not used.
"""

from __future__ import annotations

from typing import Any, Dict, List, Set, Tuple

from django.http import Http404
from django.shortcuts import render

from grader.safe_text import for_page, plural
from grader.web.models import Submission
from grader.web.site import similarity
from grader.web.site.similar_section import SECTION_BUDGET_S, similar_hand_ins, stub_of
from grader.web.site.views_instructor import staff_required
from grader.web.worker.course_state import course_tasks

CONTEXT = 3  # lines shown around a shared stretch; a longer run of lines shared with nothing is folded
FOLDED = 8  # the fewest lines folded (fewer are shown: a fold would hide less than it costs to open)


def blocks(lines: List[Tuple[int, list]]) -> List[Dict[str, Any]]:
    """The numbered lines of a file in blocks: runs of at least ``FOLDED`` lines more than ``CONTEXT``
    from any shared stretch folded (``folded``, with their first and last numbers), the rest shown,
    so the page opens on what the two files share rather than on the exercise's statement."""
    near: Set[int] = set()
    for index, (_, pieces) in enumerate(lines):
        if any(shared for _, shared in pieces):
            near.update(range(index - CONTEXT, index + CONTEXT + 1))
    found: List[Dict[str, Any]] = []
    for index, line in enumerate(lines):
        fold = index not in near
        if found and found[-1]["folded"] == fold:
            found[-1]["lines"].append(line)
        else:
            found.append({"folded": fold, "lines": [line]})
    for block in found:  # a short fold is shown as it is
        block["folded"] = block["folded"] and len(block["lines"]) >= FOLDED
        block["first"], block["last"] = block["lines"][0][0], block["lines"][-1][0]
    return found


@staff_required
def section(request):
    """The section alone, as ``/teach/similar/`` (the class page includes the same)."""
    return render(request, "web/similar.html", {"similar": similar_hand_ins(SECTION_BUDGET_S)})


@staff_required
def pair(request, first: int, second: int):
    """Two hand-ins of one task side by side, the stretches they share marked."""
    rows = {
        row.id: row
        for row in Submission.objects.filter(id__in=[first, second]).select_related("student").defer("report")
    }
    if first == second or len(rows) != 2:
        raise Http404("These are not two hand-ins.")
    one, other = rows[first], rows[second]
    if one.task != other.task or one.student_id == other.student_id:
        raise Http404("Only two students' hand-ins of the same task are compared.")
    stub = stub_of(one.task)
    hands = [similarity.HandIn(r.student.username, r.id, r.sha256, bytes(r.data or b"")) for r in (one, other)]
    cd = similarity.detector()
    found = similarity.Matched(reason=cd) if isinstance(cd, str) else similarity.matched(hands[0], hands[1], stub)
    files = []
    for row, text, spans in zip((one, other), found.texts, found.spans):
        lines = similarity.lines_marked(text, spans)
        shown = [(n, [(for_page(piece), shared) for piece, shared in line]) for n, line in enumerate(lines, 1)]
        files.append(
            {
                "row": row,
                "blocks": blocks(shown),
                "shared": plural(sum(1 for line in lines if any(shared for _, shared in line)), "line"),
            }
        )
    context = {
        "task": course_tasks().get(one.task),
        "task_id": one.task,
        "files": files,
        "reason": found.reason,
        "percent": similarity.percent(found.similarity),
        "rule": similarity.RULE,
    }
    return render(request, "web/similar_pair.html", context)

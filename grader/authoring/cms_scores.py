"""CMS score types as per-case points: what each case of an imported CMS task is worth.

In: the task's ``score_type`` and ``score_type_parameters`` (or, when ``task.yaml`` gives neither,
the ``# ST:`` subtask lines of ``gen/GEN``) and the case numbers. Out: points by case number, and a
note wherever per-case points cannot say what CMS does (a subtask scored all or nothing, a score
type with no counterpart). ``Sum`` carries over exactly; ``GroupMin`` and ``GroupMul`` share each
subtask's points among its cases.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from grader.authoring.importing import Notes, listing, read_text, yaml_number
from grader.marks import plain_number


def case_points(folder: Path, conf: Dict[str, Any], indices: List[int], notes: Notes) -> Dict[int, float]:
    """Per-case points from the score type, where per-case points can say it (see the notes)."""
    score_type, parameters = conf.get("score_type"), conf.get("score_type_parameters")
    source = "task.yaml"
    if score_type is None and parameters is None:
        subtasks = _gen_subtasks(folder / "gen" / "GEN")
        if not subtasks:
            return {}  # CMS's default: Sum with an equal value per case, as this grader does
        score_type, parameters, source = "GroupMin", subtasks, "gen/GEN"
    elif score_type is None or parameters is None:
        notes.add(
            "task.yaml gives only one of score_type and score_type_parameters, so per-case points were not "
            "carried over and every case counts 1 point."
        )
        return {}
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters)
        except json.JSONDecodeError:
            pass
    if score_type == "Sum":
        value = yaml_number(parameters)
        if value is not None and value >= 0:
            return {index: value for index in indices}  # exact: each case is worth the parameter
    elif score_type in ("GroupMin", "GroupMul"):
        groups = _cms_groups(parameters, indices)
        if groups is not None:
            return _group_points(score_type, source, groups, indices, notes)
    else:
        notes.add(
            f"The CMS score type {score_type} has no counterpart here: per-case points were not carried over "
            "and every case counts 1 point."
        )
        return {}
    notes.add(
        f"The {score_type} parameters in {source} ({parameters!r}) could not be read: per-case points were not "
        "carried over and every case counts 1 point."
    )
    return {}


def _cms_groups(parameters: Any, indices: List[int]) -> Optional[List[Tuple[float, List[int]]]]:
    """(max score, case numbers) per subtask, as CMS's ScoreTypeGroup reads its parameters, or None.

    Each parameter is [max score, t, ...]: t a number of cases taken in order of their codenames
    ("000", "001", ...), or t a regular expression matched against those codenames.
    """
    if not isinstance(parameters, list) or not parameters:
        return None
    codenames = {f"{i:03d}": i for i in indices}
    order = [codenames[name] for name in sorted(codenames)]
    groups, taken = [], 0
    for item in parameters:
        if not isinstance(item, list) or len(item) < 2 or yaml_number(item[0]) is None:
            return None
        target = item[1]
        if isinstance(target, int) and not isinstance(target, bool):
            members, taken = order[taken : taken + target], taken + target
        elif isinstance(target, str):
            try:
                pattern = re.compile(target)
            except re.error:
                return None
            members = [codenames[name] for name in sorted(codenames) if pattern.match(name)]
        else:
            return None
        groups.append((item[0], members))
    kinds = {isinstance(item[1], str) for item in parameters}
    return groups if len(kinds) == 1 else None


def _group_points(
    score_type: str, source: str, groups: List[Tuple[float, List[int]]], indices: List[int], notes: Notes
) -> Dict[int, float]:
    """Each subtask's points shared equally by its cases (exact for a subtask of one case)."""
    points: Dict[int, float] = {index: 0 for index in indices}
    shared = []
    for number, (maximum, members) in enumerate(groups):
        if not members:
            notes.add(
                f"Subtask {number} of {source} ({plain_number(maximum)} points) has no cases; its points are lost."
            )
            continue
        for index, share in zip(members, _shares(maximum, len(members))):
            points[index] += share
        if len(members) > 1:
            shared.append(f"subtask {number}: {plain_number(maximum)} points over {len(members)} cases")
    if shared:
        notes.add(
            f"CMS {score_type} gives a subtask's points only when all its cases pass; here each case carries an "
            f"equal share of its subtask's points ({'; '.join(shared)}), so a partly solved subtask scores partly."
        )
    orphans = [str(index) for index in indices if not any(index in members for _, members in groups)]
    if orphans:
        notes.add(f"Cases {listing(orphans)} belong to no subtask in {source}, so they count 0 points, as in CMS.")
    return points


def _shares(total: float, count: int) -> List[float]:
    """``total`` split in ``count`` shares to the hundredth; the last share takes the rounding rest."""
    share = total / count
    if float(share).is_integer():
        return [share] * count
    share = round(share, 2)
    return [share] * (count - 1) + [round(total - share * (count - 1), 2)]


def _gen_subtasks(path: Path) -> Optional[List[List[int]]]:
    """[[points, number of cases], ...] from ``# ST: points`` lines of gen/GEN, as CMS reads them."""
    if not path.is_file():
        return None
    text = read_text(path)
    if text is None:
        return None
    subtasks: List[List[int]] = []
    points, count = None, 0
    for line in text.splitlines():
        case, _, comment = line.strip().partition("#")
        comment = comment.strip()
        if comment.startswith("ST:"):
            if points is not None:
                subtasks.append([points, count])
            try:
                points = int(comment[3:].strip())
            except ValueError:
                return None
            count = 0
        elif case.strip() or comment.startswith("COPY:"):
            count += 1
    if points is None:
        return None
    subtasks.append([points, count])
    return subtasks

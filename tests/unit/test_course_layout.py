"""The course layout names every part of a course folder from one place."""

from pathlib import Path

from grader.course.layout import Course


def test_a_course_names_its_parts(tmp_path):
    (tmp_path / "testcases").mkdir()
    for task in ("nim_sum", "bin_num"):
        (tmp_path / "testcases" / f"{task}.yaml").write_text("cases: []\n")
    (tmp_path / "testcases" / "notes.txt").write_text("not a task\n")
    course = Course(tmp_path)
    assert course.is_course()
    assert course.task_ids() == ("bin_num", "nim_sum")
    assert course.solution("nim_sum") == tmp_path / "solutions" / "nim_sum.py"
    assert course.wrong("nim_sum") == tmp_path / "solutions" / "wrong" / "nim_sum"
    assert course.exercise("nim_sum") == tmp_path / "exercises" / "nim_sum.py"
    assert course.case_file("nim_sum") == tmp_path / "testcases" / "nim_sum.yaml"
    assert course.checkers_file == tmp_path / "checkers.py"


def test_a_folder_without_cases_is_no_course(tmp_path):
    assert not Course(tmp_path).is_course()
    assert Course(tmp_path).task_ids() == ()


def test_the_course_of_a_case_file():
    assert Course.of_case_file(Path("/c/testcases/nim_sum.yaml")) == Course(Path("/c"))
    assert Course.of_case_file(Path("/elsewhere/nim_sum.yaml")) == Course(Path("/elsewhere"))

"""The reports in a real headless Chromium: what a student sees, not just what the HTML says.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (``.ci/run``
installs them as root). Where they are missing the tests are skipped with the reason: tests never
install system packages.
"""

from __future__ import annotations

import json

import pytest
from support import mutate, solution

from grader.report import pages as report


@pytest.fixture(scope="module")
def pages(tmp_path_factory, course, context):
    """A report with a wrong nim_sum, an exclusive_or that prints HTML, and an accepted make_move."""
    from grader.grade.grading import grade_file

    folder = tmp_path_factory.mktemp("submission")
    files = {
        "nim_sum": mutate("nim_sum", "total = total ^ row", "total = total + row"),
        "exclusive_or": 'a, b = input().split()\nprint("<b>bold</b><script>window.pwned = 1</script>")\n',
        "make_move": solution("make_move"),
    }
    results = []
    for task_id, text in files.items():
        path = folder / f"{task_id}.py"
        path.write_text(text, encoding="utf-8")
        results.append(grade_file(course[task_id], path, context))
    out = tmp_path_factory.mktemp("report")
    report.write_html(results, out, "graded with Python 3")
    return out, {r.task.id: r for r in results}


def open_page(browser, folder, name):
    browser.get_log("performance")  # forget earlier requests
    browser.get((folder / name).as_uri())
    return browser


def requests_made(browser):
    urls = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def test_index_renders_with_failing_tasks_first(browser, pages):
    folder, _ = pages
    page = open_page(browser, folder, "index.html")
    assert "Your results" in page.find_element("tag name", "h1").text
    rows = [row.text for row in page.find_elements("css selector", "tbody tr")]
    assert len(rows) == 3
    assert "accepted" in rows[-1] and "make_move" in rows[-1]
    badges = page.find_elements("css selector", "tbody tr .badge")
    assert len(badges) == 3 and all(badge.is_displayed() for badge in badges)


def test_failing_task_opens_on_its_first_failing_case(browser, pages):
    folder, results = pages
    page = open_page(browser, folder, "nim_sum.html")
    opened = page.execute_script("return [...document.querySelectorAll('details.case')].map(d => d.open)")
    first_failing = next(i for i, c in enumerate(results["nim_sum"].cases) if not c.accepted)
    assert [i for i, is_open in enumerate(opened) if is_open] == [first_failing]
    message = page.find_elements("css selector", "details.case")[first_failing].find_element("css selector", ".message")
    assert message.is_displayed() and "expected" in message.text


def test_difference_highlight_is_visible(browser, pages):
    folder, _ = pages
    page = open_page(browser, folder, "nim_sum.html")
    marks = [m for m in page.find_elements("css selector", "details[open] mark") if m.is_displayed()]
    assert marks, "the first difference is highlighted in the open case"
    size = marks[0].size
    assert size["width"] > 0 and size["height"] > 0
    background = marks[0].value_of_css_property("background-color")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent")


def test_student_html_stays_text(browser, pages):
    folder, _ = pages
    page = open_page(browser, folder, "exclusive_or.html")
    assert page.execute_script("return window.pwned") is None
    assert not page.find_elements("css selector", "pre.out b")
    assert "<b>bold</b>" in page.find_element("css selector", "details[open]").text


def test_pages_make_no_network_request(browser, pages):
    folder, _ = pages
    for name in ("index.html", "nim_sum.html", "exclusive_or.html", "make_move.html"):
        open_page(browser, folder, name)
        outside = [url for url in requests_made(browser) if not url.startswith(("file:", "data:", "about:"))]
        assert outside == [], f"{name} asked the network for {outside}"


def test_cases_open_and_close_with_the_keyboard(browser, pages):
    from selenium.webdriver.common.keys import Keys

    folder, _ = pages
    page = open_page(browser, folder, "make_move.html")
    summaries = page.find_elements("css selector", "details.case > summary")
    assert not page.execute_script("return document.querySelector('details.case').open")
    for _ in range(10):  # the back link comes first, then the cases
        page.switch_to.active_element.send_keys(Keys.TAB)
        if page.switch_to.active_element == summaries[0]:
            break
    assert page.switch_to.active_element == summaries[0], "the first case can be reached with Tab"
    summaries[0].send_keys(Keys.ENTER)
    assert page.execute_script("return document.querySelector('details.case').open")


def test_readable_on_a_phone(browser, pages):
    folder, _ = pages
    browser.set_window_size(390, 844)
    try:
        for name in ("index.html", "nim_sum.html", "exclusive_or.html"):
            page = open_page(browser, folder, name)
            overflow = page.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{name} does not scroll sideways on a phone"
            font = page.execute_script("return parseFloat(getComputedStyle(document.body).fontSize)")
            assert font >= 14
    finally:
        browser.set_window_size(1200, 900)


def test_a_collapsed_case_shows_a_visible_toggle(browser, pages):
    folder, results = pages
    page = open_page(browser, folder, "nim_sum.html")
    cases = page.find_elements("css selector", "details.case")
    failing = [i for i, c in enumerate(results["nim_sum"].cases) if not c.accepted]
    assert len(failing) > 1, "a failing case after the first one, collapsed"
    closed = cases[failing[1]]
    label = closed.find_element("css selector", "summary .toggle")
    assert label.is_displayed() and label.text == "Show"
    assert label.size["width"] > 0 and label.size["height"] > 0
    closed.find_element("css selector", "summary").click()
    assert label.text == "Hide"


def test_on_a_phone_the_first_screen_is_the_results_and_the_protections_are_at_the_foot(browser, pages):
    folder, _ = pages
    browser.set_window_size(390, 844)
    try:
        page = open_page(browser, folder, "nim_sum.html")
        top = page.execute_script("return document.querySelector('#causes').getBoundingClientRect().top")
        assert top < page.execute_script("return window.innerHeight"), "the summary of causes is on the first screen"
        footer = page.find_element("tag name", "footer")
        assert "graded with Python 3" in footer.text
        below = page.execute_script(
            "return document.querySelector('footer').getBoundingClientRect().top"
            " > document.querySelector('details.case:last-of-type').getBoundingClientRect().top"
        )
        assert below, "how the file was graded comes after the cases"
        assert not page.find_elements("tag name", "header")
    finally:
        browser.set_window_size(1200, 900)

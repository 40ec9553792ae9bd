"""A student's and an instructor's whole path through the portal, in headless Chromium, against a
real ``serve`` that grades for real: at a desktop's width and a phone's, with no sideways scroll;
where a student lands after handing in a wrong file, the cause in the first screen; and a refused
hand-in's sentence at the top of the page it comes back to.

Needs Django and waitress (the web extra), the ``selenium`` package, Chromium and chromedriver;
where one is missing the tests are skipped with the reason.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import one_time_passwords, served  # noqa: E402
from support import PROJECT, mutate, solution  # noqa: E402

WIDTHS = [pytest.param((1280, 900), id="desktop"), pytest.param((390, 844), id="phone")]
PASSWORD = "my own password 1"
GRADED_WITHIN_S = 120


@pytest.fixture(scope="module")
def site(tmp_path_factory, portal_database):
    """A portal with two students and two instructors, served and grading in its own process."""
    db = portal_database.options()
    folder = tmp_path_factory.mktemp("portal")
    roster = folder / "roster.csv"
    roster.write_text(
        "username,role\nann,student\nben,student\ncy,student\ndee,student\neve,student\nfay,student\n"
        "teach,instructor\ntess,instructor\n"
    )
    command = [sys.executable, "-m", "grader"]
    made = subprocess.run(
        [*command, "users", "import", str(roster), "--data", str(folder / "data"), *db],
        cwd=PROJECT,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    first = one_time_passwords(made.stdout)
    with served(["--data", str(folder / "data"), *db, "--workers", "2"], PROJECT) as url:
        yield url, first


def fits(browser) -> None:
    """The page is as wide as the window: nothing to scroll sideways."""
    width, inner = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner, f"{browser.current_url} is {width} px wide in a {inner} px window"


# Every word of up to 15 letters on the page, each measured as laid out: one broken across two
# lines (a column squeezed to "Regrad/e") is named. Longer runs (a token, a file name) may wrap.
_BROKEN_WORDS = """
const broken = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  for (const m of node.textContent.matchAll(/[A-Za-z]{2,15}/g)) {
    const range = document.createRange();
    range.setStart(node, m.index);
    range.setEnd(node, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
    if (tops.size > 1) broken.push(m[0]);
  }
}
return broken;
"""


def whole_words(browser) -> None:
    """No word on the page is broken inside to fit a column or a button."""
    broken = browser.execute_script(_BROKEN_WORDS)
    assert not broken, f"{browser.current_url} breaks {broken} inside a word"


def shows(browser, text, within_s=30):
    """Wait for the page (after a click, a redirect or a refresh) to show ``text``."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page may be replaced while it is read (a redirect, a refresh): its text is read in one
    # script call, holding no element across the change, and a read that meets the change is retried.
    WebDriverWait(browser, within_s, poll_frequency=0.2, ignored_exceptions=(WebDriverException,)).until(
        lambda b: text in (b.execute_script("return document.body ? document.body.innerText : ''") or ""),
        f"{browser.current_url} never showed {text!r}",
    )


def first_sign_in(browser, url, username, password):
    """Sign in with the one-time password and choose one's own, as a new account does."""
    browser.delete_all_cookies()
    browser.get(f"{url}/login/")
    fits(browser)
    browser.find_element("id", "id_username").send_keys(username)
    browser.find_element("id", "id_password").send_keys(password)
    browser.find_element("css selector", "main button[type=submit]").click()
    shows(browser, "Choose your password")
    assert browser.current_url.endswith("/password/"), browser.current_url
    fits(browser)
    # the sign-in just proved the one-time password: only the new one is asked
    assert not browser.find_elements("id", "id_old_password")
    browser.find_element("id", "id_new_password1").send_keys(PASSWORD)
    browser.find_element("id", "id_new_password2").send_keys(PASSWORD)
    browser.find_element("css selector", "main button[type=submit]").click()
    shows(browser, "Your new password is set.")


def wait_until_graded(browser):
    from selenium.webdriver.support.ui import WebDriverWait

    # the page reloads itself once it is graded; nothing here reloads it
    WebDriverWait(browser, GRADED_WITHIN_S, poll_frequency=0.5).until(
        lambda b: "as soon as it is graded" not in b.page_source and "badge done" in b.page_source
    )


@pytest.mark.parametrize("size", WIDTHS)
def test_a_student_signs_in_hands_in_and_reads_the_report(site, browser, size, tmp_path):
    url, first = site
    phone = size[0] < 500
    username = "ben" if phone else "ann"
    browser.set_window_size(*size)
    first_sign_in(browser, url, username, first[username])
    assert "Your exercises" in browser.find_element("tag name", "h1").text
    fits(browser)
    browser.find_element("css selector", "a[href='/tasks/nim_sum/']").click()
    fits(browser)
    whole_words(browser)  # the exercise's statement too
    if phone:  # pasted: a wrong answer, to see the cases (hidden ones by name and hint only)
        text = mutate("nim_sum", "total = total ^ row", "total = total + row")
        browser.execute_script("document.getElementById('id_text').value = arguments[0]", text)
    else:  # a file, chosen as a student does
        path = tmp_path / "nim_sum.py"
        path.write_text(solution("nim_sum"))
        browser.find_element("id", "id_file").send_keys(str(path))
    browser.find_element("css selector", "main form button[type=submit]").click()
    shows(browser, "Handed in nim_sum")
    wait_until_graded(browser)
    fits(browser)
    shown = browser.find_element("tag name", "main").text
    if phone:
        # the hidden cases by name: they wait for the deadline (the course's default), said once
        assert "wrong answer" in shown.lower() and "hidden case 1: is_p_position" in shown
        assert shown.count("Hidden case: it runs after your deadline") == 1
    else:
        assert "accepted" in shown.lower() and "points" in shown
    whole_words(browser)
    submission_page = browser.current_url
    browser.find_element("link text", "the full report").click()
    assert "nim_sum" in browser.page_source
    if phone:  # the rows added up: a known mistake, said at the top
        top = browser.find_element("tag name", "body").text
        assert "Your answers match a known mistake: the rows are added up" in top
    fits(browser)
    browser.find_element("link text", "← This submission").click()  # the report's way back
    assert browser.current_url == submission_page
    browser.back()
    browser.find_element("link text", "All tasks").click()
    assert "Your exercises" in browser.find_element("tag name", "h1").text
    row = browser.find_element("xpath", "//tr[td/a[@href='/tasks/nim_sum/']]").text
    assert "#1" in row and "graded" in row and "not handed in" not in row  # the latest, numbered as theirs
    fits(browser)
    whole_words(browser)
    browser.get(f"{url}/no/such/page/")
    assert "Not found" in browser.find_element("tag name", "h1").text
    fits(browser)
    browser.find_element("link text", "Back to the start page").click()
    assert "Your exercises" in browser.find_element("tag name", "h1").text
    browser.find_element("css selector", "nav.top a[href='/account/']").click()
    browser.find_element("css selector", "form input[value='token'] ~ button").click()
    shows(browser, "shown this once")
    token = browser.find_element("id", "token").text
    assert len(token) > 20 and token in browser.find_element("tag name", "main").text
    fits(browser)  # a long token wraps on a phone
    browser.find_element("css selector", "form input[value='revoke'] ~ button").click()
    shows(browser, "Your API token is revoked.")
    fits(browser)


@pytest.mark.parametrize("size", WIDTHS)
def test_an_instructor_sees_the_class_and_regrades(site, browser, size):
    from selenium.webdriver.support.ui import Select

    url, first = site
    username = "tess" if size[0] < 500 else "teach"
    browser.set_window_size(*size)
    first_sign_in(browser, url, username, first[username])
    assert browser.current_url.endswith("/teach/")
    fits(browser)
    whole_words(browser)
    browser.find_element("link text", "Class overview").click()
    fits(browser)
    names = browser.find_element("tag name", "body").text
    handed_in = [name for name in ("ann", "ben") if name in names]
    assert handed_in, "the students who handed in are in the class overview"
    common = browser.find_element("css selector", "ul.common-mistakes").text
    assert "1 student on nim_sum: adds the rows with + instead of XOR-ing them" in common and "ben" in common
    browser.find_element("link text", handed_in[0]).click()
    assert browser.current_url.endswith(f"/teach/class/{handed_in[0]}/index.html")
    assert "nim_sum" in browser.find_element("tag name", "main").text
    fits(browser)
    whole_words(browser)
    # the student's record: an extension of every task, then an adjustment with a comment
    browser.find_element("id", "id_ext_deadline").send_keys("2099-12-08 23:59")
    browser.find_element("css selector", "#extension-form button[type=submit]").click()
    due = "2099-12-08 23:59 UTC (a hand-in at 23:59:59 UTC is on time)"
    shows(browser, f"{handed_in[0]}: every task is due {due} for them.")
    Select(browser.find_element("id", "id_adj_task")).select_by_value("nim_sum")
    browser.find_element("id", "id_adj_points").send_keys("+2")
    browser.find_element("id", "id_adj_comment").send_keys("the board was printed by hand")
    browser.find_element("css selector", "#adjustment-form button[type=submit]").click()
    shows(browser, f"{handed_in[0]}: nim_sum adjusted by +2 (the board was printed by hand).")
    record = browser.find_element("id", "record").text
    assert "adjusted +2: the board was printed by hand" in record and "2099-12-08 23:59 UTC" in record
    fits(browser)
    whole_words(browser)
    browser.get(f"{url}/teach/class/")
    assert "adj." in browser.find_element("tag name", "body").text  # the overview marks the adjusted task
    browser.find_element("link text", "← The class").click()
    assert browser.current_url.endswith("/teach/")
    browser.find_element("css selector", "button[aria-label='Regrade nim_sum']").click()
    shows(browser, "for grading again against today's cases")  # asked first, saying how many
    assert re.search(r"This queues \d+ latest submissions? ", browser.find_element("tag name", "main").text)
    fits(browser)
    whole_words(browser)
    browser.find_element("css selector", "main form button[type=submit]").click()
    shows(browser, "queued for grading again (old results stay until then)")
    fits(browser)
    browser.find_element("id", "id_deadline_all").send_keys("2099-12-01 23:59")
    browser.find_element("css selector", "#every-task button[type=submit]").click()
    shows(browser, "Every task (9 tasks): limits and deadline saved.")
    assert browser.find_element("id", "id_deadline_make_move").get_attribute("value") == "2099-12-01 23:59"
    fits(browser)
    browser.find_element("link text", "Queue").click()
    assert "The queue" in browser.find_element("tag name", "h1").text
    fits(browser)
    browser.get(f"{url}/teach/")
    bound = browser.find_element("id", "id_max_waiting")
    bound.clear()
    bound.send_keys("4")
    save = "button[aria-label='Save the bounds on submissions waiting and bytes kept']"
    browser.find_element("css selector", save).click()
    shows(browser, "4")
    assert browser.find_element("id", "id_max_waiting").get_attribute("value") == "4"
    fits(browser)
    browser.find_element("css selector", "nav.top a[href='/account/']").click()
    browser.find_element("id", "id_username").send_keys("ben" if size[0] < 500 else "ann")
    browser.find_element("css selector", "form input[value='reset'] ~ button").click()
    shows(browser, "sign in with the password")
    assert len(browser.find_element("id", "one-time").text) >= 8
    fits(browser)


# The box of the first element ``arguments[0]`` selects, as laid out in the window, and the window.
_BOX = """
const r = document.querySelector(arguments[0]).getBoundingClientRect();
return {top: r.top, bottom: r.bottom, window: window.innerHeight, scrolled: window.scrollY,
        page: document.documentElement.scrollHeight};
"""


@pytest.mark.parametrize("size", WIDTHS)
def test_where_a_student_lands_after_a_wrong_file_the_cause_is_in_the_first_screen(site, browser, size):
    """The typical wrong nim_sum (the rows added up): the page the student lands on says the known
    mistake and what to fix first before any scrolling, at a desktop's width and a phone's, and
    starts the file at the student's code, its docstring folded."""
    url, first = site
    username = "dee" if size[0] < 500 else "cy"
    browser.set_window_size(*size)
    first_sign_in(browser, url, username, first[username])
    browser.get(f"{url}/tasks/nim_sum/")
    text = mutate("nim_sum", "total = total ^ row", "total = total + row")
    browser.execute_script("document.getElementById('id_text').value = arguments[0]", text)
    browser.find_element("css selector", "main form button[type=submit]").click()
    shows(browser, "Handed in nim_sum")
    wait_until_graded(browser)
    shows(browser, "Your answers match a known mistake: the rows are added up")
    fits(browser)
    whole_words(browser)
    for part in ("#cause .known", "#cause li"):  # the known mistake, and the first thing to fix
        box = browser.execute_script(_BOX, part)
        assert box["scrolled"] == 0 and 0 <= box["top"] and box["bottom"] <= box["window"], (part, box)
    first_code = browser.find_element("css selector", 'table[aria-label="nim_sum.py with its line numbers"] td.n')
    assert int(first_code.text) > 20  # the student's code, not the exercise's text
    assert not browser.find_element("css selector", "details.docstring").get_attribute("open")


@pytest.mark.parametrize("size", WIDTHS)
def test_a_refused_hand_in_says_why_at_the_top_of_the_page(site, browser, size):
    """Another task's file pasted in nim_sum's form: the page that comes back says why at its top,
    in the first screen (within the first 1000 px), above the form and the long statement."""
    url, first = site
    username = "fay" if size[0] < 500 else "eve"
    browser.set_window_size(*size)
    first_sign_in(browser, url, username, first[username])
    browser.get(f"{url}/tasks/nim_sum/")
    browser.execute_script("document.getElementById('id_text').value = arguments[0]", solution("make_move"))
    browser.find_element("css selector", "main form button[type=submit]").click()
    shows(browser, "the function of make_move.py")
    fits(browser)
    whole_words(browser)
    box = browser.execute_script(_BOX, "main [role=alert]")
    assert box["scrolled"] == 0 and 0 <= box["top"] < 1000 and box["bottom"] <= box["window"], box
    assert (
        box["top"]
        < browser.execute_script(_BOX, "main form")["top"]
        < browser.execute_script(_BOX, "pre.statement")["top"]
    )
    assert "make_move" in browser.find_element("id", "id_text").get_attribute("value")  # kept to mend

"""Every page of the portal passes axe-core with no serious or critical violation, at a desktop's
width (1280 px) and a phone's (390 px), in headless Chromium against a real ``serve`` that grades
for real: the pages an anonymous visitor, a student and an instructor reach by following the links
of their pages (and the forms that ask nothing, such as a task's Regrade), the grader's own report
pages the portal serves among them, and the states only a form reaches (a wrong password, a first
sign-in's password refused, a refused hand-in).

axe-core is vendored (tests/data/axe-core: its version, licence and where it came from), so the test
downloads nothing. It fails listing each violation: the rule, its impact, the page and width, and
the element. With ``NIM_GRADER_A11Y_SHOTS=FOLDER`` it also saves a screenshot of each page at each
width there (to compare the pages' looks before and after a change to the templates).

Needs Django and waitress (the web extra), the ``selenium`` package, Chromium and chromedriver;
where one is missing the test is skipped with the reason.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional, Tuple
from urllib.parse import urldefrag, urlsplit

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import one_time_passwords, served  # noqa: E402
from support import PROJECT, mutate, solution  # noqa: E402

AXE = Path(__file__).resolve().parents[1] / "data" / "axe-core" / "axe.min.js"
WIDTHS = ((1280, 900), (390, 844))
PASSWORD = "my own password 1"
GRADED_WITHIN_S = 180
MOST_PAGES = 60  # of one role's crawl: the roster is small, so every page is well within it

# axe's serious and critical violations, each element that breaks a rule as one entry
_RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  result => done(result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 200)}))}))),
  problem => done({error: String(problem)}));
"""

# the page's links, and the forms that send nothing but a button (GET), as absolute addresses
_LINKS = """
const asks = 'input:not([type=hidden]):not([type=submit]):not([type=button]), select, textarea';
return [...document.querySelectorAll('a[href]')].map(a => a.href).concat(
  [...document.querySelectorAll('form')]
    .filter(f => (f.getAttribute('method') || 'get').toLowerCase() === 'get' && !f.querySelector(asks))
    .map(f => f.action));
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory, portal_database):
    """A portal with two students and an instructor, served and grading in its own process."""
    db = portal_database.options()
    folder = tmp_path_factory.mktemp("portal")
    roster = folder / "roster.csv"
    roster.write_text("username,role\nann,student\nben,student\nteach,instructor\n")
    command = [sys.executable, "-m", "grader"]
    made = subprocess.run(
        [*command, "users", "import", str(roster), "--data", str(folder / "data"), *db],
        cwd=PROJECT,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    first = one_time_passwords(made.stdout)
    with served(["--data", str(folder / "data"), *db, "--workers", "1"], PROJECT) as url:
        yield url, first


class Audit:
    """axe run on the page the browser shows, at each width; what it finds kept as lines to read."""

    def __init__(self, browser, shots: Optional[Path]):
        self.browser = browser
        self.shots = shots
        self.source = AXE.read_text(encoding="utf-8")
        self.found: List[str] = []
        self.audited: List[str] = []

    def page(self, label: str) -> None:
        """Audit the page open now, named ``label`` in what fails, at both widths."""
        self.audited.append(label)
        for width, height in WIDTHS:
            self.browser.set_window_size(width, height)
            self.browser.execute_script(self.source)  # the page's own policy allows no script of its own
            result = self.browser.execute_async_script(_RUN_AXE)
            assert isinstance(result, list), f"axe could not run on {label}: {result}"
            for violation in result:
                for node in violation["nodes"]:
                    self.found.append(
                        f"{violation['id']} ({violation['impact']}: {violation['help']}) on {label} at {width} px:"
                        f" {node['target']}  {node['html']}"
                    )
            if self.shots:
                name = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")
                self.browser.save_screenshot(str(self.shots / f"{name}-{width}.png"))
        self.browser.set_window_size(*WIDTHS[0])


def kind_of(browser, address: str) -> str:
    """The content type ``address`` answers the browser's session with, asked aside (a download
    opened in the browser would leave it on the page before)."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
    request = urllib.request.Request(address, headers={"Cookie": cookies})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as answer:  # a 404 or 403 page is a page too
        return answer.headers.get("Content-Type", "")


def crawl(browser, audit: Audit, url: str, start: str, who: str) -> Dict[str, str]:
    """Audit every page of the site reached from ``start`` by following links (breadth first, at
    most ``MOST_PAGES``); returns each address reached → the page that led there."""
    reached: Dict[str, str] = {}
    queue: List[Tuple[str, str]] = [(start, "(start)")]
    while queue and len(reached) < MOST_PAGES:
        address, came_from = queue.pop(0)
        if address in reached:
            continue
        reached[address] = came_from
        if not kind_of(browser, url + address).startswith("text/html"):
            continue  # a file, a CSV, a zip: not a page
        browser.get(url + address)
        landed = browser.current_url[len(url) :]  # after its redirects
        if landed != address:
            if landed in reached:
                continue  # audited as its own address already
            reached[landed] = address
        audit.page(f"{address} as {who}" if landed == address else f"{address} → {landed} as {who}")
        for link in browser.execute_script(_LINKS):
            target = urldefrag(link)[0]
            where = urlsplit(target)
            if f"{where.scheme}://{where.netloc}" == url and target[len(url) :] not in reached:
                queue.append((target[len(url) :] or "/", address))
    return reached


def shows(browser, text: str, within_s: float = 30) -> None:
    """Wait for the page (after a click or a refresh) to show ``text``."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, within_s, poll_frequency=0.2, ignored_exceptions=(WebDriverException,)).until(
        lambda b: text in (b.execute_script("return document.body ? document.body.innerText : ''") or ""),
        f"{browser.current_url} never showed {text!r}",
    )


def submit(browser) -> None:
    browser.find_element("css selector", "main form button[type=submit]").click()


def first_sign_in(browser, audit: Audit, url: str, username: str, password: str) -> None:
    """Sign in with the one-time password, audit the page that asks for one's own (as it comes,
    and with a password refused), and set it."""
    browser.delete_all_cookies()
    browser.get(f"{url}/login/")
    browser.find_element("id", "id_username").send_keys(username)
    browser.find_element("id", "id_password").send_keys(password)
    submit(browser)
    shows(browser, "Choose your password")
    audit.page(f"/password/ (first sign-in) as {username}")
    for field in ("id_new_password1", "id_new_password2"):
        browser.find_element("id", field).send_keys("short")
    submit(browser)
    shows(browser, "Choose your password")
    audit.page(f"/password/ (a password refused) as {username}")
    for field in ("id_new_password1", "id_new_password2"):
        browser.find_element("id", field).clear()
        browser.find_element("id", field).send_keys(PASSWORD)
    submit(browser)
    shows(browser, "Your new password is set.")


def hand_in(browser, url: str, task: str, text: str) -> None:
    browser.get(f"{url}/tasks/{task}/")
    browser.execute_script("document.getElementById('id_text').value = arguments[0]", text)
    submit(browser)


def wait_until_graded(browser) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    # the submission's page reloads itself once it is graded
    WebDriverWait(browser, GRADED_WITHIN_S, poll_frequency=0.5).until(
        lambda b: "as soon as it is graded" not in b.page_source and "badge done" in b.page_source
    )


def test_every_page_passes_axe_at_a_desktops_and_a_phones_width(site, browser, tmp_path):
    url, first = site
    shots = os.environ.get("NIM_GRADER_A11Y_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
    audit = Audit(browser, Path(shots) if shots else None)
    started = time.monotonic()

    # an anonymous visitor: the sign-in page, and what a wrong password and a wrong address show
    browser.delete_all_cookies()
    anonymous = crawl(browser, audit, url, "/", "anonymous")
    assert audit.audited == ["/ → /login/?next=/ as anonymous"], anonymous
    browser.get(f"{url}/no/such/page/")
    audit.page("a page not found, as anonymous")
    browser.get(f"{url}/login/")
    browser.find_element("id", "id_username").send_keys("ann")
    browser.find_element("id", "id_password").send_keys("not the password")
    submit(browser)
    shows(browser, "is not right")
    audit.page("/login/ (a wrong password) as anonymous")

    # a student: a wrong nim_sum and a right make_move graded, then a refused hand-in, then the crawl
    first_sign_in(browser, audit, url, "ann", first["ann"])
    hand_in(browser, url, "make_move", solution("make_move"))
    shows(browser, "Handed in make_move")
    wait_until_graded(browser)
    hand_in(browser, url, "nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    shows(browser, "Handed in nim_sum")
    wait_until_graded(browser)
    hand_in(browser, url, "nim_sum", solution("make_move"))  # another task's file: refused
    shows(browser, "the function of make_move.py")
    audit.page("/tasks/nim_sum/ (a refused hand-in) as ann")
    student = crawl(browser, audit, url, "/", "ann")
    assert any(re.fullmatch(r"/submissions/\d+/report", a) for a in student), student
    browser.get(f"{url}/teach/")
    audit.page("/teach/ (not for students) as ann")

    # an instructor: the class, its overview and gradebook, each student, submissions, policies
    first_sign_in(browser, audit, url, "teach", first["teach"])
    instructor = crawl(browser, audit, url, "/teach/", "teach")
    assert {"/teach/class/", "/teach/queue/", "/teach/class/ann/index.html"} <= set(instructor), instructor
    assert any(a.startswith("/teach/tasks/") and "/regrade" in a for a in instructor), instructor

    took = time.monotonic() - started
    print(f"axe ran on {len(audit.audited)} pages at {len(WIDTHS)} widths in {took:.0f} s:", *audit.audited, sep="\n")
    listed = "\n".join(audit.found)
    assert not audit.found, f"{len(audit.found)} serious or critical accessibility violations:\n{listed}"

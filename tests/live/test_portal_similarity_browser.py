"""Similar hand-ins in headless Chromium, against a real ``serve``: an instructor follows the pair a
renamed copy of working_game makes from the section to the side-by-side view, which at a desktop's
width shows the two files side by side and at a phone's one above the other, with the shared
stretches marked and nothing to scroll sideways but the code itself (a screenshot of each is kept
in the test's folder).

Needs Django and waitress (the web extra), copydetect, the ``selenium`` package, Chromium and
chromedriver; where one is missing the tests are skipped with the reason.
"""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")
pytest.importorskip("copydetect", reason="similar hand-ins need copydetect (the web extra)")

from portal_http import Tables, file_form, one_time_passwords, served  # noqa: E402
from similar_hand_ins import COPY, HONEST, OTHER_HONEST, REFERENCE  # noqa: E402
from support import PROJECT  # noqa: E402

WIDTHS = [pytest.param((1280, 900), id="desktop"), pytest.param((390, 844), id="phone")]
HAND_INS = {"ann": REFERENCE, "ben": COPY, "cat": HONEST, "dan": OTHER_HONEST}


def grader(*args) -> str:
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=PROJECT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory, portal_database):
    """A portal (no grading: only the files matter here) where four students handed working_game
    in through the API, ben's a renamed copy of ann's; (its URL, the instructor's password)."""
    folder = tmp_path_factory.mktemp("similar")
    database = portal_database.options()  # (each call makes a fresh database: ask once)
    where = ["--data", str(folder / "data"), *database]
    roster = folder / "roster.csv"
    roster.write_text("username,role\n" + "".join(f"{n},student\n" for n in HAND_INS) + "teach,instructor\n")
    made = grader("users", "import", str(roster), *where)
    first = one_time_passwords(made)
    Tables(folder / "data", database).passwords_chosen()
    tokens = dict(re.findall(r"^(\S+) (\S+)$", grader("users", "token", *HAND_INS, *where), re.M))
    with served([*where, "--no-grading"], PROJECT) as url:
        for name, text in HAND_INS.items():
            body, kind = file_form("working_game", text)
            headers = {"Content-Type": kind, "Authorization": f"Token {tokens[name]}"}
            with urllib.request.urlopen(urllib.request.Request(f"{url}/api/submissions", body, headers)) as answer:
                assert answer.status == 202, answer.read()
        yield url, first["teach"]


def page_width(browser):
    return browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")


@pytest.mark.parametrize("size", WIDTHS)
def test_an_instructor_reads_a_pair_side_by_side(site, browser, size, tmp_path):
    url, password = site
    browser.set_window_size(*size)
    browser.delete_all_cookies()
    browser.get(f"{url}/login/")
    browser.find_element("id", "id_username").send_keys("teach")
    browser.find_element("id", "id_password").send_keys(password)
    browser.find_element("css selector", "main button[type=submit]").click()
    browser.get(f"{url}/teach/similar/")
    pairs = browser.find_element("id", "similar").text
    assert "ann and ben: 100% alike" in pairs and "cat and" not in pairs and "and cat" not in pairs
    width, inner = page_width(browser)
    assert width <= inner, f"the section is {width} px wide in a {inner} px window"
    browser.save_screenshot(str(tmp_path / f"similar-section-{size[0]}.png"))
    browser.find_element("link text", "ann and ben").click()
    assert re.search(r"/teach/similar/\d+/\d+/$", browser.current_url), browser.current_url
    width, inner = page_width(browser)
    assert width <= inner, f"the pair's page is {width} px wide in a {inner} px window"
    figures = browser.find_elements("css selector", ".pair figure")
    assert len(figures) == 2
    (left, right) = (figure.rect for figure in figures)
    if size[0] >= 1000:  # side by side, each half the page
        assert abs(left["y"] - right["y"]) < 2 and right["x"] >= left["x"] + left["width"]
    else:  # one above the other, each the page's width
        assert right["y"] >= left["y"] + left["height"] and abs(left["x"] - right["x"]) < 2
    for figure in figures:
        assert figure.rect["x"] + figure.rect["width"] <= inner + 1
        assert len(figure.find_elements("css selector", "pre.code mark")) >= 3
    shot = tmp_path / f"similar-pair-{size[0]}.png"  # looked at by hand: tests/live keeps the last runs
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000

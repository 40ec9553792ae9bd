"""The live tier: the portal served for real (``serve`` and the commands beside it, each in a process
of its own, on SQLite or the session's PostgreSQL) and pages in a real headless Chromium.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package for the browser
(``.ci/run`` installs them as root); where one is missing, the tests that need it are skipped with
the reason: tests never install system packages.
"""

from __future__ import annotations

import pytest
from support import CHROMIUM_FLAGS, find_browser


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium driven by Selenium, of the module's own (its own profile: no cookie of
    another module's), 1200 × 900, logging every network request it makes."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="the selenium package is not installed")
    chromium, driver_path = find_browser()
    if not chromium:
        pytest.skip("no Chromium here: install the Debian package chromium (.ci/run does, as root)")
    if not driver_path:
        pytest.skip("no chromedriver here: install the Debian package chromium-driver (.ci/run does, as root)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    driver.set_window_size(1200, 900)
    yield driver
    driver.quit()

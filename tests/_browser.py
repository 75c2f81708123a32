"""The headless Chromium the browser tests drive (tests/play/test_viewer.py, the hand viewer;
tests/analysis/test_review.py, the review's page): Selenium with Debian's ``chromium`` and
``chromium-driver``, which ``.ci/run`` installs when missing.  Without them the tests skip,
naming what is missing; with ``CI`` set a missing browser is a failure.  Import the fixture
by name: ``from _browser import browser``.
"""
from __future__ import annotations

import os

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="module")
def browser():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package (pip install -e '.[browser]')")
    if missing:
        why = ("the browser test needs " + ", ".join(missing)
               + " (apt-get install chromium chromium-driver)")
        if _ci():
            pytest.fail(why + "; CI is set, so a missing browser is a failure (see .ci/run)")
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--disable-extensions", "--no-first-run"):
        options.add_argument(a)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the system chromedriver: Selenium Manager is never asked to download anything
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()

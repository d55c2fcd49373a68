"""Debian's chromium for the tests that look at pages in a real browser: where it is, and
the flags it starts with here (no sandbox as root; nothing that calls the network, which
this machine's closed network refuses)."""

from __future__ import annotations

import os
import shutil

import pytest

FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium() -> str:
    """The browser's path; the test skips without one, and fails under CI (`.ci/run`
    installs Debian's chromium package)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found

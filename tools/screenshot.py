"""Developer tool: open a page of smarteval's in headless Chromium, for its DOM or a screenshot.

The browser test of ``diff -f html`` (tests/test_diff.py) calls these functions, and
README's picture of the page is made with them::

    smarteval diff -f html sample_data/qrels.txt sample_data/bm25.run \
        sample_data/dense.run -o docs/diff.html
    python tools/screenshot.py docs/diff.html -o docs/diff.png

Chromium is started headless, without a sandbox (it runs as root in CI), a GPU, network
services of its own, or a profile of the user's (a fresh one in a temporary folder), and
stopped after ``timeout`` seconds at the latest.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The browsers looked for, in order.
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--hide-scrollbars")


def browser() -> str | None:
    """The path of a Chromium on PATH, or None."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def _run(page: Path, extra: list[str], timeout: float) -> subprocess.CompletedProcess:
    found = browser()
    if found is None:
        raise RuntimeError("no Chromium on PATH (" + ", ".join(BROWSERS) + ")")
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([found, *FLAGS, f"--user-data-dir={profile}", *extra,
                               Path(page).resolve().as_uri()], capture_output=True,
                              timeout=timeout, check=True, stdin=subprocess.DEVNULL)


def dump_dom(page: Path, timeout: float = 60) -> str:
    """The page's DOM as Chromium serialises it once loaded."""
    return _run(page, ["--dump-dom"], timeout).stdout.decode("utf-8")


def screenshot(page: Path, png: Path, width: int = 1200, height: int = 1400,
               timeout: float = 60) -> None:
    """A PNG of the top ``width`` x ``height`` pixels of the page."""
    png = Path(png).resolve()
    _run(page, [f"--window-size={width},{height}", f"--screenshot={png}"], timeout)
    if not png.exists():
        raise RuntimeError(f"Chromium wrote no screenshot to {png}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("-o", "--output", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=1400)
    args = parser.parse_args(argv)
    screenshot(args.page, args.output, args.width, args.height)
    return 0


if __name__ == "__main__":
    sys.exit(main())

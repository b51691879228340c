"""Render every HTML report soan writes and screenshot it in headless Chromium.

    python docs/screenshots.py            # all reports into docs/screenshots/
    python docs/screenshots.py verify     # only some of them

Each report is made by the soan command a designer would type (fixed seeds,
so the pictures change only when soan or the specs do), written as
docs/screenshots/<report>.html, and photographed as <report>.png by the
Chromium of the operating system's packages.  Look at the pictures after a
change to a report: plots with axes, units and legends, and Japanese text as
Japanese, not boxes.

Needs (Debian/Ubuntu): apt-get install chromium fonts-noto-cjk
(fonts-noto-cjk holds the Japanese glyphs the reports' font stack asks for
first; without any CJK font, Japanese titles show as boxes).  CI needs
neither: the tests check the HTML itself and never start a browser.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
SPECS = Path("specs")  # the commands run in a scratch folder holding a link to the checkout's specs/

# report name -> (soan arguments writing OUT/<name>.html, window height in pixels); a command that gains an
# HTML report gets an entry here, so its picture is made with the others
REPORTS = {
    "diff": (["diff", SPECS / "kitano-19.soan", SPECS / "kitano-20.soan", "--players", "3", "--games", "200",
              "--verify", "--verify-games", "20"], 2000),
    "rulings": (["rulings", SPECS / "kitano-20.soan", "--players", "3", "--games", "100"], 2200),
    "verify": (["verify", SPECS / "kitano-20.soan", "--players", "3", "--games", "40"], 1600),
    "balance": (["balance", SPECS / "kitano-20.soan", "--players", "3", "--games", "12"], 2000),
}
WIDTH = 1200


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def render(name: str, work: Path) -> Path:
    """Run the soan command that writes the report; returns the HTML file."""
    args, _height = REPORTS[name]
    html = OUT / f"{name}.html"
    cmd = [sys.executable, "-m", "soan", *map(str, args), "--html", str(html)]
    print("$ soan " + " ".join(str(a) for a in cmd[3:]), flush=True)
    # run where specs/ is a link to the checkout's, so the pages show the paths a designer types
    # (specs/kitano-20.soan, soan-witnesses/...), and witness logs stay out of the checkout
    if not (work / "specs").exists():
        (work / "specs").symlink_to(ROOT / "specs", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if done.returncode not in (0, 1):  # 1: verify found problems or unknowns, which the report shows
        raise SystemExit(f"soan {name} failed (exit {done.returncode}):\n{done.stderr}")
    return html


def shoot(browser: str, html: Path, png: Path, height: int) -> None:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--hide-scrollbars", f"--user-data-dir={profile}", f"--screenshot={png}",
               f"--window-size={WIDTH},{height}", html.as_uri()]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    if done.returncode != 0 or not png.is_file():
        raise SystemExit(f"Chromium could not screenshot {html}:\n{done.stderr[-2000:]}")
    print(f"  -> {png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}", flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("reports", nargs="*", metavar="REPORT", help="which reports (default all): " + ", ".join(REPORTS))
    args = p.parse_args(argv)
    unknown = [r for r in args.reports if r not in REPORTS]
    if unknown:
        p.error(f"unknown report {', '.join(unknown)}; reports: {', '.join(REPORTS)}")
    browser = chromium()
    if browser is None:
        print("no Chromium found; install it with: apt-get install chromium fonts-noto-cjk", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for name in args.reports or list(REPORTS):
            html = render(name, Path(work))
            shoot(browser, html, OUT / f"{name}.png", REPORTS[name][1])
    return 0


if __name__ == "__main__":
    sys.exit(main())

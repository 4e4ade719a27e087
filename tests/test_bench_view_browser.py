"""`kopa bench view` in headless Chromium (Debian's package, driven by Playwright; `nox -s browser`): the table
filters, a click from the table into an episode and back, a records page opened, and a screenshot of each page
kind (written to $KOPA_SCREENSHOTS when set). The pages are opened from disk (file://), no server."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kopa.cli import main
from kopa.eval.runner import read_scores

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (nox -s browser)")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "run"
    for command in (["bench", "run", "--policy", "first_page_only", "-n", "1", "--policy-seeds", "0,1",
                     "--only", "finance-001,law,traffic-002", "--out", str(out)], ["bench", "view", str(out)]):
        result = CliRunner().invoke(main, command, prog_name="kopa")
        assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser.new_page(viewport={"width": 1400, "height": 900})
        browser.close()


def _shot(page, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000  # a rendered page, not a blank one
    if os.environ.get("KOPA_SCREENSHOTS"):
        Path(os.environ["KOPA_SCREENSHOTS"]).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(os.environ["KOPA_SCREENSHOTS"]) / name)


def _visible_rows(page) -> int:
    return page.locator("#episodes tbody tr:visible").count()


def test_the_filters_show_the_episodes_they_name(site, page, tmp_path):
    scored = read_scores(site)
    page.goto((site / "view" / "index.html").as_uri())
    assert _visible_rows(page) == len(scored)
    _shot(page, tmp_path, "view-table.png")
    page.select_option("select[name=verdict]", "fail")
    failed = [e for e in scored if not e.score.passed]
    assert 0 < _visible_rows(page) == len(failed) < len(scored)
    assert page.inner_text("#shown") == str(len(failed))
    page.select_option("select[name=seed]", "1")
    assert _visible_rows(page) == sum(e.seed == 1 for e in failed)
    page.select_option("select[name=verdict]", "")
    page.select_option("select[name=seed]", "")
    page.select_option("select[name=domain]", "law")
    assert _visible_rows(page) == sum(e.domain == "law" for e in scored)


def test_a_click_in_the_table_opens_the_episode_and_its_records(site, page, tmp_path):
    scored = read_scores(site)
    page.goto((site / "view" / "index.html").as_uri())
    page.select_option("select[name=verdict]", "fail")
    first = next(e for e in scored if not e.score.passed)
    page.locator("#episodes tbody tr:visible a").first.click()
    page.wait_for_load_state()
    assert page.url.endswith(f"/episodes/{first.task_id}.s{first.seed}.r{first.rollout}.html")
    assert first.task_id in page.inner_text("h1")
    assert page.locator(".call").count() == first.calls
    assert page.get_by_text("Golden trajectory").is_visible()
    summary = page.locator("details > summary", has_text="records").first
    records = summary.locator("xpath=..").locator("pre")
    assert not records.is_visible()
    summary.click()
    assert records.is_visible() and records.inner_text().strip().startswith("[")
    _shot(page, tmp_path, "view-episode.png")
    page.get_by_text("← all episodes").click()
    page.wait_for_load_state()
    assert page.url.endswith("/view/index.html")

"""The stylesheets parsed at one start are kept in zizou's cache dir and handed back to Textual
at the next, which then parses nothing it parsed before and styles the app the same."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import textual.css.stylesheet
from textual.css.stylesheet import Stylesheet
from ui_harness import scripted_session, settle
from waiting import until

from zizou.ui.app import ZizouApp
from zizou.ui.parsed_styles import ParsedStyles


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each stylesheet source Textual parses from its text, by where it was read from."""
    seen: list[str] = []
    parse = textual.css.stylesheet.parse

    def counting(scope: str, css: str, read_from: Any, **kwargs: Any) -> Any:
        seen.append(str(read_from))
        return parse(scope, css, read_from, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counting)
    yield seen


def styled_with(app: ZizouApp) -> list[tuple[object, ...]]:
    """Every rule the app is styled with: its selectors, declarations and precedence."""
    return [
        (
            rule.selector_names,
            repr(rule.styles.get_rules()),
            rule.is_default_rules,
            rule.tie_breaker,
        )
        for rule in app.stylesheet.rules
    ]


async def start(project: Path, folder: Path) -> tuple[list[tuple[object, ...]], list[str]]:
    """Run the app to its first frame and until what it keeps is written: the rules it styled
    with and the files in `folder`."""
    session, approver = scripted_session(project)
    app = ZizouApp(session, approver, fade=False, styles=ParsedStyles(folder))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: not app.workers or all(w.is_finished for w in app.workers), "workers")
        await settle(pilot)
        return styled_with(app), sorted(path.name for path in folder.glob("*.pickle"))


async def test_a_second_start_parses_nothing_and_styles_the_same(
    tmp_path: Path, parses: list[str]
) -> None:
    folder = tmp_path / "cache" / "styles"
    first_css, kept = await start(tmp_path, folder)
    assert any("app.tcss" in source for source in parses)
    assert len(kept) == 1
    assert (folder / kept[0]).stat().st_mode & 0o077 == 0

    parses.clear()
    second_css, kept_after = await start(tmp_path, folder)
    assert parses == []
    assert second_css == first_css
    assert len(first_css) > 100
    assert kept_after == kept


async def test_rules_kept_for_other_variables_are_not_used(
    tmp_path: Path, parses: list[str]
) -> None:
    """A file whose contents were made with other variables (a theme's colours, say) is
    parsed past, never taken for this theme's."""
    folder = tmp_path / "styles"
    await start(tmp_path, folder)
    [path] = folder.glob("*.pickle")
    made_by, entries = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps((made_by.replace(b"#", b"%"), entries)))
    parses.clear()
    await start(tmp_path, folder)
    assert any("app.tcss" in source for source in parses)


@pytest.mark.parametrize("damage", ["torn", "shared"])
async def test_a_torn_or_shared_file_is_parsed_past_and_written_anew(
    tmp_path: Path, parses: list[str], damage: str
) -> None:
    folder = tmp_path / "styles"
    await start(tmp_path, folder)
    [path] = folder.glob("*.pickle")
    if damage == "torn":
        path.write_bytes(path.read_bytes()[:1000])
    else:
        path.chmod(0o666)  # anyone may write it: it could hold anything
    parses.clear()
    _, kept = await start(tmp_path, folder)
    assert any("app.tcss" in source for source in parses)
    assert kept == [path.name]
    assert path.stat().st_mode & 0o077 == 0
    parses.clear()
    await start(tmp_path, folder)
    assert parses == []


def test_a_cache_dir_that_cannot_be_written_costs_only_the_next_parse(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    styles = ParsedStyles(blocked / "styles")
    sheet = Stylesheet()
    sheet.add_source("Screen { color: red; }", read_from=("x.tcss", ""))
    sheet.parse()
    unsaved = styles.unsaved(sheet)
    assert unsaved is not None
    assert ParsedStyles.save(*unsaved) is False
    assert styles.restore(Stylesheet()) == 0

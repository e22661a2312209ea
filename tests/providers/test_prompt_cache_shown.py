"""Where the prompt cache counts are shown: the headless JSON result always carries them; the
debug log and the sidebar mention the cache only when a call used it, so providers without
caching read as before."""

from __future__ import annotations

from zizou.contracts.events import StepFinished, TurnFinished, Usage
from zizou.headless import result_object
from zizou.trace.event_records import event_record, usage_summary
from zizou.ui.widgets.sidebar import SidebarInfo, sidebar_text

CACHED = Usage(12_000, 300, 0.01, cache_read_tokens=9_000, cache_write_tokens=2_500)
PLAIN = Usage(1_200, 30, None)


def test_the_json_result_has_both_cache_counts() -> None:
    done = TurnFinished("done", "ok", 2, CACHED)
    assert result_object(done, "s", 1.0, [])["usage"] == {
        "input_tokens": 12_000,
        "output_tokens": 300,
        "cache_read_tokens": 9_000,
        "cache_write_tokens": 2_500,
    }
    plain = result_object(TurnFinished("done", "ok", 1, PLAIN), "s", 1.0, [])["usage"]
    assert (plain["cache_read_tokens"], plain["cache_write_tokens"]) == (0, 0)


def test_the_debug_log_names_the_cache_only_when_used() -> None:
    assert event_record(StepFinished(1, CACHED, "stop")) == (
        "STEP-FINISH step 1, finish_reason=stop, 12,000 in / 300 out tokens "
        "(cache: 9,000 read, 2,500 written), $0.010000\n"
    )
    assert event_record(StepFinished(1, PLAIN, "stop")) == (
        "STEP-FINISH step 1, finish_reason=stop, 1,200 in / 30 out tokens, cost unknown\n"
    )
    summary = usage_summary(TurnFinished("done", "ok", 2, CACHED))
    assert "input tokens:   12,000\n  cache read:   9,000\n  cache write:  2,500\n" in summary
    assert "cache" not in usage_summary(TurnFinished("done", "ok", 1, PLAIN))


def test_the_sidebar_shows_a_cache_line_only_when_used() -> None:
    shown = sidebar_text(SidebarInfo(input_tokens=12_000, cache_read_tokens=9_000)).plain
    assert "cache\n9.0k read · 0 written\n" in shown
    assert "cache" not in sidebar_text(SidebarInfo(input_tokens=12_000)).plain

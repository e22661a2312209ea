"""`/config` shows the settings the session started with and where each came from, as `zizou
config` prints them: a flag, the user's config.toml, the default; keys masked."""

from __future__ import annotations

import re
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.ui.widgets.messages import Notice


def said(app: object) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))  # type: ignore[attr-defined]


async def test_config_lists_each_setting_and_where_it_came_from(
    make_app: MakeApp, zizou_home: Path
) -> None:
    app = make_app(options={"max_steps": 7, "origins": {"max_steps": "flag"}})
    async with app.run_test(size=(140, 60)) as pilot:
        await settle(pilot)
        await send(pilot, "/config")
        await settle(pilot, lambda: "max_steps" in said(app))
        text = re.sub(" +", " ", said(app))
        assert "max_steps 7 flag" in text
        assert "model scripted default" in text
        assert "sandbox auto (" in text
        assert "`zizou config` prints this table too" in text

"""The maps of a small many-language project, pinned as rendered before the cold map streamed its
tags into the graph: how the graph is put together (in a pool, file by file as batches come back,
after an edit, from the cache) must not change a byte of what the model is shown.

`maps_pinned.json` was written by `_maps` on the code before that change; regenerate it only for a
change meant to alter the maps (and bump mapper.MAP_VERSION then).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.repomap.conftest import write_project
from zizou.repomap import MapRequest, RepoMap
from zizou.repomap.tokens import EstimateCounter

PINNED = Path(__file__).parent / "fixtures" / "maps_pinned.json"
EXTRA_MODULES = 60  # with the fixture's files, enough for the parse pool
REQUESTS = {
    "plain": MapRequest(max_tokens=1024),
    "small": MapRequest(max_tokens=300),
    "focus models": MapRequest(max_tokens=800, focus=("app/models.py",)),
    "focus views, shown": MapRequest(max_tokens=800, focus=("app/views.py",), show_focus=True),
    "focus java": MapRequest(max_tokens=600, focus=("polyglot/Repository.java",)),
    "message": MapRequest(max_tokens=700, message="why does refund call load_user in views.py?"),
    "identifiers": MapRequest(max_tokens=700, identifiers=("Database", "Thing7")),
}
EDITED = "app/db.py"
EDITED_TEXT = (
    "from app.models import User\n\n\ndef connect_all(user: User) -> list[User]:\n    return []\n"
)
REMOVED = "gen_pkg/mod_003.py"


def _render_all(mapper: RepoMap) -> dict[str, str]:
    return {name: mapper.render(request).text for name, request in REQUESTS.items()}


def _maps(root: Path) -> dict[str, dict[str, str]]:
    """Maps cold in a pool, warm from the cache in a new map, and after an edit and a removal."""
    project = write_project(root, extra_modules=EXTRA_MODULES)

    def mapper() -> RepoMap:
        return RepoMap(project, workers=2, counter=EstimateCounter())

    cold = _render_all(mapper())
    (project / ".zizou" / "cache" / "repomap-renders.bin").unlink(missing_ok=True)
    warm_mapper = mapper()
    warm = _render_all(warm_mapper)
    (project / EDITED).write_text(EDITED_TEXT, encoding="utf-8")
    (project / REMOVED).unlink()
    edited = _render_all(warm_mapper)
    return {"cold": cold, "warm": warm, "edited": edited}


def test_maps_are_those_rendered_before(tmp_path: Path) -> None:
    assert _maps(tmp_path / "project") == json.loads(PINNED.read_text("utf-8"))


if __name__ == "__main__":  # write the pins (see the docstring)
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        PINNED.write_text(json.dumps(_maps(Path(scratch) / "project"), indent=1), "utf-8")

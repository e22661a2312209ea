"""Loading decks from real files: every kind of bad deck is a `file:line: message` problem, and
the good decks around it still load; overrides, embeds, actions and the Python-deck trust gate."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zizou.decks.files import BUILTIN_DIR, PROJECT_DECKS
from zizou.decks.loader import load_deck_file, load_decks
from zizou.decks.refs import resolve
from zizou.decks.spec import BUILTIN_TOOL_NAMES, DECK_TOOLS, STRING_SCHEMA, DeckSet
from zizou.errors import UsageError
from zizou.hooks.runtime import HookSource
from zizou.hooks.sources import TrustStore

SCHEMAS = (
    "input:\n  type: object\n  properties:\n    name: {type: string}\n  required: [name]\n"
    "output: string\n"
)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hello_world"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / PROJECT_DECKS).mkdir(parents=True)
    return root


@pytest.fixture
def config(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    (folder / "decks").mkdir(parents=True)
    return folder


def write(folder: Path, name: str, front: str, body: str = "Do the thing.") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}---\n{body}\n", encoding="utf-8")
    return path


def decks_dir(project: Path) -> Path:
    return project / PROJECT_DECKS


def problems(found: DeckSet) -> list[str]:
    return [f"{p.path.name}:{p.line}: {p.message}" for p in found.problems]


def test_the_shipped_decks_and_hello_world_load_cleanly(project: Path) -> None:
    deck, found = load_deck_file(EXAMPLES / "root.deck.md", project, None)
    assert found.problems == [] and found.warnings == []
    assert deck is not None and deck.origin == "path" and not deck.declared
    assert [a.name for a in deck.actions] == ["greet"]
    greet = found.by_path(EXAMPLES / "greet.deck.md")
    assert greet is not None and greet.tools == () and greet.reads_only
    assert deck.actions[0].description == greet.description
    explore, review = found.get("explore"), found.get("review")
    assert explore is not None and review is not None
    assert explore.origin == "builtin" and explore.guardrails.passes == 12
    assert explore.tool_parameters()["required"] == ["question"]
    assert review.reads_only and [d.name for d in found.tools()] == ["explore", "review"]


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("name: a\ntools: [read_file\n", "YAML error"),
        ("description: x\ncolour: red\n", ":3: unknown key `colour`"),
        ("tools:\n  - read_file\n  - launch_rockets\n", ":4: unknown tool 'launch_rockets'"),
        ("name: read_file\n", ":2: the name read_file is reserved"),
        ("name: zizou_helper\n", ":2: the name zizou_helper starts with `zizou_`"),
        ("description: x\nguardrails:\n  passes: 51\n", ":3: `guardrails.passes`: Input should be"),
        ("guardrails: {depth: 9}\n", ":2: `guardrails.depth`"),
        ("mode: compute\n", ":2: `mode: compute` needs a Python deck"),
        ("input: {type: wrong}\n", ":2: `input` is not a valid JSON Schema"),
        ("activity: Not Snake\n", ":2: the activity 'Not Snake' is not short snake_case"),
    ],
)
def test_a_bad_deck_is_a_problem_at_its_line_and_the_others_load(
    project: Path, front: str, expected: str
) -> None:
    write(decks_dir(project), "bad.deck.md", front)
    write(decks_dir(project), "good.deck.md", "description: Fine.\n")
    found = load_decks(project, None)
    assert "good" in found.decks and "bad" not in found.decks
    assert len(found.problems) == 1, problems(found)
    assert expected in str(found.problems[0])
    assert str(found.problems[0]).startswith(f"{decks_dir(project) / 'bad.deck.md'}:")


def test_a_yaml_error_gives_the_files_line(project: Path) -> None:
    write(decks_dir(project), "bad.deck.md", "name: a\ndescription: b\ntools: [read_file\n")
    (problem,) = load_decks(project, None).problems
    assert problem.line == 4
    assert problem.message.startswith("YAML error")


def test_a_child_without_schemas_fails_its_caller(project: Path) -> None:
    write(decks_dir(project), "greet.deck.md", "output: string\n")
    write(decks_dir(project), "root.deck.md", "actions:\n  - path: greet.deck.md\n")
    found = load_decks(project, None)
    assert problems(found) == [
        "root.deck.md:3: greet is called as an action but declares no input schema "
        "(add `input:` to greet.deck.md)"
    ]
    assert set(found.decks) >= {"greet"} and "root" not in found.decks


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("../../../outside.deck.md", "leads outside the deck folders"),
        ("/etc/passwd.deck.md", "must be relative"),
        ("missing.deck.md", "the action file missing.deck.md does not exist"),
        ("notes.txt", "is not a deck or card file"),
    ],
)
def test_action_paths_stay_in_the_deck_folders(project: Path, path: str, expected: str) -> None:
    (project.parent / "outside.deck.md").write_text(f"---\n{SCHEMAS}---\nx\n")
    write(decks_dir(project), "root.deck.md", f"description: r\nactions:\n  - path: {path}\n")
    found = load_decks(project, None)
    (problem,) = found.problems
    assert problem.line == 4 and expected in problem.message
    assert "root" not in found.decks


def test_a_bad_child_fails_its_caller_naming_it(project: Path) -> None:
    write(decks_dir(project), "child.deck.md", SCHEMAS + "tools: [nope]\n")
    write(decks_dir(project), "root.deck.md", "actions:\n  - path: child.deck.md\n")
    assert sorted(problems(load_decks(project, None))) == [
        "child.deck.md:8: unknown tool 'nope': a deck may use "
        + ", ".join(DECK_TOOLS)
        + ", or an MCP server's tools (mcp__SERVER__TOOL, mcp__SERVER__*)",
        "root.deck.md:3: the action child.deck.md: child.deck.md has problems",
    ]


def test_an_action_cycle_is_a_problem(project: Path) -> None:
    write(decks_dir(project), "a.deck.md", SCHEMAS + "actions: [{path: b.deck.md}]\n")
    write(decks_dir(project), "b.deck.md", SCHEMAS + "actions: [{path: a.deck.md}]\n")
    messages = problems(load_decks(project, None))
    assert any("action cycle: a.deck.md -> b.deck.md -> a.deck.md" in m for m in messages)


def test_duplicate_action_names_are_a_problem(project: Path) -> None:
    write(decks_dir(project), "c.deck.md", SCHEMAS)
    write(
        decks_dir(project),
        "root.deck.md",
        "actions:\n  - path: c.deck.md\n  - {path: c.deck.md, name: c}\n",
    )
    assert problems(load_decks(project, None)) == [
        "root.deck.md:4: two actions are named c: rename one (`name:`)"
    ]


def test_an_embed_cycle_is_a_problem(project: Path) -> None:
    folder = decks_dir(project)
    write(folder, "a.card.md", "embeds: [b.card.md]\n")
    write(folder, "b.card.md", "embeds: [a.card.md]\n")
    write(folder, "deck.deck.md", "embeds: [a.card.md]\n")
    messages = problems(load_decks(project, None))
    assert "b.card.md:2: embed cycle: a.card.md -> b.card.md -> a.card.md" in messages
    assert any(m.startswith("deck.deck.md:2: the embed a.card.md has problems") for m in messages)


def test_embeds_merge_in_order_the_deck_winning(project: Path) -> None:
    folder = decks_dir(project)
    for name in ("one", "two", "three"):
        write(folder, f"{name}.deck.md", SCHEMAS, f"I am {name}.")
    write(folder, "a.card.md", "actions: [{path: one.deck.md, name: pick}]\n", "Card A.")
    write(folder, "c.card.md", "tools: [run_bash]\n", "Card C.")
    write(
        folder,
        "b.card.md",
        "embeds: [c.card.md]\nactions: [{path: two.deck.md, name: pick}, {path: two.deck.md}]\n",
        "Card B.",
    )
    write(
        folder,
        "main.deck.md",
        "tools: [read_file]\nembeds: [a.card.md, b.card.md]\nactions:\n"
        "  - {path: three.deck.md, name: two}\nguardrails: {passes: 10}\n",
        "Main body.",
    )
    found = load_decks(project, None)
    assert found.problems == []
    deck = found.decks["main"]
    assert deck.body == "Main body.\n\nCard A.\n\nCard B.\n\nCard C."
    assert {a.name: a.target.name for a in deck.actions} == {
        "pick": "two.deck.md",
        "two": "three.deck.md",
    }
    assert deck.tools == ("read_file", "run_bash")
    assert not deck.reads_only


def test_tools_beyond_reading_with_few_passes_warn(project: Path) -> None:
    write(decks_dir(project), "doer.deck.md", SCHEMAS + "tools: [run_bash]\n")
    write(decks_dir(project), "boss.deck.md", "actions: [{path: doer.deck.md}]\n")
    found = load_decks(project, None)
    assert found.warnings == [
        "doer has tools and passes=3; a deck with tools usually needs more (guardrails.passes)"
    ]
    assert not found.decks["doer"].reads_only and not found.decks["boss"].reads_only


def test_overrides_are_warned_project_then_user_then_builtin(project: Path, config: Path) -> None:
    write(decks_dir(project), "explore.deck.md", "description: Mine.\n")
    write(config / "decks", "explore.deck.md", "description: Yours.\n")
    write(config / "decks", "review.deck.md", "description: Your review.\n")
    found = load_decks(project, config)
    assert found.decks["explore"].description == "Mine."
    assert found.decks["review"].origin == "user"
    assert len(found.warnings) == 3
    assert found.warnings[0].startswith("the project deck explore (")
    assert "overrides the user's one" in found.warnings[0]
    assert any("overrides the built-in one" in w for w in found.warnings[1:])


def test_a_name_twice_in_one_folder_is_a_problem(project: Path) -> None:
    write(decks_dir(project), "a.deck.md", "name: same\n")
    write(decks_dir(project), "b.deck.md", "name: same\n")
    assert [m.split(": the name")[0] for m in problems(load_decks(project, None))] == [
        "b.deck.md:1"
    ]


def test_a_directory_deck_with_state_and_instructions(project: Path) -> None:
    folder = decks_dir(project) / "planner"
    write(folder, "deck.md", SCHEMAS)
    (folder / "state.schema.json").write_text('{"type": "object"}')
    (folder / "instructions").mkdir()
    deck = load_decks(project, None).decks["planner"]
    assert deck.state_schema == {"type": "object"}
    assert deck.instructions_dir == folder / "instructions"
    assert deck.output_schema == STRING_SCHEMA and deck.output_is_string
    assert deck.tool_parameters() == deck.input_schema


def test_a_symlinked_decks_folder_is_refused(tmp_path: Path, config: Path) -> None:
    project = tmp_path / "project"
    (project / ".zizou").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "evil.deck.md", "description: Evil.\n")
    (project / PROJECT_DECKS).symlink_to(elsewhere)
    write(config / "decks", "mine.deck.md", "description: Mine.\n")
    found = load_decks(project, config)
    assert "evil" not in found.decks and "mine" in found.decks
    (problem,) = found.problems
    assert problem.path.name == "decks" and "symbolic link" in problem.message


def test_a_symlinked_dot_zizou_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write(tmp_path / "elsewhere" / "decks", "evil.deck.md", "description: Evil.\n")
    (project / ".zizou").symlink_to(tmp_path / "elsewhere")
    found = load_decks(project, None)
    assert "evil" not in found.decks
    assert len(found.problems) == 1 and "symbolic link" in found.problems[0].message


def test_a_fifo_an_oversize_file_and_a_symlinked_file_are_refused(
    project: Path, tmp_path: Path
) -> None:
    folder = decks_dir(project)
    os.mkfifo(folder / "pipe.deck.md")
    (folder / "huge.deck.md").write_text("---\ndescription: x\n---\n" + "x" * 300_000)
    write(tmp_path, "target.deck.md", "description: T.\n")
    (folder / "link.deck.md").symlink_to(tmp_path / "target.deck.md")
    write(folder, "good.deck.md", "description: Fine.\n")
    found = load_decks(project, None)
    assert set(found.decks) == {"good", "explore", "review"}
    by_file = {p.path.name: p.message for p in found.problems}
    assert "not a regular file" in by_file["pipe.deck.md"]
    assert "larger than" in by_file["huge.deck.md"]
    assert "symbolic link" in by_file["link.deck.md"]


def test_odd_file_names_are_skipped_with_a_warning(project: Path) -> None:
    write(decks_dir(project), "bad name.deck.md", "description: x\n")
    found = load_decks(project, None)
    assert found.problems == [] and "rename it" in found.warnings[0]


PY_DECK = """\
from pathlib import Path
from pydantic import BaseModel
from zizou.decks.api import Deck

Path({marker!r}).write_text("ran")

class Ask(BaseModel):
    question: str

DECK = Deck(name="asker", description="Asks.", input=Ask, output="string", prompt="Ask it.")
"""


def test_an_untrusted_project_python_deck_never_runs(
    project: Path, tmp_path: Path, config: Path
) -> None:
    marker = tmp_path / "ran"
    path = decks_dir(project) / "asker.deck.py"
    path.write_text(PY_DECK.format(marker=str(marker)))
    found = load_decks(project, config, trust=TrustStore(config))
    assert "asker" not in found.decks and not marker.exists()
    assert found.problems == []
    assert "zizou decks trust asker" in found.warnings[0] and "--trust-hooks" in found.warnings[0]


def test_a_trusted_project_python_deck_runs(project: Path, tmp_path: Path, config: Path) -> None:
    import hashlib

    marker = tmp_path / "ran"
    path = decks_dir(project) / "asker.deck.py"
    path.write_text(PY_DECK.format(marker=str(marker)))
    data = path.read_bytes()
    store = TrustStore(config)
    real = project.resolve() / PROJECT_DECKS / "asker.deck.py"
    name = f"{PROJECT_DECKS}/asker.deck.py"
    digest = hashlib.sha256(data).hexdigest()
    store.trust(HookSource(name, "project", "python", data.decode(), real, digest))
    found = load_decks(project, config, trust=TrustStore(config))
    assert marker.exists() and found.problems == []
    deck = found.decks["asker"]
    assert deck.input_schema == {
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    }
    assert deck.body == "Ask it." and deck.sha256 == digest
    path.write_text(path.read_text() + "\n# changed\n")
    marker.unlink()
    assert "asker" not in load_decks(project, config, trust=TrustStore(config)).decks
    assert not marker.exists()
    assert "asker" in load_decks(project, config, trust_all=True).decks


def test_a_users_python_deck_needs_no_trust_and_errors_name_the_line(
    project: Path, tmp_path: Path, config: Path
) -> None:
    (config / "decks" / "asker.deck.py").write_text(PY_DECK.format(marker=str(tmp_path / "m")))
    (config / "decks" / "broken.deck.py").write_text("X = 1\n\nraise RuntimeError('no')\n")
    (config / "decks" / "empty.deck.py").write_text("X = 1\n")
    found = load_decks(project, config)
    assert "asker" in found.decks
    assert sorted(problems(found)) == [
        "broken.deck.py:3: failed to load: RuntimeError: no",
        "empty.deck.py:1: the module sets no `DECK = Deck(...)` (from zizou.decks.api)",
    ]


def test_resolve_by_name_or_path(project: Path) -> None:
    deck, found = load_deck_file(EXAMPLES / "root.deck.md", project, None)
    assert resolve(found, "explore", project).name == "explore"
    assert resolve(found, str(EXAMPLES / "root.deck.md"), project) == deck
    with pytest.raises(UsageError, match="the decks here are explore, review, root"):
        resolve(found, "nothing", project)


def test_the_tool_names_match_the_registry() -> None:
    from zizou.tools import BUILTIN_MODULES

    assert BUILTIN_TOOL_NAMES == BUILTIN_MODULES


def test_importing_the_loader_stays_light() -> None:
    code = (
        "import sys, zizou.decks.loader; "
        "print(sorted(m for m in ('zizou.tools', 'zizou.hooks.runtime', 'jsonschema') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_builtin_folder_is_in_the_package() -> None:
    assert sorted(p.name for p in BUILTIN_DIR.iterdir()) == ["explore.deck.md", "review.deck.md"]


def test_a_deck_file_given_from_above_the_project_does_not_lift_the_trust_gate(
    project: Path, tmp_path: Path, config: Path
) -> None:
    marker = tmp_path / "ran"
    (decks_dir(project) / "asker.deck.py").write_text(PY_DECK.format(marker=str(marker)))
    above = write(
        project.parent, "mine.deck.md", "actions:\n  - path: project/.zizou/decks/asker.deck.py\n"
    )
    found = load_decks(project, config, trust=TrustStore(config), extra=(above,))
    assert not marker.exists() and "asker" not in found.decks
    assert any("zizou decks trust asker" in warning for warning in found.warnings)


def test_a_project_deck_cannot_reach_into_the_users_folder(project: Path, config: Path) -> None:
    write(config / "decks", "private.deck.md", SCHEMAS + "description: mine\n")
    hops = os.path.relpath(config / "decks" / "private.deck.md", decks_dir(project))
    write(decks_dir(project), "thief.deck.md", f"actions:\n  - path: {hops}\n")
    found = load_decks(project, config)
    assert "thief" not in found.decks
    assert any("leads out of thief.deck.md's own deck folder" in p for p in problems(found))


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("input: &a {type: object}\noutput: *a\n", "YAML aliases"),
        ("input: " + "[" * 70 + "]" * 70 + "\n", "nested more than 64"),
        (
            "input:\n  type: object\n  properties: {q: {$ref: '#/nowhere'}}\noutput: string\n",
            "is not a `#/$defs/NAME` it defines",
        ),
        (
            "input:\n  type: object\n  properties: {q: {$ref: '#/$defs/p'}}\n"
            "  $defs: {p: {type: string, default: {pattern: 'a+'}}}\noutput: string\n",
            "remove `pattern`",
        ),
    ],
)
def test_front_matter_that_could_hang_or_blow_up_is_refused(
    project: Path, front: str, expected: str
) -> None:
    write(decks_dir(project), "bad.deck.md", front)
    found = load_decks(project, None)
    assert "bad" not in found.decks
    assert any(expected in p for p in problems(found)), problems(found)


def test_a_cards_schema_fragment_adds_properties_the_deck_wins(project: Path) -> None:
    folder = decks_dir(project)
    write(
        folder,
        "cited.card.md",
        "input:\n  properties:\n    sources: {type: array, items: {type: string}}\n"
        "    name: {type: integer}\n  required: [sources]\n"
        "output:\n  properties:\n    citations: {type: array}\n",
        "Cite every source you used.",
    )
    write(
        folder,
        "asker.deck.md",
        SCHEMAS.replace("output: string\n", "")
        + (
            "output:\n  type: object\n  properties:\n    answer: {type: string}\n"
            "embeds: [cited.card.md]\n"
        ),
    )
    found = load_decks(project, None)
    asker = found.decks["asker"]
    assert asker.input_schema is not None and asker.output_schema is not None
    assert asker.input_schema["properties"]["name"] == {"type": "string"}  # the deck's own
    assert asker.input_schema["properties"]["sources"]["type"] == "array"
    assert asker.input_schema["required"] == ["name", "sources"]
    assert set(asker.output_schema["properties"]) == {"answer", "citations"}
    assert "Cite every source you used." in asker.body

    write(folder, "plain.deck.md", "embeds: [cited.card.md]\n")
    found = load_decks(project, None)
    assert "plain" not in found.decks
    assert any(
        "adds to `input`, but plain.deck.md declares no object" in p for p in problems(found)
    )

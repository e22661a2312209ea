"""How long loading decks takes in a fresh process, against the 100 ms target.

Writes 100 Markdown decks into a temporary project (each with its own schemas; every fifth
calls two others as actions, every seventh embeds a card), then, each run in a new
`python -c` process so that nothing is cached, times `load_decks` on them and the import of
`zizou.decks.loader`. Prints the medians.

    .venv/bin/python bench/decks_load.py [--decks 100] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_MS = 100.0
SCHEMAS = """\
input:
  type: object
  properties:
    question: {{type: string, description: What deck {index} is asked.}}
    paths: {{type: array, items: {{type: string}}}}
  required: [question]
output:
  type: object
  properties:
    answer: {{type: string, description: What deck {index} found.}}
  required: [answer]
"""
MEASURE = """\
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
from zizou.decks.loader import load_decks
t1 = time.perf_counter()
found = load_decks(Path(sys.argv[1]), None)
t2 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1000, "load_ms": (t2 - t1) * 1000,
                  "decks": len(found.decks), "problems": len(found.problems)}))
"""


def write_project(root: Path, count: int) -> None:
    folder = root / ".zizou" / "decks"
    folder.mkdir(parents=True)
    (folder / "style.card.md").write_text(
        "---\ndescription: House style.\ntools: [grep]\n---\nAnswer in short sentences.\n"
    )
    for index in range(count):
        lines = [SCHEMAS.format(index=index), f"description: Deck number {index}.\n"]
        if index % 5 == 0 and index + 2 < count:
            lines.append(
                f"actions:\n  - path: deck{index + 1}.deck.md\n"
                f"  - {{path: deck{index + 2}.deck.md, name: helper{index}}}\n"
            )
        if index % 7 == 0:
            lines.append("embeds: [style.card.md]\n")
        body = f"You are deck {index}. Read the code, then answer the question.\n" * 5
        (folder / f"deck{index}.deck.md").write_text("---\n" + "".join(lines) + "---\n" + body)


def measure(root: Path) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(root)], capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=100)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        write_project(root, args.decks)
        runs = [measure(root) for _ in range(args.runs)]
    loads = [run["load_ms"] for run in runs]
    imports = [run["import_ms"] for run in runs]
    first = runs[0]
    print(f"{first['decks']:.0f} decks loaded, {first['problems']:.0f} problems")
    print(
        f"load_decks, cold:            median {statistics.median(loads):6.1f} ms  "
        f"(min {min(loads):.1f}, max {max(loads):.1f}; target {TARGET_MS:.0f} ms)"
    )
    print(
        f"import zizou.decks.loader:   median {statistics.median(imports):6.1f} ms  "
        f"(min {min(imports):.1f}, max {max(imports):.1f})"
    )


if __name__ == "__main__":
    main()

"""zizou's repo map beside aider's RepoMap on the same repository: time, memory, tokens, relevance.

    .venv/bin/python bench/repomap.py REPO [--aider-python /tmp/aider-venv/bin/python]
        [--tokens 1024] [--runs 3] [--aider-runs 1] [--relevance 40]

Every measurement runs in a fresh subprocess. "cold" removes the tool's cache first; "warm" is a
new process with the tags cache on disk (for zizou, with the rendered-map memo removed, so it
ranks and renders again; the token counts of the lines it rendered before stay, so it needs no
tokenizer, and "warm, new lines" removes those too, so it loads one); "memo" is zizou's new
process asking for the same map again. The per-step rows are later renders in the same process
(tags in memory: what each agent step costs): a new request (another budget), the same request
again (median of five), and a new focus (the first map's top file pinned), each beside
`git ls-files` timed in that process right after, with the ratio. Times are for the map call,
imports excluded (the CLI's wall time is shown apart); peak RSS is the process's own ru_maxrss,
and for zizou's cold map also its pool workers' (each below the main process).

--relevance N picks N source files spread over the repository, focuses each tool's map on one
at a time (as if the user pinned it), and counts how many of the project files it imports
directly (Python `import`/`from`, Java `import`) appear in the map. aider is driven through its
own RepoMap class, in its own venv, with the same tokenizer (cl100k_base) counting its map.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STEP_ROWS = (
    ("same request (nothing changed)", "step_s"),
    ("new request (another budget)", "rerank_s"),
    ("new focus (the top file pinned)", "refocus_s"),
)
PARALLEL_MIN_FILES = 48  # zizou.repomap.parse: a cold map this big parses in a pool

ZIZOU_DRIVER = r"""
import json, resource, sys, time
started = time.perf_counter()
from pathlib import Path
from zizou.repomap import MapRequest, RepoMap
imported = time.perf_counter()
root, tokens, focus_list = Path(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
mapper = RepoMap(root)
t = time.perf_counter()
first = mapper.render(MapRequest(max_tokens=tokens))
first_s = time.perf_counter() - t
t = time.perf_counter()
mapper.render(MapRequest(max_tokens=tokens - 7))  # a new request: rank and render again
rerank_s = time.perf_counter() - t
steps = []
for _ in range(5):  # the next steps, nothing changed
    t = time.perf_counter()
    mapper.render(MapRequest(max_tokens=tokens - 7))
    steps.append(time.perf_counter() - t)
step_s = sorted(steps)[2]
top = next((line[:-1] for line in first.text.splitlines()[1:] if line.endswith(":")), "")
t = time.perf_counter()
mapper.render(MapRequest(max_tokens=tokens - 7, focus=(top,)))  # a new focus: rank again
refocus_s = time.perf_counter() - t
import subprocess
floor = []
for _ in range(5):  # the floor of listing the project, timed beside the steps
    t = time.perf_counter()
    subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    floor.append(time.perf_counter() - t)
ls_files_s = sorted(floor)[2]
maps = {}
for path in focus_list:
    maps[path] = mapper.render(MapRequest(max_tokens=tokens, focus=(path,))).text
s = first.stats
print(json.dumps({
    "seconds": first_s, "import_s": imported - started, "rerank_s": rerank_s, "step_s": step_s,
    "refocus_s": refocus_s, "ls_files_s": ls_files_s,
    "tokens": s.tokens, "memo": s.memo, "files": s.files, "sources": s.sources,
    "parsed": s.parsed, "definitions": s.definitions, "tokenizer": s.tokenizer,
    "phases": [s.list_s, s.parse_s, s.rank_s, s.render_s],
    "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    "children_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    "maps": maps,
}))
"""

AIDER_DRIVER = r"""
import json, os, resource, subprocess, sys, time
started = time.perf_counter()
import tiktoken
from aider.io import InputOutput
from aider.repomap import RepoMap
imported = time.perf_counter()
root, tokens, focus_list = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
encoding = tiktoken.get_encoding("cl100k_base")

class Model:
    def token_count(self, text):
        return len(encoding.encode(text, disallowed_special=()))

listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True)
files = [os.path.join(root, name) for name in listed.stdout.splitlines()]
io = InputOutput(pretty=False, yes=True, fancy_input=False)
repo_map = RepoMap(map_tokens=tokens, root=root, main_model=Model(), io=io, refresh="always")
t = time.perf_counter()
text = repo_map.get_repo_map([], files) or ""
first_s = time.perf_counter() - t
maps = {}
for rel in focus_list:
    chat = os.path.join(root, rel)
    maps[rel] = repo_map.get_repo_map([chat], [f for f in files if f != chat]) or ""
print(json.dumps({
    "seconds": first_s, "import_s": imported - started, "tokens": Model().token_count(text),
    "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "maps": maps,
}))
"""


def run_driver(python: str, driver: str, repo: Path, tokens: int, focus: list[str]) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if "aider" in driver:
        env["TIKTOKEN_CACHE_DIR"] = tiktoken_dir(python)
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-c", driver, str(repo), str(tokens), json.dumps(focus)],
        capture_output=True,
        text=True,
        env=env,
        cwd=repo,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"driver failed ({python}):\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    return result


def tiktoken_dir(python: str) -> str:
    code = (
        "import importlib.util, os;"
        "print(os.path.join(importlib.util.find_spec('litellm').submodule_search_locations[0],"
        "'litellm_core_utils', 'tokenizers'))"
    )
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def clear_zizou(repo: Path, renders_only: bool = False, counts: bool = False) -> None:
    cache = repo / ".zizou" / "cache"
    if renders_only:
        (cache / "repomap-renders.bin").unlink(missing_ok=True)
        if counts:
            (cache / "repomap-tokens.bin").unlink(missing_ok=True)
    else:
        shutil.rmtree(cache, ignore_errors=True)


def clear_aider(repo: Path) -> None:
    for path in repo.glob(".aider.tags.cache.v*"):
        shutil.rmtree(path, ignore_errors=True)


def cli_wall(repo: Path, tokens: int) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(ROOT / ".venv/bin/zizou"), "map", "--tokens", str(tokens), "-C", str(repo)],
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def measure_zizou(repo: Path, tokens: int, runs: int, focus: list[str]) -> dict:
    python = str(ROOT / ".venv/bin/python")
    cold, warm, memo, new_lines = [], [], [], []
    for _ in range(runs):
        clear_zizou(repo)
        cold.append(run_driver(python, ZIZOU_DRIVER, repo, tokens, []))
        clear_zizou(repo, renders_only=True)
        warm.append(run_driver(python, ZIZOU_DRIVER, repo, tokens, []))
        memo.append(run_driver(python, ZIZOU_DRIVER, repo, tokens, []))
        clear_zizou(repo, renders_only=True, counts=True)
        new_lines.append(run_driver(python, ZIZOU_DRIVER, repo, tokens, []))
    clear_zizou(repo)
    cli_cold = cli_wall(repo, tokens)
    clear_zizou(repo, renders_only=True)
    cli_warm = cli_wall(repo, tokens)
    cli_memo = cli_wall(repo, tokens)
    relevance = run_driver(python, ZIZOU_DRIVER, repo, tokens, focus)["maps"] if focus else {}
    return {
        "cold": cold,
        "warm": warm,
        "memo": memo,
        "new_lines": new_lines,
        "cli": (cli_cold, cli_warm, cli_memo),
        "maps": relevance,
    }


def measure_aider(python: str, repo: Path, tokens: int, runs: int, focus: list[str]) -> dict:
    cold, warm = [], []
    for _ in range(runs):
        clear_aider(repo)
        cold.append(run_driver(python, AIDER_DRIVER, repo, tokens, []))
        warm.append(run_driver(python, AIDER_DRIVER, repo, tokens, []))
    relevance = run_driver(python, AIDER_DRIVER, repo, tokens, focus)["maps"] if focus else {}
    clear_aider(repo)
    return {"cold": cold, "warm": warm, "maps": relevance}


def median(rows: list[dict], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def mb(kb: float) -> float:
    return kb / 1024


# --- relevance: does a map focused on a file show the project files that file imports? ---


def tracked(repo: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def sample_files(files: list[str], count: int) -> list[str]:
    """`count` source files spread evenly over the sorted list (tests and stubs left out)."""
    candidates = [
        f
        for f in files
        if f.endswith((".py", ".java"))
        and not re.search(r"(^|/)(tests?|test-data)/|/__init__\.py$|Tests?\.java$", f)
    ]
    if not candidates or count <= 0:
        return []
    step = max(1, len(candidates) // count)
    return candidates[::step][:count]


def imported_files(repo: Path, rel: str, files: set[str]) -> set[str]:
    text = (repo / rel).read_text(encoding="utf-8", errors="replace")
    if rel.endswith(".java"):
        found = set()
        for name in re.findall(r"^import\s+(?:static\s+)?([\w.]+)\s*;", text, re.MULTILINE):
            parts = name.split(".")
            for cut in (len(parts), len(parts) - 1):  # a class, or a static member's class
                suffix = "/".join(parts[:cut]) + ".java"
                found.update(f for f in files if f.endswith("/" + suffix))
        return found - {rel}
    return python_imports(rel, text, files) - {rel}


def python_imports(rel: str, text: str, files: set[str]) -> set[str]:
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    modules: list[str] = []
    package = rel.rsplit("/", 1)[0].replace("/", ".") if "/" in rel else ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}".strip(".")
            modules.append(base)
            modules += [f"{base}.{alias.name}" for alias in node.names]
    found = set()
    for module in modules:
        path = module.replace(".", "/")
        for candidate in (f"{path}.py", f"{path}/__init__.py"):
            found.update(f for f in files if f == candidate or f.endswith("/" + candidate))
    return {f for f in found if not f.endswith("__init__.py")}


def shown_files(text: str, files: set[str]) -> set[str]:
    shown = set()
    for line in text.splitlines():
        name = line.strip().rstrip(":")
        if name in files:
            shown.add(name)
    return shown


def recall(maps: dict[str, str], repo: Path, files: set[str]) -> tuple[float, int, int, float]:
    """(mean per-file recall, imports found, imports total, mean files per map) over the focused
    files that import something."""
    scores, hits, total, shown = [], 0, 0, []
    for rel, text in sorted(maps.items()):
        wanted = imported_files(repo, rel, files)
        if not wanted:
            continue
        in_map = shown_files(text, files)
        got = len(wanted & in_map)
        shown.append(len(in_map))
        scores.append(got / len(wanted))
        hits += got
        total += len(wanted)
    if not scores:
        return 0.0, 0, 0, 0.0
    return statistics.mean(scores), hits, total, statistics.mean(shown)


# --- the report ---


def report(repo: Path, tokens: int, zizou: dict, aider: dict | None, focus: list[str]) -> None:
    z_cold, z_warm = zizou["cold"], zizou["warm"]
    first = z_cold[0]
    print(
        f"\n{repo.name}: {first['files']} files in the map's view, {first['sources']} parsed, "
        f"{first['definitions']} definitions; budget {tokens} tokens ({first['tokenizer']})"
    )
    rows = [
        ("cold (s)", median(z_cold, "seconds"), aider and median(aider["cold"], "seconds")),
        ("warm (s)", median(z_warm, "seconds"), aider and median(aider["warm"], "seconds")),
        (
            "peak RSS cold (MB)",
            mb(median(z_cold, "rss_kb")),
            aider and mb(median(aider["cold"], "rss_kb")),
        ),
        (
            "peak RSS warm (MB)",
            mb(median(z_warm, "rss_kb")),
            aider and mb(median(aider["warm"], "rss_kb")),
        ),
        ("map tokens", float(first["tokens"]), aider and float(aider["cold"][0]["tokens"])),
    ]
    print(f"  {'':24}{'zizou':>10}{'aider':>10}{'aider/zizou':>13}")
    for label, ours, theirs in rows:
        ratio = f"{theirs / ours:.1f}x" if theirs and ours else "-"
        theirs_text = f"{theirs:10.3f}" if theirs is not None else f"{'-':>10}"
        print(f"  {label:24}{ours:10.3f}{theirs_text}{ratio:>13}")
    phases = [statistics.median(r["phases"][i] for r in z_cold) for i in range(4)]
    print(
        f"  zizou cold phases: list {phases[0]:.3f}, parse {phases[1]:.3f}, "
        f"rank {phases[2]:.3f}, render {phases[3]:.3f} s"
    )
    if first["parsed"] >= PARALLEL_MIN_FILES:
        workers = mb(median(z_cold, "children_rss_kb"))
        print(f"  zizou cold used a parse pool: its workers peaked at {workers:.0f} MB each")
    print(
        f"  zizou warm, new lines (loads the tokenizer): "
        f"{median(zizou['new_lines'], 'seconds'):.3f} s"
    )
    print(f"  zizou memo (same map, new process): {median(zizou['memo'], 'seconds'):.4f} s")
    floor = median(z_warm, "ls_files_s")
    head = f"{'zizou ms':>10}{'git ls-files ms':>17}{'ratio':>8}"
    print(f"  per agent step, in one process{'':10}{head}")
    for label, key in STEP_ROWS:
        ours = median(z_warm, key)
        print(f"    {label:36}{ours * 1000:10.1f}{floor * 1000:17.1f}{ours / floor:7.1f}x")
    cli = zizou["cli"]
    print(
        f"  `zizou map` wall clock: cold {cli[0]:.2f} s, warm {cli[1]:.2f} s, memo {cli[2]:.2f} s "
        f"(imports {median(z_warm, 'import_s'):.2f} s)"
    )
    if focus:
        files = set(tracked(repo))
        ours = recall(zizou["maps"], repo, files)
        line = (
            f"  relevance ({len(focus)} focused files): zizou shows {ours[1]}/{ours[2]} "
            f"direct imports (mean recall {ours[0]:.2f}, {ours[3]:.0f} files per map)"
        )
        if aider:
            theirs = recall(aider["maps"], repo, files)
            line += (
                f"; aider {theirs[1]}/{theirs[2]} (mean recall {theirs[0]:.2f}, "
                f"{theirs[3]:.0f} files per map)"
            )
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--aider-python", help="python of a venv with aider-chat installed")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--aider-runs", type=int, default=1)
    parser.add_argument("--relevance", type=int, default=0, metavar="N")
    args = parser.parse_args()
    repo = args.repo.resolve()
    focus = sample_files(tracked(repo), args.relevance)
    zizou = measure_zizou(repo, args.tokens, args.runs, focus)
    aider = None
    if args.aider_python:
        aider = measure_aider(args.aider_python, repo, args.tokens, args.aider_runs, focus)
    report(repo, args.tokens, zizou, aider, focus)


if __name__ == "__main__":
    main()

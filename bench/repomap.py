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
imports excluded (the CLI's wall time is shown apart); a cold map's tags cache is written after
the map is handed back, and its CPU seconds are counted once it is on disk; peak RSS is the
process's own ru_maxrss, and for zizou's cold map also its pool workers' (each below the main
process), and the memory summed over the processes: the peak of their PSS (a page a forked
worker shares with its parent counted once), sampled from /proc every 5 ms. Each cold map is
followed by its floor: the same sources read, parsed and run through the same tags query on
two processes, nothing else (the issue's "bare parse"), with the ratio, in wall-clock seconds and
in CPU seconds summed over the processes (which a machine busy with other work sways less).

--relevance N picks N source files spread over the repository, focuses each tool's map on one
at a time (as if the user pinned it), and counts how many of three kinds of files appear in the
map: the project files it imports directly (Python `import`/`from`, Java `import`), the
non-test files importing it, and its tests (named after it: test_x.py, x_test.py, x_test.go,
XTest.java, XTests.java, XIT.java, x.spec.ts, x.test.ts; or importing it), side by side for
zizou and aider ("-" when aider is not run). aider is driven through its own RepoMap class, in
its own venv, with the same tokenizer (cl100k_base) counting its map.
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
import threading
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
def cpu():  # this process and its finished children (a parse pool's workers), user + system
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
cpu_before = cpu()
t = time.perf_counter()
first = mapper.render(MapRequest(max_tokens=tokens))
first_s = time.perf_counter() - t  # the map is handed back; its tags are written after it
mapper.wait_for_cache()
written_s = time.perf_counter() - t
first_cpu_s = cpu() - cpu_before  # with the tags written
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
    "seconds": first_s, "written_s": written_s, "cpu_s": first_cpu_s,
    "import_s": imported - started,
    "rerank_s": rerank_s, "step_s": step_s,
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


# The cold map's floor: the same sources (as the map lists them), each read, parsed with its
# tree-sitter grammar and run through the same tags query, on two processes, and nothing more:
# no cache, no counting of what the captures hold, no graph, no ranking.
BARE_PARSE_DRIVER = r"""
import json, resource, sys, time
from multiprocessing import get_context
from pathlib import Path
root = Path(sys.argv[1])

def parse(batch):
    from tree_sitter import QueryCursor
    from zizou.repomap.tags import _parser, _query
    captured = 0
    for rel, language in batch:
        tree = _parser(language).parse((root / rel).read_bytes())
        captured += len(QueryCursor(_query(language)).captures(tree.root_node))
    return captured

if __name__ == "__main__":
    from zizou.repomap.files import list_project_files
    def cpu():
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    cpu_before = cpu()
    started = time.perf_counter()
    sources = [(f.path, f.language) for f in list_project_files(root).sources]
    batches = [sources[i::16] for i in range(16)]
    with get_context("fork").Pool(2) as pool:  # as the map's pool starts its workers
        captured = sum(pool.map(parse, batches))
    print(json.dumps({"seconds": time.perf_counter() - started, "cpu_s": cpu() - cpu_before,
                      "files": len(sources), "captured": captured}))
"""


def bare_parse(repo: Path) -> dict:
    """The floor of the cold map, run as the cold map is: in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", BARE_PARSE_DRIVER, str(repo)],
        capture_output=True,
        text=True,
        cwd=repo,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"bare parse failed:\n{done.stderr[-3000:]}")
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_driver(python: str, driver: str, repo: Path, tokens: int, focus: list[str]) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if "aider" in driver:
        env["TIKTOKEN_CACHE_DIR"] = tiktoken_dir(python)
    started = time.perf_counter()
    with subprocess.Popen(
        [python, "-c", driver, str(repo), str(tokens), json.dumps(focus)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=repo,
    ) as process:
        sampler = MemorySampler(process.pid)
        sampler.start()
        stdout, stderr = process.communicate()
        sampler.stop()
    wall = time.perf_counter() - started
    if process.returncode != 0:
        sys.exit(f"driver failed ({python}):\n{stderr[-3000:]}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    result["pss_peak_kb"] = sampler.peak_kb
    return result


class MemorySampler(threading.Thread):
    """The peak, over the run, of the memory a process and its children (a parse pool's workers)
    hold between them: the sum of their proportional set sizes (PSS, Linux's smaps_rollup),
    which counts a page shared by a forked worker and its parent once, not once per process as
    a sum of RSS would. Sampled every few milliseconds; a sum counts only when the next sample
    is as high, since a process read just before it forks and its child just after count their
    shared pages twice for an instant.
    """

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self._done = threading.Event()

    def run(self) -> None:
        previous = 0
        while not self._done.wait(0.005):
            summed = sum(map(_pss_kb, _tree(self.pid)))
            self.peak_kb = max(self.peak_kb, min(previous, summed))
            previous = summed

    def stop(self) -> None:
        self._done.set()
        self.join()


def _tree(pid: int) -> list[int]:
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending.extend(int(child) for child in children)
    return found


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


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
    cold, bare, warm, memo, new_lines = [], [], [], [], []
    for _ in range(runs):
        clear_zizou(repo)
        cold.append(run_driver(python, ZIZOU_DRIVER, repo, tokens, []))
        bare.append(bare_parse(repo))  # the cold map's floor, in turn with it
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
        "bare": bare,
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


# --- relevance: does a map focused on a file show its imports, its importers and its tests? ---

TEST_PATH = re.compile(
    r"(^|/)(tests?|testing|test-data|__tests__)/|(^|/)test_[^/]*\.py$|_test\.(py|go)$"
    r"|(Tests?|IT)\.(java|kt)$|\.(spec|test)\.[jt]sx?$"
)
RELEVANCE_KINDS = ("imports", "importers", "tests")


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


class ImportGraph:
    """The project's Python and Java files and the project files each imports, read with `ast`
    and a regular expression (not with either tool's parser), and the reverse: who imports whom.
    """

    def __init__(self, repo: Path, files: list[str]) -> None:
        self.files = set(files)
        self._by_suffix: dict[str, list[str]] = {}
        for name in files:  # "a/b/c.py" is found as "c.py", "b/c.py" and "a/b/c.py"
            parts = name.split("/")
            for cut in range(len(parts)):
                self._by_suffix.setdefault("/".join(parts[cut:]), []).append(name)
        self.imports = {
            rel: self._imported(repo, rel) for rel in files if rel.endswith((".py", ".java"))
        }
        self.importers: dict[str, set[str]] = {}
        for rel, imported in self.imports.items():
            for target in imported:
                self.importers.setdefault(target, set()).add(rel)

    def wanted(self, rel: str) -> dict[str, set[str]]:
        """What a map focused on `rel` should show: the project files it imports, the non-test
        files importing it, and its tests (by the usual names, or importing it)."""
        users = self.importers.get(rel, set())
        by_name = {f for f in self.files if f != rel and is_named_test_of(f, rel)}
        return {
            "imports": self.imports.get(rel, set()),
            "importers": {f for f in users if not TEST_PATH.search(f)},
            "tests": by_name | {f for f in users if TEST_PATH.search(f)},
        }

    def _ending(self, suffix: str) -> list[str]:
        return self._by_suffix.get(suffix, [])

    def _imported(self, repo: Path, rel: str) -> set[str]:
        text = (repo / rel).read_text(encoding="utf-8", errors="replace")
        found: set[str] = set()
        if rel.endswith(".java"):
            for name in re.findall(r"^import\s+(?:static\s+)?([\w.]+)\s*;", text, re.MULTILINE):
                parts = name.split(".")
                for cut in (len(parts), len(parts) - 1):  # a class, or a static member's class
                    found.update(self._ending("/".join(parts[:cut]) + ".java"))
        else:
            for module in python_modules(rel, text):
                path = module.replace(".", "/")
                found.update(self._ending(f"{path}.py"))
                found.update(self._ending(f"{path}/__init__.py"))
            found = {f for f in found if not f.endswith("__init__.py")}
        return found - {rel}


def python_modules(rel: str, text: str) -> list[str]:
    """The modules a Python file imports, and `from m import n`'s `m.n` (n may be a module)."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
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
    return modules


def is_named_test_of(test: str, subject: str) -> bool:
    """`test` is named after `subject` by a usual convention (test_x.py, x_test.py, x_test.go,
    XTest.java, XTests.java, XIT.java, x.spec.ts, x.test.ts and the like)."""
    name = test.rsplit("/", 1)[-1]
    stem, _, extension = subject.rsplit("/", 1)[-1].rpartition(".")
    if extension == "py":
        return name in (f"test_{stem}.py", f"{stem}_test.py")
    if extension == "go":
        return name == f"{stem}_test.go"
    if extension in ("java", "kt"):
        return name in {f"{stem}{end}.{extension}" for end in ("Test", "Tests", "IT")}
    if extension in ("ts", "tsx", "js", "jsx"):
        return name in {f"{stem}.{kind}.{extension}" for kind in ("spec", "test")}
    return False


def shown_files(text: str, files: set[str]) -> set[str]:
    shown = set()
    for line in text.splitlines():
        name = line.strip().rstrip(":")
        if name in files:
            shown.add(name)
    return shown


def recall(maps: dict[str, str], graph: ImportGraph) -> dict[str, tuple[float, int, int]]:
    """Per kind (imports, importers, tests): (mean per-file recall, found, total) over the
    focused files that have any of that kind; and "files" (mean files per map, 0, 0)."""
    scores: dict[str, list[float]] = {kind: [] for kind in RELEVANCE_KINDS}
    hits = dict.fromkeys(RELEVANCE_KINDS, 0)
    totals = dict.fromkeys(RELEVANCE_KINDS, 0)
    shown: list[int] = []
    for rel, text in sorted(maps.items()):
        in_map = shown_files(text, graph.files)
        shown.append(len(in_map))
        for kind, wanted in graph.wanted(rel).items():
            if wanted:
                got = len(wanted & in_map)
                scores[kind].append(got / len(wanted))
                hits[kind] += got
                totals[kind] += len(wanted)
    found = {
        kind: (statistics.mean(scores[kind]) if scores[kind] else 0.0, hits[kind], totals[kind])
        for kind in RELEVANCE_KINDS
    }
    found["files"] = (statistics.mean(shown) if shown else 0.0, 0, 0)
    return found


def report_relevance(repo: Path, zizou: dict, aider: dict | None, focus: list[str]) -> None:
    graph = ImportGraph(repo, tracked(repo))
    ours = recall(zizou["maps"], graph)
    theirs = recall(aider["maps"], graph) if aider else None
    files = f"zizou {ours['files'][0]:.0f}" + (
        f", aider {theirs['files'][0]:.0f}" if theirs else ""
    )
    print(f"  relevance ({len(focus)} focused files; files per map: {files})")
    print(f"    {'shown / wanted (mean recall)':28}{'zizou':>18}{'aider':>18}")
    for kind in RELEVANCE_KINDS:
        row = f"    {kind:28}{_recall_cell(ours[kind]):>18}"
        print(row + (f"{_recall_cell(theirs[kind]):>18}" if theirs else f"{'-':>18}"))


def _recall_cell(found: tuple[float, int, int]) -> str:
    mean, hits, total = found
    return f"{hits}/{total} ({mean:.2f})"


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
    cold, floor = median(z_cold, "seconds"), median(zizou["bare"], "seconds")
    print(
        f"  cold map beside its floor (the same {zizou['bare'][0]['files']} sources read, parsed "
        f"and run through the tags query on 2 processes, nothing else): {cold:.2f} s vs "
        f"{floor:.2f} s, ratio {cold / floor:.2f}x   target <= 1.3x"
    )
    print(
        f"    the map is handed back then; its tags cache is on disk at "
        f"{median(z_cold, 'written_s'):.2f} s (written in a thread, counted in the CPU below)"
    )
    cold_cpu, floor_cpu = median(z_cold, "cpu_s"), median(zizou["bare"], "cpu_s")
    print(
        f"    the same in CPU seconds summed over the processes (less swayed by a busy machine): "
        f"{cold_cpu:.2f} vs {floor_cpu:.2f}, ratio {cold_cpu / floor_cpu:.2f}x"
    )
    phases = [statistics.median(r["phases"][i] for r in z_cold) for i in range(4)]
    print(
        f"  zizou cold phases: list {phases[0]:.3f}, parse {phases[1]:.3f}, "
        f"rank {phases[2]:.3f}, render {phases[3]:.3f} s"
    )
    if first["parsed"] >= PARALLEL_MIN_FILES:
        workers = mb(median(z_cold, "children_rss_kb"))
        print(f"  zizou cold used a parse pool: its workers peaked at {workers:.0f} MB RSS each")
    summed = mb(median(z_cold, "pss_peak_kb"))
    print(
        f"  zizou cold memory, summed over its processes (peak PSS): {summed:.0f} MB"
        "   target <= 300 MB"
    )
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
        report_relevance(repo, zizou, aider, focus)


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

"""How often edit_file's engine lands a misquoted edit, and how long an edit takes.

Runs the corpus of tests/tools/test_edit_corpus.py (edits cut from real files, quoted the ways
models misquote code; the same seeded cases the test checks) through the engine, and prints per
kind of misquote how many landed byte for byte, how many were refused, and how many went wrong
(applied, but not as the exact edit would have: must be 0). Ambiguous and absent edits land
when they are refused. For comparison, the engine before tolerant matching: old_string found
exactly once with line endings ignored, or refused. Then the time per edit (the median over the
corpus, each edit's best of a few runs) and the slowest.

Then the classes of `edit_slips` (built from the installed click package): slips the engine
must undo in the lines it writes, and elisions; per class how many were applied as expected,
refused, and wrong (applied otherwise, or applied where it must be refused: must be 0).

    .venv/bin/python bench/edits.py [--seed 16] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

from zizou.tools._atomic import to_lf, with_newline
from zizou.tools._edits import Edit, EditFailed, apply_edits
from zizou.tools._edits.engine import newline_of

ROOT = Path(__file__).resolve().parents[1]


def corpus_module(path: Path = ROOT / "tests" / "tools" / "test_edit_corpus.py") -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


def new_engine(text: str, old: str, new: str) -> str | None:
    try:
        return apply_edits(text, [Edit(old, new)], "bench")[0]
    except EditFailed:
        return None


def old_engine(text: str, old: str, new: str) -> str | None:
    """Exact matching with CRLFs read as LFs, the whole file written in its majority newline."""
    flat, quoted = to_lf(text), to_lf(old)
    if not quoted or flat.count(quoted) != 1:
        return None
    return with_newline(flat.replace(quoted, to_lf(new), 1), newline_of(text))


def verdict(got: str | None, expected: str | None) -> str:
    if got is None:
        return "landed" if expected is None else "refused"
    return "landed" if got == expected else "wrong"


def best_time(text: str, old: str, new: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        new_engine(text, old, new)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    corpus = corpus_module()
    cases = corpus.build_corpus(options.seed)
    now: dict[str, Counter[str]] = {}
    before: dict[str, Counter[str]] = {}
    times: list[float] = []
    for case in cases:
        now.setdefault(case.kind, Counter())[
            verdict(new_engine(case.text, case.old, case.new), case.expected)
        ] += 1
        before.setdefault(case.kind, Counter())[
            verdict(old_engine(case.text, case.old, case.new), case.expected)
        ] += 1
        times.append(best_time(case.text, case.old, case.new, options.runs))
    print(f"{len(cases)} edits from {len(corpus.FILES)} files, seed {options.seed}\n")
    print(f"{'kind':<22}{'edits':>6}{'landed':>9}{'refused':>9}{'wrong':>7}{'before':>9}")
    for kind, counts in now.items():
        total = sum(counts.values())
        print(
            f"{kind:<22}{total:>6}{_rate(counts, total):>9}{counts['refused']:>9}"
            f"{counts['wrong']:>7}{_rate(before[kind], total):>9}"
        )
    recoverable = [k for k in now if k not in corpus.UNRECOVERABLE]
    for label, kinds in (("recoverable", recoverable), ("all", list(now))):
        counts = sum((now[k] for k in kinds), Counter())
        old = sum((before[k] for k in kinds), Counter())
        total = sum(counts.values())
        print(
            f"{label:<22}{total:>6}{_rate(counts, total):>9}{counts['refused']:>9}"
            f"{counts['wrong']:>7}{_rate(old, total):>9}"
        )
    wrong = sum(counts["wrong"] for counts in now.values())
    print(f"\nwrong applies: {wrong} (must be 0)")
    print(
        f"time per edit: median {statistics.median(times) * 1000:.2f} ms, "
        f"90th percentile {statistics.quantiles(times, n=10)[-1] * 1000:.2f} ms, "
        f"slowest {max(times) * 1000:.2f} ms"
    )
    slips(options.seed)


def slips(seed: int) -> None:
    """The slip classes' table: applied (as expected), refused, wrong."""
    built = corpus_module(ROOT / "bench" / "edit_slips.py")
    cases = built.build_slip_cases(seed)
    counts: dict[str, Counter[str]] = {}
    for case in cases:
        got = new_engine(case.text, case.old, case.new)
        if got is None:
            said = "refused"
        elif case.expected is None or case.kind in built.MUST_REFUSE:
            said = "wrong"
        else:
            said = "applied" if got == case.expected else "wrong"
        counts.setdefault(case.kind, Counter())[said] += 1
    print(f"\n{len(cases)} slip edits from the installed click package, seed {seed}\n")
    print(f"{'class':<26}{'edits':>6}{'applied':>9}{'refused':>9}{'wrong':>7}")
    for kind, by in counts.items():
        must = " (must refuse)" if kind in built.MUST_REFUSE else ""
        print(
            f"{kind:<26}{sum(by.values()):>6}{by['applied']:>9}{by['refused']:>9}"
            f"{by['wrong']:>7}{must}"
        )
    wrong = sum(by["wrong"] for by in counts.values())
    print(f"\nwrong applies in the slip classes: {wrong} (must be 0)")


def _rate(counts: Counter[str], total: int) -> str:
    return f"{100 * counts['landed'] / total:.1f}%" if total else "-"


if __name__ == "__main__":
    main()

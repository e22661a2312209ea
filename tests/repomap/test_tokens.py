"""The map is counted with cl100k_base from litellm's bundled file, or estimated and said so."""

from __future__ import annotations

import subprocess
import sys

from zizou.repomap.tokens import (
    CL100K_SHA256,
    EstimateCounter,
    LineCounter,
    _bundled_cl100k,
    _load_ranks,
    default_counter,
    default_counter_name,
    line_key,
)


def test_cl100k_counts_like_tiktoken_without_importing_litellm() -> None:
    code = (
        "import sys; from zizou.repomap.tokens import default_counter; c = default_counter();"
        "print(c.name, c.exact, c.count('def foo(bar):\\n    return 1\\n'));"
        "print('litellm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["cl100k_base", "True", "9", "False"]


def test_the_default_name_is_known_without_loading_the_tokenizer() -> None:
    assert default_counter_name() == default_counter().name == "cl100k_base"


def test_the_estimate_is_a_quarter_of_the_characters() -> None:
    counter = EstimateCounter()
    assert not counter.exact
    assert counter.count("") == 0
    assert counter.count("abcde") == 2


def test_a_line_counter_loads_its_tokenizer_only_for_a_line_it_does_not_know() -> None:
    loads: list[int] = []

    def load() -> EstimateCounter:
        loads.append(1)
        return EstimateCounter()

    counter = LineCounter("estimate", False, load, {line_key("known line\n"): 7})
    assert counter.count("known line\n") == 7 and loads == []
    assert counter.count("abcdefgh\n") == 3 and loads == [1]
    assert counter.count("abcdefgh\n") == 3 and loads == [1]
    assert counter.counted == 1
    # the last used last
    assert list(counter.known) == [line_key("known line\n"), line_key("abcdefgh\n")]


def test_the_bundled_ranks_load_like_tiktoken_loads_them() -> None:
    from tiktoken.load import load_tiktoken_bpe

    path = _bundled_cl100k()
    assert path is not None
    assert _load_ranks(path) == load_tiktoken_bpe(str(path), expected_hash=CL100K_SHA256)

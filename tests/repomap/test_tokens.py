"""The map is counted with cl100k_base from litellm's bundled file, or estimated and said so."""

from __future__ import annotations

import subprocess
import sys

from zizou.repomap.tokens import EstimateCounter, default_counter, default_counter_name


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

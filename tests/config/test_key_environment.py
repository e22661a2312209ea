"""Provider keys leave the environment at start-up: the resolver keeps them in memory, and on
Linux neither `/proc/PID/environ` nor the process memory shows them to another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zizou.config import key_capture
from zizou.config.keys import is_key_variable, loaded_secrets, resolve_key, take_key_variables
from zizou.providers.catalog import PROVIDERS

KEY = "sk-test-captured-0123456789abcd"
OTHER = "sk-test-deepseek-0123456789efgh"

# Runs in a child process: capturing changes the process for good (non-dumpable).
CHILD = """
import ctypes, json, os
from pathlib import Path
from zizou.config.keys import capture_key_environment, resolve_key
from zizou.ui.key_setup import KeyServices

moved = capture_key_environment()
found = resolve_key("openai")
other = resolve_key("deepseek")
rows = {r.provider.id: r.key.source for r in KeyServices().rows("openai/gpt-4o") if r.key}
print(json.dumps({
    "moved": sorted(moved),
    "in_environ": sorted(k for k in os.environ if k.endswith("_API_KEY")),
    "found": [found.value, found.source] if found else None,
    "other": [other.value, other.source] if other else None,
    "wizard": rows,
    "dumpable": ctypes.CDLL(None).prctl(3, 0, 0, 0, 0),
    "proc_environ": Path("/proc/self/environ").read_bytes().decode("latin-1"),
    "child_env": os.popen("env").read(),
}))
"""


def test_every_catalog_variable_is_a_key_variable() -> None:
    names = [p.env_var for p in PROVIDERS if p.env_var]
    assert names and all(is_key_variable(name) for name in names)
    assert is_key_variable("DEEPSEEK_API_KEY")
    assert not is_key_variable("PATH") and not is_key_variable("OPENAI_API_BASE")


def test_taken_variables_leave_the_mapping_and_are_redacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(key_capture, "_captured", {})  # this process's capture stays as it was
    environ = {"OPENAI_API_KEY": KEY, "PATH": "/bin", "TINY_API_KEY": "x"}
    assert take_key_variables(environ) == ("OPENAI_API_KEY", "TINY_API_KEY")
    assert environ == {"PATH": "/bin"}
    assert KEY in loaded_secrets() and "x" not in loaded_secrets()
    found = resolve_key("openai")  # the default environment includes what was taken
    assert found is not None and (found.value, found.source) == (KEY, "env:OPENAI_API_KEY")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc and prctl")
def test_start_up_capture_hides_keys_from_the_environment_and_other_processes(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(OPENAI_API_KEY=KEY, DEEPSEEK_API_KEY=OTHER, ZIZOU_HOME=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["moved"] == ["DEEPSEEK_API_KEY", "OPENAI_API_KEY"]
    assert seen["in_environ"] == []
    assert seen["found"] == [KEY, "env:OPENAI_API_KEY"]
    assert seen["other"] == [OTHER, "env:DEEPSEEK_API_KEY"]
    assert seen["wizard"]["openai"] == "env:OPENAI_API_KEY"  # the key wizard still sees it
    assert seen["dumpable"] == 0
    for secret in (KEY, OTHER):
        assert secret not in seen["proc_environ"]
        assert secret not in seen["child_env"]
    assert "PATH=" in seen["proc_environ"]  # the rest of the block is untouched

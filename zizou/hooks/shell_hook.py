"""Running one hook command of another agent's settings: `bash -c COMMAND` with the event's JSON
on stdin, in the commands' sandbox when the repository brought it, in a process group of its
own, within a time limit.

What it printed and its exit code are read the way Claude Code documents them: exit 0 is
success (stdout may be JSON: `decision`, `reason`, `hookSpecificOutput.permissionDecision`,
`permissionDecisionReason`, `additionalContext`), exit 2 blocks with stderr as the reason, any
other exit (or the time limit) is a failure that blocks nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from zizou.sandbox import Sandbox

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0  # Claude Code's default
MAX_TIMEOUT_S = 600.0
OUTPUT_CHARS = 10_000  # of stdout and of stderr kept

Decision = Literal["block", "allow", "ask"] | None


@dataclass(frozen=True)
class HookOutcome:
    """What one run of a hook command said."""

    code: int | None  # None: it did not finish (time limit) or could not start
    stdout: str
    stderr: str
    problem: str | None = None  # why it failed, in words

    @property
    def reply(self) -> dict[str, Any]:
        """Its stdout as a JSON object, when it printed one on success."""
        if self.code != 0 or not self.stdout.strip().startswith("{"):
            return {}
        with contextlib.suppress(ValueError):
            value = json.loads(self.stdout)
            if isinstance(value, dict):
                return value
        return {}

    @property
    def specific(self) -> dict[str, Any]:
        value = self.reply.get("hookSpecificOutput")
        return value if isinstance(value, dict) else {}

    def decision(self) -> tuple[Decision, str]:
        """What it decided and why: exit 2 blocks with stderr; JSON `decision`
        (block/approve), `permissionDecision` (deny/allow/ask) or `continue: false`."""
        if self.code == 2:
            return "block", self.stderr.strip() or "blocked by a hook (exit code 2)"
        reply, specific = self.reply, self.specific
        reason = str(specific.get("permissionDecisionReason") or reply.get("reason") or "")
        permission = specific.get("permissionDecision")
        if permission == "deny" or reply.get("decision") == "block":
            return "block", reason or "blocked by a hook"
        if reply.get("continue") is False:
            return "block", str(reply.get("stopReason") or reason or "stopped by a hook")
        if permission == "ask":
            return "ask", reason or "a hook asks first"
        if permission == "allow" or reply.get("decision") == "approve":
            return "allow", reason
        return None, reason

    def context(self) -> str:
        """What it adds to the model's context: `additionalContext`, or (for the events whose
        plain output is context) its stdout when it is not JSON."""
        added = self.specific.get("additionalContext")
        if isinstance(added, str) and added.strip():
            return added.strip()
        if self.code == 0 and not self.reply:
            return self.stdout.strip()
        return ""


@dataclass(frozen=True)
class ShellHookRunner:
    """Runs hook commands for one project: sandboxed ones inside `sandbox` (when it is on)."""

    root: Path
    sandbox: Sandbox | None
    env: Mapping[str, str]
    session_id: str = ""

    def payload(self, event: str, **fields: Any) -> dict[str, Any]:
        """The JSON a hook reads on stdin: the fields every event has, then the event's."""
        return {
            "session_id": self.session_id,
            "transcript_path": "",
            "cwd": str(self.root),
            "hook_event_name": event,
            **fields,
        }

    def run(
        self, command: str, payload: Mapping[str, Any], timeout_s: float, *, sandboxed: bool
    ) -> HookOutcome:
        boxed = sandboxed and self.sandbox is not None and self.sandbox.active
        prefix = self.sandbox.prefix() if boxed and self.sandbox is not None else []
        project = str(self.root)
        env = {**self.env, "CLAUDE_PROJECT_DIR": project, "ZIZOU_PROJECT_DIR": project}
        try:
            proc = subprocess.Popen(
                [*prefix, "bash", "-c", command],
                cwd=self.root,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as err:
            return HookOutcome(None, "", "", f"it could not start: {err.strerror or err}")
        data = json.dumps(payload, ensure_ascii=False).encode()
        try:
            out, errors = proc.communicate(data, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            stopped = f"it was stopped after its time limit ({timeout_s:g} s)"
            return HookOutcome(None, "", "", stopped)
        finally:
            _kill_group(proc)  # it, when it outlived its limit, and whatever it left running
        outcome = HookOutcome(proc.returncode, _text(out), _text(errors))
        if proc.returncode not in (0, 2):
            problem = f"it exited with {proc.returncode}: {outcome.stderr.strip()[:300]}"
            return HookOutcome(proc.returncode, outcome.stdout, outcome.stderr, problem)
        return outcome


def timeout_of(entry: Mapping[str, Any]) -> float:
    """A hook's `timeout` (seconds), within zizou's bounds."""
    value = entry.get("timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(min(value, MAX_TIMEOUT_S))
    return DEFAULT_TIMEOUT_S


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")[:OUTPUT_CHARS]


__all__ = ["DEFAULT_TIMEOUT_S", "HookOutcome", "ShellHookRunner", "timeout_of"]

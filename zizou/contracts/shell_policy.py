"""Split shell commands into simple commands and judge whether a saved rule may approve them.

A rule "always allow `git status`" must never approve `git status; rm -rf ~`. So this module
lexes just enough bash (quotes, escapes, control and redirect operators) to split a command, and
never auto-approves what it does not fully understand: substitutions, nested shells, `eval`,
file redirections, subshells, several lines, or text that does not parse. Those always ask.

- Substitution checks run on the raw text, so even a quoted `'$(x)'` asks: cheap and safe.
- Rules compare whole tokens after quote removal: `git status` matches `git status -s`, not
  `git statusx`. Leading assignments are tokens too, so the rule `pytest` does not match
  `FOO=1 pytest` (an assignment such as `LD_PRELOAD=...` changes what runs).
- `#` is never a comment here: seeing more words than bash runs can only make us ask.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = [
    "READ_ONLY_PROGRAMS",
    "UNWIDENABLE_PROGRAMS",
    "ShellParseError",
    "always_ask_reason",
    "covering_rules",
    "matches_rules",
    "read_only_operands",
    "rule_tokens",
    "split_segments",
    "suggest_rules",
    "widenable_program",
]


class ShellParseError(ValueError):
    """The text is not a well-formed command: an unclosed quote, a dangling operator."""


_CONTROLS = frozenset({"&&", "||", "|&", ";", "|", "&"})
_TOKEN = re.compile(
    r"""(?P<space>[ \t]+) | (?P<newline>\n)
    | (?P<single>'[^']*') | (?P<ansi>\$'(?:[^'\\]|\\.)*') | (?P<double>\$?"(?:[^"\\]|\\.)*")
    | (?P<escape>\\.) | (?P<paren>[()])
    | (?P<op>&>>|<<<|<<-|&&|\|\||\|&|&>|>>|>\||>&|<<|<>|<&|[;|&<>])
    | (?P<plain>[^ \t\n'"\\()$;&|<>]+|\$)""",
    re.VERBOSE | re.DOTALL,
)
_UNCLOSED = {
    "'": "unterminated single quote",
    '"': "unterminated double quote",
    "\\": "the command ends with a backslash",
}
_DQ_ESCAPE = re.compile(r'\\([$`"\\\n])')
_NEEDS_RIGHT = frozenset({"&&", "||", "|", "|&"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
_FD = re.compile(r"\d+-?|-")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_RAW_CHECKS = (
    (re.compile(r"[\n\r]"), "spans several lines, and each line runs as its own command"),
    (re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"), "contains control characters"),
    (re.compile(r"\$\("), "uses command substitution `$(...)`"),
    (re.compile(r"`"), "uses backtick command substitution"),
    (re.compile(r"[<>]\("), "uses process substitution `<(...)` or `>(...)`"),
    (re.compile(r"\$\[|\$\{!|\$\{[^}]*[\[@]"), "uses arithmetic, indirect or prompt expansion"),
    (re.compile(r"\$'"), "uses ANSI-C quoting `$'...'`, whose escapes this check does not decode"),
)
_EVALUATORS = frozenset({"eval", "exec", "source", ".", "let", "trap"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh"})
_WRAPPERS = frozenset(
    {"command", "builtin", "env", "nohup", "time", "nice", "sudo", "doas", "xargs", "timeout"}
)
_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprintf", "-fls")
# Tools whose second word names what they do (`git status`); a rule keeps both words.
_SUBCOMMAND_TOOLS = frozenset(
    {"git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "kubectl", "uv", "pip",
     "pip3", "poetry", "make", "gh", "brew", "dotnet", "terraform", "helm", "npx"}
)  # fmt: skip
_SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun", "uv", "poetry"})  # `npm run test`
# Programs too powerful to suggest on their own: the suggestion keeps the whole command.
_NARROW = frozenset(
    {"rm", "rmdir", "mv", "cp", "dd", "ln", "chmod", "chown", "sudo", "doas", "kill", "pkill",
     "killall", "curl", "wget", "ssh", "scp", "rsync", "find", "xargs", "sed", "tee", "truncate",
     "shred", "python", "python3", "node", "perl", "ruby", "env", "nohup", "timeout", *_SHELLS}
)  # fmt: skip


# Programs that no option or argument can make run another program or write a file (nor change
# the system: `date` is left out, `date -s` sets the clock). A prefix rule for one of these
# approves no more than it says, sandbox or not; a rule for any other program (git, make,
# pytest, npm, find, sed, ...) is widened by what the model appends, or by project files it
# wrote (conftest.py, a Makefile), and is accepted only with the sandbox on.
UNWIDENABLE_PROGRAMS = frozenset(
    {"cat", "head", "tail", "wc", "ls", "pwd", "echo", "printf", "true", "false", "which",
     "basename", "dirname", "realpath", "readlink", "test", "[", "seq", "sleep", "uname",
     "whoami", "id", "nproc", "cut", "tr", "nl", "od", "comm", "column", "fold", "rev", "expr",
     "grep", "egrep", "fgrep", "diff", "cmp", "du", "df", "stat", "jq"}
)  # fmt: skip


# What looks at the project and changes nothing: these run without asking when every file they
# name is inside the project (tools/read_only_command.py). A subset of the programs above; `echo`
# and `sleep` read nothing, so a rule for them is still the user's to give.
READ_ONLY_PROGRAMS = frozenset(
    {"cat", "head", "tail", "wc", "ls", "pwd", "which", "basename", "dirname", "realpath",
     "readlink", "uname", "whoami", "id", "nproc", "cut", "nl", "od", "comm", "column", "fold",
     "rev", "grep", "egrep", "fgrep", "diff", "cmp", "du", "df", "stat", "jq", "true", "false"}
)  # fmt: skip
assert READ_ONLY_PROGRAMS <= UNWIDENABLE_PROGRAMS


@dataclass
class _Segment:
    words: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)  # (operator, target)


class _Lexer:
    """One pass over the text: POSIX quoting and escapes, bash control and redirect operators."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.segments: list[_Segment] = []
        self.current = _Segment()
        self.word: list[str] | None = None
        self.quoted = False  # the word holds quoted or escaped characters
        self.pending: str | None = None  # a redirection still waiting for its target
        self.last_op = ""
        self.subshell = False

    def run(self) -> list[_Segment]:
        pos = 0
        while pos < len(self.text):
            match = _TOKEN.match(self.text, pos)
            if match is None:
                raise ShellParseError(_UNCLOSED[self.text[pos]])
            self._token(match.lastgroup or "", match.group())
            pos = match.end()
        self._end_segment(None)
        return self.segments

    def _token(self, kind: str, token: str) -> None:
        if kind == "space":
            self._end_word()
        elif kind == "newline":
            self._end_word()
            if self.current.words or self.current.redirects:
                self._end_segment(";")
        elif kind in ("single", "ansi"):  # `$'...'` is kept undecoded; it always asks
            self._add(token[token.index("'") + 1 : -1], quoted=True)
        elif kind == "double":
            body = token[token.index('"') + 1 : -1]
            self._add(_DQ_ESCAPE.sub(lambda m: m[1].strip("\n"), body), quoted=True)
        elif kind == "escape" and token != "\\\n":  # backslash-newline joins lines
            self._add(token[1], quoted=True)
        elif kind == "paren":
            self.subshell = True
            self._end_word()
        elif kind == "op":
            self._operator(token)
        elif kind == "plain":
            self._add(token, quoted=False)

    def _add(self, chars: str, *, quoted: bool) -> None:
        if self.word is None:
            self.word = []
        self.word.append(chars)
        self.quoted = self.quoted or quoted

    def _end_word(self) -> None:
        if self.word is None:
            return
        text, self.word, self.quoted = "".join(self.word), None, False
        if self.pending is None:
            self.current.words.append(text)
        else:
            self.current.redirects.append((self.pending, text))
            self.pending = None

    def _operator(self, op: str) -> None:
        if op in _CONTROLS:
            self._end_segment(op)
            return
        digits = self.word is not None and "".join(self.word).isdigit()
        if self.pending is None and digits and not self.quoted:
            self.word = None  # the file descriptor, as the 2 in `2>&1`
        self._end_word()
        if self.pending is not None:
            raise ShellParseError(f"`{self.pending}` has no target")
        self.pending = op

    def _end_segment(self, op: str | None) -> None:
        self._end_word()
        if self.pending is not None:
            raise ShellParseError(f"`{self.pending}` has no target")
        if self.current.words or self.current.redirects:
            self.segments.append(self.current)
            self.current = _Segment()
        elif op is not None:
            raise ShellParseError(f"`{op}` has no command before it")
        elif self.last_op in _NEEDS_RIGHT:
            raise ShellParseError(f"the command ends with `{self.last_op}`")
        self.last_op = op or self.last_op


def split_segments(command: str) -> list[list[str]]:
    """The words of each simple command, quotes removed and redirections dropped."""
    return [seg.words for seg in _Lexer(command).run()]


def always_ask_reason(command: str) -> str | None:
    """Why no rule may ever approve this command, as a phrase ("uses ..."), or None."""
    if not command.strip():
        return "is empty"
    for pattern, reason in _RAW_CHECKS:
        if pattern.search(command):
            return reason
    lexer = _Lexer(command)
    try:
        segments = lexer.run()
    except ShellParseError as exc:
        return f"could not be parsed ({exc})"
    if lexer.subshell:
        return "uses a subshell, group or function definition `( ... )`"
    for seg in segments:
        why = _redirect_reason(seg.redirects) or _command_reason(seg.words)
        if why:
            return why
    return None


_GLOB = re.compile(r"[*?\[]")
_EXPANDS = re.compile(r"[$~{]")


def read_only_operands(command: str) -> tuple[list[str], list[str]] | None:
    """For a command that only reads, what it reads: (words that may name files, glob
    patterns among them); None for any other command.

    Only reads: every segment runs one of READ_ONLY_PROGRAMS (no option or argument makes
    them write a file or run a program), with no variable assignment before it, nothing the
    shell expands but globs (`$`, `~`, braces), no redirection but from a file or into
    /dev/null and the like, and nothing that makes it always ask. The caller still checks that
    every operand stays inside the project and names no secret file: a read-only command
    may still read `/etc` or a link out of the project.
    """
    if always_ask_reason(command) is not None:
        return None
    try:
        segments = _Lexer(command).run()
    except ShellParseError:
        return None
    operands: list[str] = []
    for seg in segments:
        words = seg.words
        if not words or _count_assignments(words) or words[0] not in READ_ONLY_PROGRAMS:
            return None
        for word in words[1:]:
            if _EXPANDS.search(word):
                return None
            if word.startswith("-"):
                _, eq, value = word.partition("=")
                if eq and value:
                    operands.append(value)
            else:
                operands.append(word)
        operands += [target for op, target in seg.redirects if target not in _HARMLESS_TARGETS]
    return [w for w in operands if not _GLOB.search(w)], [w for w in operands if _GLOB.search(w)]


def _redirect_reason(redirects: list[tuple[str, str]]) -> str | None:
    for op, target in redirects:
        if op in ("<", "<<<") or target in _HARMLESS_TARGETS:
            continue
        if op in ("<<", "<<-"):
            return "uses a here-document"
        if op in (">&", "<&") and _FD.fullmatch(target):
            continue
        return f"redirects output into a file (`{op}{target}`)"
    return None


def _command_reason(words: list[str]) -> str | None:
    rest = words[_count_assignments(words) :]
    if not rest:
        return None
    name = _basename(rest[0])
    if name in _WRAPPERS:
        inner = next((w for w in rest[1:] if _basename(w) in _EVALUATORS | _SHELLS), None)
        return f"runs `{inner}` through `{name}`" if inner else None
    if name in _EVALUATORS:
        return f"runs `{name}`, which executes text as shell code"
    if name in _SHELLS and (len(rest) == 1 or rest[1].startswith("-")):
        return f"starts a nested shell (`{rest[0]}`) that reads commands from text or stdin"
    if name == "find" and (action := next((w for w in rest if w in _FIND_ACTIONS), None)):
        return f"runs `find {action}`, which runs commands or deletes files"
    return None


def _count_assignments(words: list[str]) -> int:
    return next((n for n, w in enumerate(words) if not _ASSIGNMENT.match(w)), len(words))


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1] if word.rstrip("/") else word


def rule_tokens(prefix: str) -> tuple[str, ...]:
    """The tokens of a saved prefix rule; ShellParseError when it is not one plain command."""
    if any(pattern.search(prefix) for pattern, _ in _RAW_CHECKS):
        raise ShellParseError("a rule cannot contain substitutions or several lines")
    lexer = _Lexer(prefix)
    segments = lexer.run()
    if len(segments) != 1 or segments[0].redirects or lexer.subshell:
        raise ShellParseError("a rule is one command prefix, without operators or redirections")
    return tuple(segments[0].words)


def widenable_program(prefix: str) -> str | None:
    """The program a rule names when its arguments could make it run programs or write files
    (so the rule is accepted only with the sandbox on); None for a rule that cannot widen."""
    try:
        words = rule_tokens(prefix)
    except ShellParseError:
        return prefix
    lead = _count_assignments(list(words))
    if lead or not words:  # `LD_PRELOAD=... cat` runs whatever the variable names
        return words[0] if words else prefix
    return None if words[0] in UNWIDENABLE_PROGRAMS else words[0]


def _tokens_or_none(prefix: str) -> tuple[str, ...] | None:
    try:
        return rule_tokens(prefix) or None
    except ShellParseError:
        return None  # a malformed saved rule approves nothing


def _covering(words: list[str], rules: list[tuple[str, ...]]) -> tuple[str, ...] | None:
    return next((rule for rule in rules if rule and tuple(words[: len(rule)]) == rule), None)


def covering_rules(command: str, prefixes: Iterable[str]) -> tuple[str, ...] | None:
    """The rules that approve `command`: for each segment the first prefix that covers it,
    each named once. None when some segment is not covered or something forces a question."""
    if always_ask_reason(command) is not None:
        return None
    rules: dict[tuple[str, ...], str] = {}
    for prefix in prefixes:
        if rule := _tokens_or_none(prefix):
            rules.setdefault(rule, prefix)
    used: dict[str, None] = {}
    for words in split_segments(command):
        rule = _covering(words, list(rules))
        if rule is None:
            return None
        used[rules[rule]] = None
    return tuple(used)


def matches_rules(command: str, prefixes: Iterable[str]) -> bool:
    """True when every segment starts with some rule's tokens and nothing forces a question."""
    return covering_rules(command, prefixes) is not None


def suggest_rules(command: str, existing: Iterable[str] = ()) -> tuple[str, ...]:
    """The prefixes "always allow" would save so that every segment is covered: one for each
    segment neither `existing` nor an earlier suggestion covers, shortened as `_rule_words`
    says. Empty when no rule could approve the command (it has an always-ask reason) or every
    segment is already covered.
    """
    if always_ask_reason(command) is not None:
        return ()
    rules = [rule for prefix in existing if (rule := _tokens_or_none(prefix))]
    suggested: list[tuple[str, ...]] = []
    for words in split_segments(command):
        if _covering(words, [*rules, *suggested]) is None:
            suggested.append(tuple(_rule_words(words)))
    # a rule another suggestion covers adds nothing: `rm -rf a b; rm -rf a` needs `rm -rf a`
    needed = [s for s in suggested if _covering(list(s), [o for o in suggested if o != s]) is None]
    return tuple(shlex.join(words) for words in needed)


def _rule_words(words: list[str]) -> list[str]:
    """`git status -s` -> `git status`; `npm run test` kept; `pytest -q` -> `pytest`."""
    lead = _count_assignments(words)
    rest = words[lead:]
    if not rest:
        return words
    name, take = _basename(rest[0]), 1
    args = [*rest[1:], ""]
    if name in ("python", "python3") and args[0] == "-m" and args[1]:
        take = 3
    elif name in _NARROW:
        take = len(rest)
    elif name in _SUBCOMMAND_TOOLS and args[0].startswith("-"):
        take = len(rest)  # `git -C dir status`: too irregular to shorten safely
    elif name in _SUBCOMMAND_TOOLS and args[0]:
        runs_script = name in _SCRIPT_RUNNERS and args[0] in ("run", "exec")
        take = 3 if runs_script and args[1] and not args[1].startswith("-") else 2
    return words[: lead + take]

"""Table tests for shell splitting, always-ask reasons, prefix rules and rule suggestions."""

from __future__ import annotations

import pytest

from zizou.contracts.shell_policy import (
    ShellParseError,
    always_ask_reason,
    matches_rules,
    rule_tokens,
    split_segments,
    suggest_rules,
)


@pytest.mark.parametrize(
    ("command", "segments"),
    [
        ("git status", [["git", "status"]]),
        ("git status -s", [["git", "status", "-s"]]),
        ("  git   status  ", [["git", "status"]]),
        ("a && b", [["a"], ["b"]]),
        ("a || b", [["a"], ["b"]]),
        ("a; b", [["a"], ["b"]]),
        ("a;b", [["a"], ["b"]]),
        ("a | b", [["a"], ["b"]]),
        ("a |& b", [["a"], ["b"]]),
        ("a & b", [["a"], ["b"]]),
        ("a&&b||c;d|e&f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]),
        ("sleep 1 &", [["sleep", "1"]]),
        ("git status;", [["git", "status"]]),
        ('echo "a && b"', [["echo", "a && b"]]),
        ("echo 'a;b'", [["echo", "a;b"]]),
        ("echo a\\;b", [["echo", "a;b"]]),
        ("echo a \\&\\& b", [["echo", "a", "&&", "b"]]),
        ("echo a\\|b", [["echo", "a|b"]]),
        ('echo "it\'s"', [["echo", "it's"]]),
        ("echo 'say \"hi\"'", [["echo", 'say "hi"']]),
        ('echo "a\\"b"', [["echo", 'a"b']]),
        ('echo "a\\nb"', [["echo", "a\\nb"]]),
        ("echo ''", [["echo", ""]]),
        ('"git" status', [["git", "status"]]),
        ("g'i't status", [["git", "status"]]),
        ("echo $'a\\'b;c'", [["echo", "a\\'b;c"]]),
        ('echo $"x y"', [["echo", "x y"]]),
        ("git status 2>&1", [["git", "status"]]),
        ("git status >/dev/null", [["git", "status"]]),
        ("git status > /dev/null 2>&1", [["git", "status"]]),
        ("git status &>/dev/null", [["git", "status"]]),
        ("cat < in.txt", [["cat"]]),
        ("echo a2>f", [["echo", "a2"]]),
        ("echo '2'>f", [["echo", "2"]]),
        ("FOO=1 pytest", [["FOO=1", "pytest"]]),
        ("echo $HOME", [["echo", "$HOME"]]),
        ("echo # a ; b", [["echo", "#", "a"], ["b"]]),
        ("a &&\nb", [["a"], ["b"]]),
        ("a\nb", [["a"], ["b"]]),
        ("", []),
        ("   ", []),
    ],
)
def test_split_segments(command: str, segments: list[list[str]]) -> None:
    assert split_segments(command) == segments


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("git status 'unterminated", "single quote"),
        ('echo "open', "double quote"),
        ("echo $'open", "quote"),
        ("git status &&", "ends with `&&`"),
        ("git status ||", "ends with `||`"),
        ("git status |", "ends with `|`"),
        ("&& git status", "no command before"),
        ("; ls", "no command before"),
        ("a ;; b", "no command before"),
        ("a & && b", "no command before"),
        ("echo >", "has no target"),
        ("echo > ; ls", "has no target"),
        ("echo > > f", "has no target"),
        ("echo \\", "backslash"),
    ],
)
def test_split_segments_rejects_malformed(command: str, message: str) -> None:
    with pytest.raises(ShellParseError, match=message):
        split_segments(command)


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("", "empty"),
        ("git status\nrm x", "several lines"),
        ("git status\rrm x", "several lines"),
        ("git status\x00", "control characters"),
        ("git status $(rm -rf ~)", "$(...)"),
        ("git status `id`", "backtick"),
        ("FOO=$(curl x) git status", "$(...)"),
        ('git status "$(id)"', "$(...)"),
        ("echo '$(id)'", "$(...)"),  # conservative: even quoted
        ("echo ${x:-$(id)}", "$(...)"),
        ("echo $((1+2))", "$(...)"),
        ("diff <(ls a) <(ls b)", "process substitution"),
        ("tee >(cat)", "process substitution"),
        ("echo $[1+2]", "arithmetic"),
        ("echo ${a[x]}", "arithmetic"),
        ("echo ${!name}", "indirect"),
        ("echo ${x@P}", "prompt"),
        ("echo $'a\\nb'", "ANSI-C"),
        ("eval git status", "eval"),
        ("exec git status", "exec"),
        ("source env.sh", "source"),
        (". env.sh", "`.`"),
        ("let x=1", "let"),
        ("trap 'rm x' EXIT", "trap"),
        ("bash -c 'git status'", "nested shell"),
        ("sh -c 'git status'", "nested shell"),
        ("zsh -c 'git status'", "nested shell"),
        ("/bin/sh -c ls", "nested shell"),
        ("bash -lc ls", "nested shell"),
        ("curl x | sh", "nested shell"),
        ("git status && curl x | bash", "nested shell"),
        ("bash", "nested shell"),
        ("bash < script.sh", "nested shell"),
        ("env bash -c ls", "through `env`"),
        ("sudo sh -c ls", "through `sudo`"),
        ("xargs -n1 sh -c 'rm $0'", "through `xargs`"),
        ("command eval ls", "through `command`"),
        ("FOO=1 eval ls", "eval"),
        ("find . -exec rm {} ;", "find -exec"),
        ("find . -name '*.pyc' -delete", "find -delete"),
        ("git status > out.txt", "into a file"),
        ("git status >> out.txt", "into a file"),
        ("git status >| out.txt", "into a file"),
        ("git status &> out.txt", "into a file"),
        ("git status &>> out.txt", "into a file"),
        ("git status 2>err.txt", "into a file"),
        ("git status >&out.txt", "into a file"),
        ("git status 1>$F", "into a file"),
        ("git status <> f", "into a file"),
        ("cat <<EOF", "here-document"),
        ("git status 'unterminated", "could not be parsed"),
        ("git status &&", "could not be parsed"),
        ("(rm -rf /)", "subshell"),
        ("git status; (rm x)", "subshell"),
        ("f() { rm x; }", "subshell"),
    ],
)
def test_always_ask_reason(command: str, fragment: str) -> None:
    reason = always_ask_reason(command)
    assert reason is not None
    assert fragment in reason


@pytest.mark.parametrize(
    "command",
    [
        "git status",
        "git status 2>&1",
        "git status >/dev/null",
        "git status > /dev/null 2>&1",
        "git status 2>/dev/null",
        "git status &>/dev/null",
        "git status >&2",
        "git status 2>&-",
        "cat < in.txt",
        "cat <<< 'text'",
        "echo $HOME",
        "echo ${HOME}",
        "FOO=1 pytest",
        "bash scripts/test.sh",
        "find . -name '*.py'",
        "git status; ls | wc -l",
        "echo 'a > b'",
        "echo a\\>b",
        "sleep 1 &",
    ],
)
def test_no_always_ask_reason(command: str) -> None:
    assert always_ask_reason(command) is None


GIT = ("git status", "git diff", "ls", "pytest")


@pytest.mark.parametrize(
    ("command", "prefixes", "expected"),
    [
        ("git status", GIT, True),
        ("git status -s", GIT, True),
        ("git  status", GIT, True),
        ('"git" status', GIT, True),
        ("git statusx", GIT, False),
        ("git stash", GIT, False),
        ("git", GIT, False),
        ("gitx status", GIT, False),
        ("pytest -q tests/", GIT, True),
        ("pytest", GIT, True),
        ("git status && git diff", GIT, True),
        ("git status; ls | pytest", GIT, True),
        ("git status 2>&1", GIT, True),
        ("git status >/dev/null", GIT, True),
        ("git status 2>&1 | ls", GIT, True),
        # every segment must match
        ("git status; rm -rf /", GIT, False),
        ("git status && rm -rf /", GIT, False),
        ("git status || rm -rf /", GIT, False),
        ("git status & rm -rf /", GIT, False),
        ("git status | tee f", GIT, False),
        ("git status && curl x | sh", GIT, False),
        # always-ask wins over a matching rule
        ("git status $(rm -rf ~)", GIT, False),
        ("git status `id`", GIT, False),
        ("eval git status", (*GIT, "eval"), False),
        ("bash -c 'git status'", (*GIT, "bash"), False),
        ("git status > out.txt", GIT, False),
        ("git status\nrm x", GIT, False),
        ("git status 'unterminated", GIT, False),
        ("git status &&", GIT, False),
        ("FOO=$(x) git status", GIT, False),
        ("git status <(ls)", GIT, False),
        ("(git status)", GIT, False),
        ("git $'status'", GIT, False),
        ("find . -delete", ("find",), False),
        # quoting keeps operators inside one segment
        ('ls "a && b"', GIT, True),
        ("ls 'a;b'", GIT, True),
        ("ls a\\;rm", GIT, True),
        ("ls a \\&\\& rm x", GIT, True),
        # assignments are tokens, so they do not match a bare program rule
        ("FOO=1 pytest", GIT, False),
        ("LD_PRELOAD=x.so git status", GIT, False),
        ("FOO=1 pytest -q", ("FOO=1 pytest",), True),
        # multi-token and odd rules
        ("npm run test -- -w", ("npm run test",), True),
        ("npm run testx", ("npm run test",), False),
        ("npm run", ("npm run test",), False),
        ("git status", (), False),
        ("git status", ("",), False),
        ("git status", ("git status && rm",), False),
        ("git status", ("git $(x)",), False),
        ("git log --oneline", ("git 'log'",), True),
        ("", GIT, False),
        ("   ", GIT, False),
    ],
)
def test_matches_rules(command: str, prefixes: tuple[str, ...], expected: bool) -> None:
    assert matches_rules(command, prefixes) is expected


@pytest.mark.parametrize(
    ("command", "existing", "rules"),
    [
        ("git status -s", (), ("git status",)),
        ("git status", (), ("git status",)),
        ("git", (), ("git",)),
        ("git -C sub status", (), ("git -C sub status",)),
        ("pytest -q tests/", (), ("pytest",)),
        ("ls -la", (), ("ls",)),
        ("npm run test", (), ("npm run test",)),
        ("npm run test -- --watch", (), ("npm run test",)),
        ("npm install", (), ("npm install",)),
        ("uv run pytest -q", (), ("uv run pytest",)),
        ("uv sync", (), ("uv sync",)),
        ("cargo test --all", (), ("cargo test",)),
        ("go test ./...", (), ("go test",)),
        ("docker ps -a", (), ("docker ps",)),
        ("kubectl get pods", (), ("kubectl get",)),
        ("make", (), ("make",)),
        ("make test", (), ("make test",)),
        ("python -m pytest -q", (), ("python -m pytest",)),
        ("python script.py", (), ("python script.py",)),
        ("rm -rf build", (), ("rm -rf build",)),
        ("FOO=1 pytest -q", (), ("FOO=1 pytest",)),
        ("echo 'a b'", (), ("echo",)),
        ("git commit -m 'a b'", (), ("git commit",)),
        ("git status && pytest -q", (), ("git status", "pytest")),
        ("git status && pytest -q", ("git status",), ("pytest",)),
        ("git status && pytest -q", ("git status", "pytest"), ()),
        ("git status $(id)", (), ()),
        ("eval ls", (), ()),
        ("git status 'x", (), ()),
    ],
)
def test_suggest_rules(command: str, existing: tuple[str, ...], rules: tuple[str, ...]) -> None:
    assert suggest_rules(command, existing) == rules


@pytest.mark.parametrize(
    "command",
    ["git status -s", "npm run test && git diff | wc -l", "FOO=1 make test; rm -rf build"],
)
def test_accepting_the_suggestions_covers_the_command(command: str) -> None:
    rules = suggest_rules(command)
    assert len(set(rules)) == len(rules)
    assert matches_rules(command, rules)
    assert suggest_rules(command, rules) == ()


@pytest.mark.parametrize(
    ("prefix", "tokens"),
    [("git status", ("git", "status")), ("pytest", ("pytest",)), ("'a b' c", ("a b", "c"))],
)
def test_rule_tokens(prefix: str, tokens: tuple[str, ...]) -> None:
    assert rule_tokens(prefix) == tokens


@pytest.mark.parametrize("prefix", ["a && b", "a; b", "a > f", "$(x)", "a\nb", "(a)", "'a"])
def test_rule_tokens_rejects(prefix: str) -> None:
    with pytest.raises(ShellParseError):
        rule_tokens(prefix)

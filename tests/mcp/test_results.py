"""A tool call's MCP result as the model reads it."""

from __future__ import annotations

import base64

from zizou.mcp.results import MAX_IMAGES, capped, prompt_text, resource_text, tool_result

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 20).decode()


def test_text_parts_are_joined_and_links_named() -> None:
    result = tool_result(
        {
            "content": [
                {"type": "text", "text": "one"},
                {"type": "resource_link", "uri": "file:///x", "name": "x"},
                {"type": "resource", "resource": {"uri": "mem://a", "text": "inner"}},
                {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            ]
        }
    )
    assert result.ok
    assert result.output == (
        "one\n[resource x: file:///x]\n[resource mem://a]\ninner\n[audio (audio/wav): not shown]"
    )


def test_is_error_is_a_failure_and_structured_content_stands_in_for_no_text() -> None:
    assert not tool_result({"content": [{"type": "text", "text": "bad"}], "isError": True}).ok
    assert tool_result({"content": [], "structuredContent": {"a": 1}}).output == '{\n  "a": 1\n}'
    assert tool_result({"content": []}).output == "(no output)"


def test_images_are_kept_checked_and_counted() -> None:
    blocks = [{"type": "image", "data": PNG, "mimeType": "image/png"}] * (MAX_IMAGES + 1)
    blocks += [{"type": "image", "data": "!!not base64", "mimeType": "image/png"}]
    blocks += [{"type": "image", "data": PNG, "mimeType": "image/tiff"}]
    result = tool_result({"content": blocks})
    assert len(result.images) == MAX_IMAGES and result.images[0].mime == "image/png"
    lines = result.output.splitlines()
    assert lines[0] == "[image 1: image/png, 28 bytes]"
    assert "only 4 are sent" in lines[MAX_IMAGES]
    assert "could not be read" in lines[-2] and "could not be read" in lines[-1]


def test_capping_keeps_head_and_tail_and_says_what_was_cut() -> None:
    text = "".join(f"{n:05d}\n" for n in range(20_000))
    out = capped(text, 1000)
    assert out.startswith("00000\n") and out.endswith("19999\n")
    assert "[... 119,000 characters omitted: the result was 120,000 characters ...]" in out


def test_resources_and_prompts_read_as_text() -> None:
    assert resource_text({"contents": [{"uri": "a://b", "text": "hello"}]}) == "hello"
    two = resource_text(
        {"contents": [{"uri": "a://1", "text": "x"}, {"uri": "a://2", "blob": "AA=="}]}
    )
    assert two == "[resource a://1]\nx\n[resource a://2 (binary): not shown]"
    prompt = {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review it."}},
            {"role": "assistant", "content": {"type": "text", "text": "Sure."}},
        ]
    }
    assert prompt_text(prompt) == "user: Review it.\n\nassistant: Sure."

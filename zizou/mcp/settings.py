"""The `[mcp]` section of `config.toml`: how long zizou waits for MCP servers, and whether the
stdio servers it starts in the sandbox may use the network."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class McpSettings(BaseModel):
    """Each value here is its default; `config.toml` sets any of them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # From starting a server (or connecting to one) to its answer to the handshake and the
    # list of its tools: past this, it is marked failed and its process stopped.
    connect_timeout_s: float = Field(default=30.0, gt=0, le=600)
    # How long `zizou -p` (and `zizou run`) waits before its first request for the servers
    # still starting, so that the first step offers their tools; past it the run goes on
    # without the slow ones, and says so (0: no wait). The app shows them arriving instead.
    startup_wait_s: float = Field(default=10.0, ge=0, le=600)
    # One tool call, resource read or prompt, from request to result.
    call_timeout_s: float = Field(default=300.0, gt=0, le=3600)
    # Stdio servers run in the command sandbox; with the network only when this is true (or
    # `sandbox_network` lets commands use it too).
    network: bool = False
    # False: stdio servers run unsandboxed, as the user chose (a server run through `uvx` or
    # `npx` writes its cache, which the sandbox's read-only disk refuses).
    sandbox: bool = True


__all__ = ["McpSettings"]

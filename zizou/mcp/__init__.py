"""MCP servers: the Model Context Protocol servers a user configured (`.mcp.json`, their own
`mcp.json`, `--mcp-config`), run in the background, their tools offered to the model under the
same contract and approvals as zizou's own. The MCP SDK is imported only on the thread that
runs the servers (`manager.py`), never on the path to the first frame or the first request.
"""

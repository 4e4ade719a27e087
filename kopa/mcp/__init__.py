"""The catalog as MCP servers (the Model Context Protocol, official `mcp` SDK), and a client for the bench.

`kopa mcp serve` exposes a platform's tools — or a named set's, or the whole catalog's — to any MCP client
(Claude Desktop, IDEs, Inspect, the OpenAI Agents SDK): the catalog's names, JSON schemas and Korean
descriptions, called through kopa's ToolRuntime on any backend string. Each session is its own episode
(kopa.mcp.episodes); `kopa bench run --tools mcp:…` plays episodes with their tools listed and called over
MCP (kopa.mcp.client).
"""

"""`kopa mcp …`: the catalog as MCP servers."""

from __future__ import annotations

import click

from kopa.cli_options import backend_options, compose_backend
from kopa.console import LazyConsole

console = LazyConsole(stderr=True, soft_wrap=True)  # stdout is the stdio transport's wire


@click.group("mcp")
def mcp_group() -> None:
    """Serve the catalog's tools over MCP.

    For MCP clients: Claude Desktop, IDEs, Inspect, the OpenAI Agents SDK; and for
    `kopa bench run --tools mcp:…`.
    """


@mcp_group.command("serve", short_help="Serve a platform's tools (or the catalog's) over MCP.")
@click.option("--platform", "platforms", multiple=True, metavar="PLATFORM",
              help="Serve this platform's tools (repeat for a set; default: every platform). The session "
                   "tools (issue_api_key, get_current_date, …) are always served.")
@backend_options
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: one client on stdin/stdout (an MCP client starts the command); http: Streamable "
                   "HTTP at http://HOST:PORT/mcp, one episode scope per HTTP session.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP: the address to bind (loopback by default; another address lets anyone who reaches "
                   "it call the tools — on a live backend, with your keys and quota).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="HTTP: the port.")
def serve(platforms: tuple[str, ...], backend_spec: str, record_dir: str | None, faults: str | None,
          transport: str, host: str, port: int) -> None:
    """Serve the catalog's tools of PLATFORM(s) over MCP, called through kopa's runtime on the backend.

    Every MCP session is its own episode (issued keys, the watchlist, the state hash); the tools
    reset_episode and get_episode_state start a fresh one and read it, and a request's
    _meta["kopa/episode"] names an episode of its own.

    \b
      kopa mcp serve --platform dart --backend sim
      kopa mcp serve --platform dart --platform krx --faults realistic,seed=1
      kopa mcp serve --backend replay:cassettes/demo --transport http --port 8765
    """
    import anyio

    from kopa.backends import open_backend
    from kopa.mcp.server import KopaMCPServer, serve_http, serve_stdio

    backend = open_backend(compose_backend(backend_spec, record_dir, faults))
    try:
        server = KopaMCPServer(backend, platforms)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--platform'") from exc
    if transport == "stdio":
        anyio.run(serve_stdio, server)
        return
    console.print(f"kopa MCP server ({len(server.listing)} tools, backend {backend.description}) at "
                  f"http://{host}:{port}/mcp")
    serve_http(server, host, port)

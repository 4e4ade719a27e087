"""`kopa mcp …`: the catalog as MCP servers (kopa.mcp). Beside kopa.cli, above kopa.eval: `--task` serves a
task's tools, and the task sets are kopa.eval's."""

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
@click.option("--tools", "tool_names", metavar="NAME,…", callback=lambda _c, _p, v: _split(v),
              help="Serve exactly these tools (a host holds 40 to 128; a platform has up to 848). Session tools "
                   "are served only when named (issue_api_key, get_current_date, …).")
@click.option("--domain", "domains", metavar="DOMAIN,…", callback=lambda _c, _p, v: _split(v),
              help="Serve the tools of these domains (finance, education, law, politics, traffic, district) "
                   "and the session tools.")
@click.option("--task", "task_id", metavar="TASK_ID",
              help="Serve exactly a KOPA-Bench task's available tools (the paper's per-task server; --tasks DIR "
                   "for a task set of your own).")
@click.option("--tasks", "task_dir", type=click.Path(exists=True, file_okay=False), metavar="DIR",
              help="The task set --task reads (default: KOPA-Bench).")
@click.option("--issue-keys", "issue_keys", metavar="PLATFORM,…|all", callback=lambda _c, _p, v: _split(v),
              help="Every fresh episode starts with these platforms' keys issued: for one-shot clients (the "
                   "Inspector CLI starts a session per call).")
@backend_options
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: one client on stdin/stdout (an MCP client starts the command); http: Streamable "
                   "HTTP at http://HOST:PORT/mcp, one episode scope per HTTP session.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP: the address to bind (loopback by default; another address lets anyone who reaches "
                   "it call the tools — on a live backend, with your keys and quota).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="HTTP: the port.")
def serve(platforms: tuple[str, ...], tool_names: list[str], domains: list[str], task_id: str | None,
          task_dir: str | None, issue_keys: list[str], backend_spec: str, record_dir: str | None,
          faults: str | None, transport: str, host: str, port: int) -> None:
    """Serve the catalog's tools of PLATFORM(s) over MCP, called through kopa's runtime on the backend.

    Every MCP session is its own episode (issued keys, the watchlist, the state hash); the tools
    reset_episode and get_episode_state start a fresh one and read it, and a request's
    _meta["kopa/episode"] names an episode of its own.

    \b
      kopa mcp serve --platform dart --backend sim
      kopa mcp serve --platform dart --platform krx --faults realistic,seed=1
      kopa mcp serve --backend replay:cassettes/demo --transport http --port 8765
      kopa mcp serve --task finance-001 --issue-keys dart,krx
    """
    import anyio

    from kopa.backends import open_backend
    from kopa.mcp.server import KopaMCPServer, serve_http, serve_stdio

    if task_dir is not None and task_id is None:
        raise click.UsageError("--tasks names the task set --task reads: add --task TASK_ID")
    if task_id is not None:
        if tool_names:
            raise click.UsageError("--task serves the task's tools: leave out --tools")
        tool_names = _task_tools(task_id, task_dir)
    backend = open_backend(compose_backend(backend_spec, record_dir, faults))
    try:
        server = KopaMCPServer(backend, platforms, tools=tool_names, domains=domains, issue_keys=issue_keys)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    if transport == "stdio":
        anyio.run(serve_stdio, server)
        return
    console.print(f"kopa MCP server ({len(server.listing)} tools, backend {backend.description}) at "
                  f"http://{host}:{port}/mcp")
    serve_http(server, host, port)


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def _task_tools(task_id: str, task_dir: str | None) -> list[str]:
    """The available tools of a task of KOPA-Bench (or of the task set at ``task_dir``)."""
    from kopa.eval.task import task_set

    tasks = {task.id: task for task in task_set(task_dir).tasks()}
    if task_id not in tasks:
        raise click.BadParameter(f"no task {task_id!r} in {task_dir or 'KOPA-Bench'}", param_hint="'--task'")
    return list(tasks[task_id].available_tools)

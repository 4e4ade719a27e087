"""`kopa mcp …`: the catalog as MCP servers (kopa.mcp). Beside kopa.cli, above kopa.eval: `--task` serves a
task's tools, and the task sets are kopa.eval's."""

from __future__ import annotations

import time

import click

from kopa.cli_options import at_least, backend_options, compose_backend
from kopa.console import LazyConsole
from kopa.tools.render import MAX_TOOL_CHARS

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
@click.option("--max-tool-chars", type=at_least(0), default=MAX_TOOL_CHARS, show_default=True,
              help="Cut a result's records to this many characters of JSON, with a note saying how to read the "
                   "rest — the cut `kopa bench run` makes for its agent (0: never cut). kopa's own client asks "
                   "for results whole.")
@click.option("--list-tools", is_flag=True,
              help="Print the tools this server would list, one per line, and exit: how many a host will see.")
@backend_options
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio: one client on stdin/stdout (an MCP client starts the command); http: Streamable "
                   "HTTP at http://HOST:PORT/mcp, an episode per client session.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP: the address to bind (loopback by default; another address lets anyone who reaches "
                   "it call the tools — on a live backend, with your keys and quota).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="HTTP: the port.")
def serve(platforms: tuple[str, ...], tool_names: list[str], domains: list[str], task_id: str | None,
          task_dir: str | None, issue_keys: list[str], max_tool_chars: int, list_tools: bool, backend_spec: str,
          record_dir: str | None, faults: str | None, transport: str, host: str, port: int) -> None:
    """Serve the catalog's tools of PLATFORM(s) over MCP, called through kopa's runtime on the backend.

    An episode (issued keys, the watchlist, the state hash) belongs to one client: each MCP session
    has its own, and a stdio server is one client's. A host gets a fresh episode by calling
    reset_episode (or by reconnecting); get_episode_state reads it. A request's _meta["kopa/episode"]
    names an episode of the client's own; over HTTP, a 2026-07-28 request (no sessions) that names
    none gets a new episode, named in the result's _meta, which later requests name to continue it.
    Start-up lines go to stderr (stdout is the stdio transport's).

    \b
      kopa mcp serve --platform dart --backend sim
      kopa mcp serve --platform dart --platform krx --faults realistic,seed=1
      kopa mcp serve --backend replay:cassettes/demo --transport http --port 8765
      kopa mcp serve --task finance-001 --issue-keys dart,krx
    """
    import anyio

    from kopa.backends import open_backend
    from kopa.backends.spec import world_to_build
    from kopa.catalog.loader import load_catalog
    from kopa.mcp.listing import catalog_tools, platforms_served
    from kopa.mcp.server import KopaMCPServer, serve_http, serve_stdio

    if task_dir is not None and task_id is None:
        raise click.UsageError("--tasks names the task set --task reads: add --task TASK_ID")
    if task_id is not None:
        if tool_names:
            raise click.UsageError("--task serves the task's tools: leave out --tools")
        tool_names = _task_tools(task_id, task_dir)
    spec = compose_backend(backend_spec, record_dir, faults)
    started = time.monotonic()
    try:  # what is served is checked before a world is built for it: a bad name is the one line printed
        catalog = load_catalog()
        catalog_tools(catalog, platforms_served(catalog, platforms), names=tool_names or (), domains=domains)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    building = world_to_build(spec)  # checks the string first: a bad one is the one line printed
    if building is not None:
        console.print(f"kopa mcp serve: building the simulator's world {building.key()} before the first "
                      "answer (once: it is cached)")
    backend = open_backend(spec)
    try:
        server = KopaMCPServer(backend, platforms, tools=tool_names, domains=domains, issue_keys=issue_keys,
                               max_tool_chars=max_tool_chars)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    if list_tools:
        click.echo("\n".join(tool.name for tool in server.listing))
        return
    where = "over stdio" if transport == "stdio" else f"at http://{host}:{port}/mcp"
    console.print(f"kopa mcp serve: {len(server.listing)} tools on {backend.description}, {where} "
                  f"(ready in {time.monotonic() - started:.1f} s)")
    if transport == "stdio":
        anyio.run(serve_stdio, server)
        return
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

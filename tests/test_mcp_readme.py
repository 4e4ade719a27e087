"""The README's MCP host configurations: each server's command line, run with `--list-tools`, serves a tool
set the host holds, and no two servers of one configuration list a tool under the same name."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kopa.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"
# tools a host offers a model at most: Cursor 40 (and server + tool name within 60 characters), VS Code 128
# per request; Claude Desktop has no fixed cap, and the README keeps it within the OpenAI API's 128
HOSTS = {"Claude Desktop": 128, "Cursor": 40, "VS Code": 128}
CURSOR_NAME_CHARS = 60


def host_configurations() -> dict[str, dict]:
    """host → the JSON block that follows the README paragraph starting with the host's name."""
    text = README.read_text(encoding="utf-8")
    found = {}
    for host in HOSTS:
        match = re.search(rf"^{re.escape(host)} — .*?```json\n(.*?)```", text, re.S | re.M)
        assert match, f"README has no configuration for {host}"
        found[host] = json.loads(match.group(1))
    return found


def served(args: list[str]) -> list[str]:
    assert args[:2] == ["mcp", "serve"]
    done = CliRunner().invoke(main, [*args, "--list-tools"])
    assert done.exit_code == 0, done.output
    return done.stdout.split()


@pytest.mark.parametrize("host", HOSTS)
def test_a_hosts_configuration_serves_a_set_it_holds(backend, host):
    configuration = host_configurations()[host]
    servers = configuration.get("mcpServers") or configuration["servers"]
    tools = {name: served(entry["args"]) for name, entry in servers.items()}
    assert all(entry["command"] == "kopa" for entry in servers.values())
    listed = [tool for names in tools.values() for tool in names]
    assert 0 < len(listed) <= HOSTS[host]
    assert len(listed) == len(set(listed))  # never one name from two servers
    if host == "Cursor":
        assert all(len(server) + len(tool) <= CURSOR_NAME_CHARS for server, names in tools.items() for tool in names)

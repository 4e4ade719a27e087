"""The README's two set-up commands, on any Python >= 3.11 — a stock Debian/Ubuntu one included.

    python3 bootstrap.py demo     install kopa and run the main job on the embedded simulator (nox -s demo)
    python3 bootstrap.py          install kopa and run the tests: nox's default sessions (what CI runs)
    python3 bootstrap.py tests    the sessions named (nox -s tests)
    python3 bootstrap.py -ARGS    any other nox arguments (-l, -s tests -- -k mcp, ...)

nox goes into a virtual environment of its own (.venv-nox/), never into the system Python: a Debian or
Ubuntu Python refuses `pip install` outside one (PEP 668). Debian also ships Python without ensurepip
(python3-venv is a separate package); there the environment is made without pip, filled by the system's
pip, and nox's sessions are made by uv, which needs no ensurepip. Standard library only: this file runs
before anything is installed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import venv
from pathlib import Path
from typing import NoReturn

MINIMUM = (3, 11)
# Pinned: the versions CI runs with. uv makes the sessions' environments where ensurepip is missing.
NOX = "nox==2026.10.20"
UV = "uv==0.13.9"
ROOT = Path(__file__).resolve().parent
ENV = ROOT / ".venv-nox"


def fail(message: str) -> NoReturn:
    print(f"bootstrap: {message}", file=sys.stderr)
    raise SystemExit(2)


def env_python() -> Path:
    return ENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def has_pip(python: Path | str) -> bool:
    return subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode == 0


def create() -> bool:
    """Make .venv-nox with nox (and uv) in it; True when its sessions must be made by uv (no ensurepip)."""
    if importlib.util.find_spec("ensurepip") is not None:
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(ENV)
            if has_pip(env_python()):
                install([str(env_python()), "-m", "pip"])
                return False
        except (subprocess.CalledProcessError, OSError, SystemExit):  # Debian's venv exits where it cannot
            pass
    # no ensurepip (Debian's python3 without python3-venv): an environment without pip, filled by the
    # system's pip (which installs into it; PEP 668 guards only the system's own site-packages)
    venv.EnvBuilder(with_pip=False, clear=True).create(ENV)
    if not has_pip(sys.executable):
        fail(f"Python {sys.version.split()[0]} has neither ensurepip nor pip; install one of them "
             "(Debian/Ubuntu: apt install python3-venv) and run this again")
    install([sys.executable, "-m", "pip", "--python", str(env_python())])
    return True


def install(pip: list[str]) -> None:
    done = subprocess.run([*pip, "install", "--quiet", "--disable-pip-version-check", NOX, UV])
    if done.returncode != 0:  # pip said why above (no network, no index): say what failed, in one line
        fail(f"could not install {NOX} and {UV} into {ENV.name}/ (pip exited {done.returncode}; see above)")


def check_python(version: tuple[int, ...]) -> None:
    if version < MINIMUM:
        fail(f"kopa needs Python >= {'.'.join(map(str, MINIMUM))}; this is {'.'.join(map(str, version))} "
             f"({sys.executable})")


def main(args: list[str]) -> None:
    check_python(sys.version_info[:3])
    marker = ENV / "uv-sessions"
    if not ready():
        print(f"bootstrap: installing {NOX} into {ENV.name}/ (once)", file=sys.stderr)
        if create():
            marker.write_text("sessions are made by uv: this Python has no ensurepip\n", encoding="utf-8")
    environment = dict(os.environ)
    if marker.exists():
        environment["KOPA_NOX_BACKEND"] = "uv"
    os.chdir(ROOT)
    if args and not args[0].startswith("-"):  # `bootstrap.py demo`: session names, as `nox -s demo`
        args = ["-s", *args]
    command = [str(env_python()), "-m", "nox", *args]
    if os.name == "nt":
        raise SystemExit(subprocess.run(command, env=environment).returncode)
    os.execve(command[0], command, environment)


def ready() -> bool:
    """Whether .venv-nox works: its Python runs (on an interpreter still there) and imports nox."""
    python = env_python()
    return python.exists() and subprocess.run([str(python), "-c", "import nox"], capture_output=True).returncode == 0


if __name__ == "__main__":
    main(sys.argv[1:])

"""Set-up and checks, each in its own virtual environment created from this repository's files alone.

    nox -s demo     install kopa and run the main job on the embedded simulator: multi-step chains, then
                    KOPA-Bench with the offline baselines (a table and runs/baselines/report.md)
    nox             the default sessions: tests, demo, perf_smoke, ray, rl, rl_gpu_recipe, clients, inspector,
                    inspect_eval, browser and wheel (CI)
    nox -s tests    install kopa with test extras, lint, type-check (mypy) and run the fast test suite
    nox -s ray      install kopa with the ray extra and run the Ray executor's tests on a local
                    ray.init(num_cpus=2): the same bytes as in-process (skipped by `tests`, which has no Ray)
    nox -s rl       kopa inside the real verl on CPU (verl without its GPU stack): verl's tool-call
                    path, reward manager, GRPO advantages, dataset loader and Hydra config (tests marked verl);
                    and in TRL: a tiny model's SFT on kopa's export, then GRPO steps on kopa's tools (trl)
    nox -s rl_gpu_recipe  `pip install --dry-run '.[rl-gpu]'`: the GPU training set (verl[vllm] with kopa)
                    resolves, with the versions benchmark/rl/gpu_recipe.py requires (metadata only)
    nox -s slow     the slow tests (full-scale worlds)
    nox -s perf     the performance harness in benchmark/perf (prints numbers; asserts nothing)
    nox -s perf_smoke  every benchmark/perf script at a small size: each runs to its end (what CI runs)
    nox -s clients  unmodified third-party client libraries (OpenDART, KRX, NEIS, Seoul) against the
                    served simulator
    nox -s inspector  the official MCP Inspector CLI (npm ci in tests/inspector) against kopa mcp serve
    nox -s inspect_eval  KOPA-Bench as an Inspect task (kopa[inspect]): `inspect eval kopa/kopa_bench` with
                    Inspect's mockllm, verdicts compared with `kopa bench run` on the same episodes
    nox -s browser  pages kopa writes (`kopa bench view`) in headless Chromium: Debian's chromium (installed
                    with apt-get when missing) driven by Playwright
    nox -s wheel    build the wheel, install it (no extras) into a fresh environment outside the source
                    tree and run every CLI command from there (tests/smoke/installed_cli.sh)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import nox

# venv, unless bootstrap.py found no ensurepip (Debian's python3 without python3-venv): then uv, which it
# installed beside nox and which needs none
nox.options.default_venv_backend = os.environ.get("KOPA_NOX_BACKEND", "venv")
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "demo", "perf_smoke", "ray", "rl", "rl_gpu_recipe", "clients", "inspector",
                        "inspect_eval", "browser", "wheel"]

# The interpreter nox itself runs on (any Python >= 3.11, as pyproject's requires-python says; an older one
# fails loudly at install). A pinned version made every session "skipped" with exit 0 where only 3.12 or
# 3.13 was installed; a version a session does name must exist, or the run fails.
PYTHON = None
nox.options.error_on_missing_interpreters = True

# Third-party clients of the real services, pinned: tests/clients routes their HTTP to the simulator.
# (OpenDartReader 0.2.3 requires Python 3.13; 0.2.2 is the newest for 3.11.)
CLIENT_LIBRARIES = (
    "opendartreader==0.2.2",
    "PublicDataReader==1.1.1.post2",
    "neispy==5.0.2",
    "pykrx-openapi==0.1.1",
    "datasets==5.2.0",  # reads kopa's APIGen rows as it reads xlam-function-calling-60k (tests/clients/test_xlam_datasets.py)
)


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """What a newcomer comes for, in one command: the chains show the tools, the baselines what KOPA-Bench
    measures and how a weak agent fails (about a minute on two cores). Arguments go to `kopa demo`."""
    session.install("-e", ".")
    session.run("kopa", "demo", *session.posargs)
    session.run("kopa", "bench", "baselines", "--out", "runs/baselines")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("ruff", "check", "kopa", "sim", "tests", "benchmark", "noxfile.py", "setup.py", "bootstrap.py")
    session.run("mypy")  # kopa and sim, as pyproject's [tool.mypy] says
    session.run("pytest", "-n", "2", *session.posargs)


@nox.session(python=PYTHON)
def ray(session: nox.Session) -> None:
    session.install("-e", ".[test,ray]")
    session.run("pytest", "-m", "ray", *session.posargs)


# What importing verl's tool, agent-loop, reward, dataset, trainer-config and SFT-dataset modules needs on CPU:
# verl 0.9.1 itself goes in without its declared dependencies (wandb, tensorboard, ray's dashboard…, none of
# which these paths import), and the few those paths do import are listed. The tests run on CPU, but torch==2.13.0 from PyPI is the CUDA
# build: with its nvidia wheels the session takes about 9.6 GB of disk (a CI machine needs that free).
RL_CPU = (
    "ray>=2.41", "tensordict>=0.8,<=0.10,!=0.9.0", "hydra-core", "transformers>=5.5.3,<5.11,!=5.6.0", "datasets",
    "pyarrow>=19", "pandas", "pillow", "codetiming", "cachetools", "fastapi", "uvicorn", "aiohttp",
    "torchdata", "peft",  # verl.trainer.sft_trainer's imports (create_sft_dataset, tests/test_rl_verl_sft.py)
)


# TRL's GRPOTrainer runs on CPU: tests/test_rl_trl.py trains a tiny model built on the spot (SFT, then GRPO
# on kopa's tools), about 6 minutes on 2 cores; TRL comes from kopa's own `trl` extra (pyproject.toml).


@nox.session(python=PYTHON)
def rl(session: nox.Session) -> None:
    session.install("torch==2.13.0")
    session.install("-e", ".[test]")
    session.install("--no-deps", "verl==0.9.1")
    session.install(*RL_CPU, "-e", ".[test,trl]")
    # -rP: the TRL test prints its SFT loss curve and per-step GRPO numbers
    session.run("pytest", "-m", "verl or trl", "-rP", "tests/test_rl_verl.py", "tests/test_rl_verl_sft.py",
                "tests/test_rl_trl.py",
                *session.posargs)


@nox.session(python=PYTHON)
def rl_gpu_recipe(session: nox.Session) -> None:
    """The GPU install a user runs, `pip install 'kopa[rl-gpu]'`, resolved but not installed: pip reads the
    wheels' metadata only (about 40 s), so a pin that no longer resolves fails here and not on a GPU machine."""
    session.install("pip", "packaging")  # pip's --report (uv's dry run has none); packaging for the check
    report = Path(session.create_tmp()) / "rl-gpu-report.json"
    session.run("python", "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                "--disable-pip-version-check", "--report", str(report), ".[rl-gpu]")
    session.run("python", "benchmark/rl/gpu_recipe.py", str(report))


@nox.session(python=PYTHON)
def slow(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("pytest", "-m", "slow", *session.posargs)


@nox.session(python=PYTHON)
def mutation(session: nox.Session) -> None:
    """Mutation testing of the scorer (kopa/eval/scoring/) and the Korean readers it relies on
    (kopa.korean.claims, kopa.korean.numerals), the scoring tests as the kill suite ([tool.mutmut] in
    pyproject.toml): about an hour on two cores, so not in CI's default run. `mutmut results` lists the
    survivors; `mutmut show NAME` prints one."""
    session.install("-e", ".[test]", "mutmut==3.8.1")
    session.run("mutmut", "run", *session.posargs)
    session.run("mutmut", "results")


@nox.session(python=PYTHON)
def perf(session: nox.Session) -> None:
    session.install("-e", ".")
    for script in ("tool_calls.py", "paging.py", "world_build.py", "recording.py", "bench_oracle.py", "serve_load.py", "cli_start.py"):
        session.run("python", f"benchmark/perf/{script}", *session.posargs)


@nox.session(python=PYTHON)
def perf_smoke(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("pytest", "-m", "perf", "-n", "2", "tests/test_perf_scripts.py", *session.posargs)


@nox.session(python=PYTHON)
def clients(session: nox.Session) -> None:
    session.install("-e", ".[test]", *CLIENT_LIBRARIES)
    session.run("pytest", "-m", "clients", "tests/clients", *session.posargs)


@nox.session(python=PYTHON)
def inspector(session: nox.Session) -> None:
    """The official MCP Inspector CLI (npm, pinned by tests/inspector/package-lock.json) against kopa's server."""
    session.install("-e", ".[test]")
    # from the folder, not `--prefix`: with --prefix npm reads its global npmrc under the prefix, and misses the
    # system's (where this machine's registry CA is configured)
    with session.chdir("tests/inspector"):
        session.run("npm", "ci", "--silent", "--no-audit", "--no-fund", external=True)
    session.run("pytest", "-m", "inspector", "tests/test_mcp_inspector.py", *session.posargs)


@nox.session(python=PYTHON)
def inspect_eval(session: nox.Session) -> None:
    """KOPA-Bench under Inspect (inspect_ai pinned by kopa[inspect]), offline: Inspect's mockllm and a scripted
    tool-calling model, each compared with `kopa bench run` on the same ten tasks."""
    session.install("-e", ".[test,inspect]")
    session.run("pytest", "-m", "inspect_eval", "-rP", "tests/test_inspect_task.py", *session.posargs)


# Debian's Chromium (the browser a person here reads kopa's pages in) and a font with Hangul, so screenshots show
# Korean text; Playwright drives that binary (its own browser downloads are not used).
BROWSER_PACKAGES = ("chromium", "fonts-nanum")
PLAYWRIGHT = "playwright==1.65.2"


@nox.session(python=PYTHON)
def browser(session: nox.Session) -> None:
    """`kopa bench view`'s pages in headless Chromium: filters, a click into an episode, screenshots."""
    if not Path("/usr/bin/chromium").exists() or not Path("/usr/share/fonts/truetype/nanum").exists():
        install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *BROWSER_PACKAGES]
        try:
            session.run(*install, external=True)
        except nox.command.CommandFailed:  # an image whose package lists are stale or missing
            session.run("apt-get", "update", "-q", external=True)
            session.run(*install, external=True)
    session.install("-e", ".[test]", PLAYWRIGHT)
    session.run("pytest", "-m", "browser", "tests/test_bench_view_browser.py", *session.posargs)


@nox.session(python=PYTHON)
def wheel(session: nox.Session) -> None:
    """What `pip install kopa-*.whl` gives a user: nothing from the source tree, no test extras.

    The wheel is built from the sdist (python -m build), so both carry everything the package needs;
    the script runs every command from a folder of its own outside the source tree."""
    # where uv makes the sessions (no ensurepip: bootstrap.py), uv also makes build's isolated environment
    # and the user's fresh one; pip in a venv cannot be had there
    uv = nox.options.default_venv_backend == "uv"
    session.install("build[uv]" if uv else "build")
    smoke = Path("tests/smoke/installed_cli.sh").resolve()
    with tempfile.TemporaryDirectory(prefix="kopa-wheel-") as tmp:
        dist, env = Path(tmp, "dist"), Path(tmp, "venv")
        session.run("python", "-m", "build", *(["--installer", "uv"] if uv else []), "--outdir", str(dist), ".",
                    silent=True)
        (built,) = dist.glob("kopa-*.whl")
        if uv:
            session.run("python", "-m", "uv", "venv", "--quiet", str(env))
            session.run("python", "-m", "uv", "pip", "install", "--quiet", "--python", str(env / "bin" / "python"),
                        str(built))
        else:
            session.run("python", "-m", "venv", str(env))
            session.run(str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", str(built), external=True)
        path = f"{env / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
        session.run("bash", str(smoke), env={"PATH": path, "VIRTUAL_ENV": str(env)}, external=True)

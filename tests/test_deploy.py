"""``tapptable build`` / ``tapptable deploy`` (tools/tapptable/deploy.py).

No board is needed: the MicroPython unix port behind a pseudo-terminal
(``socat PTY,... EXEC:"micropython -i"``) answers mpremote like a board, its
working folder standing in for the flash.  The tests build a copy of
firmware/ (so a file can be changed), deploy it, check that a second deploy
copies nothing and a changed file is the only one copied, then import every
deployed module inside the unix port (it has no ``machine``, so the board
itself cannot be built: ``main.board_module()`` must say so), and mount the
ROMFS image with ``vfs.VfsRom`` to import the table from it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools import mpvm
from tools.tapptable import deploy as D

ROOT = Path(__file__).resolve().parent.parent

TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]


@pytest.fixture
def firmware(tmp_path):
    """A copy of firmware/ to build from (and to change)."""
    src = tmp_path / "src" / "firmware"
    shutil.copytree(ROOT / "firmware", src,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.md"))
    return src


@pytest.fixture
def board(tmp_path):
    """The unix port behind a pty: (device path, its flash folder)."""
    socat = shutil.which("socat")
    if socat is None:
        pytest.fail("socat is missing: apt-get install socat (.ci/run does)", pytrace=False)
    flash = tmp_path / "flash"
    flash.mkdir()
    link = tmp_path / "ttyMP"
    mp = mpvm.unix_binary()
    proc = subprocess.Popen([socat, "PTY,link=%s,raw,echo=0" % link,
                             'EXEC:"%s -i",pty,raw,echo=0' % mp], cwd=flash,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not link.exists():
        assert time.monotonic() < deadline, "socat made no pty"
        time.sleep(0.05)
    yield str(link), flash
    proc.terminate()
    proc.wait(10)


def test_build_compiles_for_the_board_with_a_manifest(firmware, tmp_path):
    out = tmp_path / "build" / "pico"
    m = D.build("pico", out, src=firmware, log=lambda s: None)
    files = m["files"]
    assert m["march"] == "armv6m" and "main.py" in files
    assert "table/console.mpy" in files and "tapp/session.mpy" in files
    assert not any(k.endswith(".py") and k != "main.py" for k in files)
    assert "boards/esp32.mpy" not in files and "boards/pico.mpy" in files
    # the Pico's firmware always has the journal's own area: no journal files
    assert "table/journal_files.mpy" not in files and "table/journal_flash.mpy" in files
    for k, e in files.items():
        f = out / "fs" / k
        assert f.stat().st_size == e["size"] and D.sha256(f) == e["sha256"]
    assert json.loads((out / "manifest.json").read_text()) == m
    assert (out / "fs" / "main.py").read_text() == (firmware / "main.py").read_text()
    e = D.build("esp32", tmp_path / "build" / "esp32", src=firmware, log=lambda s: None)
    assert e["march"] == "xtensawin" and "boards/pico.mpy" not in e["files"]
    assert "boards/rp2_regs.mpy" not in e["files"] and "table/journal_files.mpy" in e["files"]


def test_deploy_copies_only_what_changed_and_the_tree_imports(firmware, tmp_path, board):
    port, flash = board
    out = tmp_path / "build" / "pico"
    D.build("pico", out, src=firmware, log=lambda s: None)
    said = []
    copied, removed = D.deploy("pico", port, out, reset=False, pin="2468", log=said.append)
    assert len(copied) == len(json.loads((out / "manifest.json").read_text())["files"])
    assert not removed and (flash / "table" / "console.mpy").is_file()
    assert json.loads((flash / "settings.json").read_text())["referee_pin"] == "2468"
    assert (flash / "tapptable-manifest.json").is_file()

    # the second deploy: nothing to copy (the dry run says so through the command line)
    r = subprocess.run(TAPPTABLE + ["deploy", "--board", "pico", "--port", port, "--build",
                                    str(out), "--no-reset", "--dry-run"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "copy 0, remove 0" in r.stdout, r.stderr
    assert D.deploy("pico", port, out, reset=False, log=said.append) == ([], [])

    # one source file changed: one file copied; a new file, then gone: copied, removed
    with open(firmware / "tapp" / "jsonout.py", "a") as f:
        f.write("\nTOUCHED = 1\n")
    (firmware / "table" / "extra.py").write_text("X = 1\n")
    D.build("pico", out, src=firmware, log=lambda s: None)
    plan_only = D.deploy("pico", port, out, reset=False, dry_run=True, log=said.append)
    assert plan_only == (["table/extra.mpy", "tapp/jsonout.mpy"], [])
    assert not (flash / "table" / "extra.mpy").exists()          # the dry run changed nothing
    assert D.deploy("pico", port, out, reset=False, log=said.append) == (
        ["table/extra.mpy", "tapp/jsonout.mpy"], [])
    (firmware / "table" / "extra.py").unlink()
    D.build("pico", out, src=firmware, log=lambda s: None)
    assert D.deploy("pico", port, out, reset=False, log=said.append) == ([], ["table/extra.mpy"])
    assert not (flash / "table" / "extra.mpy").exists()

    # boot as far as the unix port can: every deployed module imports from the
    # deployed .mpy files (but the Pico's native code: armv6m, not this port's);
    # main.py runs until it asks for a board file
    native = {p[:-3] + ".mpy" for p in mpvm.NATIVE_ONLY}
    files = json.loads((out / "manifest.json").read_text())["files"]
    mods = sorted(k[:-4].replace("/", ".") for k in files
                  if k.endswith(".mpy") and not k.endswith("__init__.mpy") and k not in native)
    assert native <= set(files)
    script = ("import sys, main\nn = 0\nfor m in %r:\n __import__(m)\n"
              " assert sys.modules[m].__file__.endswith('.mpy'), m\n n += 1\n"
              "print('imported', n)\ntry:\n main.board_module()\n"
              "except RuntimeError as e:\n print('board:', e)\n" % (mods,))
    text = D.Board(port).run("exec", script)
    assert "imported %d" % len(mods) in text
    assert "board: no board file for platform linux" in text


def test_romfs_image_runs_the_table_from_rom(firmware, tmp_path):
    out = tmp_path / "build" / "pico"
    m = D.build("pico", out, src=firmware, romfs=True, log=lambda s: None)
    img = out / "romfs.img"
    assert img.is_file() and m["romfs"]["size"] == img.stat().st_size
    code = ("import vfs, sys\nvfs.mount(vfs.VfsRom(open(%r, 'rb').read()), '/rom')\n"
            "sys.path.insert(0, '/rom')\nimport table.app, table.console\n"
            "print(table.console.__file__)\n" % str(img))
    r = subprocess.run([str(mpvm.unix_binary()), "-c", code], capture_output=True, text=True,
                       timeout=60, cwd=tmp_path)
    assert r.stdout.strip() == "/rom/table/console.mpy", r.stderr


def test_a_build_for_another_board_is_refused(firmware, tmp_path):
    out = tmp_path / "build" / "esp32"
    D.build("esp32", out, src=firmware, log=lambda s: None)
    with pytest.raises(D.DeployError, match="built for esp32"):
        D.deploy("pico", "/dev/null", out, reset=False, log=lambda s: None)
    r = subprocess.run(TAPPTABLE + ["deploy", "--build", str(tmp_path / "none"),
                                    "--port", "/dev/null"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env=dict(os.environ))
    assert r.returncode == 2 and "no build here" in r.stderr


def test_a_romfs_deploy_keeps_only_main_py_on_the_filesystem():
    local = {"files": {"main.py": {"sha256": "a", "size": 1},
                       "table/app.mpy": {"sha256": "b", "size": 2}}}
    flat = {"files": dict(local["files"])}
    assert D.plan(local, flat, romfs=True) == ([], ["table/app.mpy"])
    assert D.plan(local, {}, romfs=True) == (["main.py"], [])
    assert D.plan(local, {"files": {"main.py": {"sha256": "a"}}}) == (["table/app.mpy"], [])
    assert D.plan(local, flat, force=True) == (["main.py", "table/app.mpy"], [])


class KindOfBoard(D.Board):
    """A board that only says what it is (no mpremote): for the checks made before
    anything changes."""

    def __init__(self, platform, machine, romfs=0):
        super().__init__("/dev/ttyFAKE")
        self.found = True
        self.answer = "P %s\nM %s\nR %d\n" % (platform, machine, romfs)
        self.calls = []

    def run(self, *args):
        self.calls.append(args)
        if args[0] == "exec" and args[1] == D.IDENTIFY:
            return self.answer
        raise AssertionError("changed or read the board after the check: %r" % (args,))


PICO = "Raspberry Pi Pico with RP2040"
ROMFS_PARTITION = 256 * 1024                 # the table's firmware: RPI_PICO_ROMFS


def test_the_boards_kind_and_firmware_are_checked_before_anything_changes():
    pico = KindOfBoard("rp2", PICO, romfs=ROMFS_PARTITION)
    with pytest.raises(D.DeployError, match="not a esp32 board.*--board pico"):
        D.check_board(pico, "esp32")
    assert D.check_board(pico, "pico", romfs=True) == ("rp2", PICO)
    stock = KindOfBoard("rp2", PICO)
    with pytest.raises(D.DeployError, match="without a ROMFS partition.*tapptable-pico.uf2"):
        D.check_board(stock, "pico")
    with pytest.raises(D.DeployError, match="no ROMFS partition"):
        D.check_board(KindOfBoard("esp32", "ESP32 module with ESP32"), "esp32", romfs=True)
    with pytest.raises(D.DeployError, match="not a pico board"):
        D.check_board(KindOfBoard("esp32", "ESP32 module with ESP32"), "pico")
    assert len(pico.calls) == 2 and len(stock.calls) == 1   # one question each, nothing else


def test_a_romfs_image_reaching_the_journals_area_is_never_deployed():
    """``mpremote romfs deploy`` erases and writes the sectors its image covers:
    an image reaching the journal's area at the partition's top is refused
    before anything changes, whatever the partition's size on the board."""
    from tools.tapptable.fsimage import JOURNAL_BYTES
    for partition in (ROMFS_PARTITION, 512 * 1024):
        room = partition - JOURNAL_BYTES
        pico = KindOfBoard("rp2", PICO, romfs=partition)
        assert D.check_board(pico, "pico", None, room) == ("rp2", PICO)
        with pytest.raises(D.DeployError, match="romfs.img is %d bytes; the ROMFS partition "
                           "holds %d below the journal's 52 KiB" % (room + 1, room)):
            D.check_board(pico, "pico", True, room + 1)
        assert len(pico.calls) == 2


class RomPartition:
    """The transport ``mpremote romfs deploy`` talks to, over an rp2 ROMFS
    partition (``vfs.rom_ioctl(2, 0)``: an ``rp2.Flash`` with 4 KiB blocks,
    erase by ioctl 6, ``writeblocks(block, buf, offset)``) held in ``flash``."""

    def __init__(self, flash):
        self.flash = flash
        self.buf = b""

    def exec(self, code):
        import re

        from mpremote.transport import TransportExecError
        if code.startswith(("from binascii", "from io", "from deflate")):
            raise TransportExecError(1, "ImportError")       # the plain hex path
        if m := re.fullmatch(r"dev\.ioctl\(6,(\d+)\)", code):
            at = int(m[1]) * 4096
            self.flash[at:at + 4096] = b"\xff" * 4096
        elif m := re.fullmatch(r"buf=bytes\.fromhex\('([0-9a-f]*)'\)", code):
            self.buf = bytes.fromhex(m[1])
        elif m := re.fullmatch(r"dev\.writeblocks\((\d+),buf,(\d+)\)", code):
            at = int(m[1]) * 4096 + int(m[2])
            self.flash[at:at + len(self.buf)] = bytes(
                a & b for a, b in zip(self.flash[at:at + len(self.buf)], self.buf, strict=True))

    def eval(self, code):
        return {"hasattr(vfs,'rom_ioctl')": True, "isinstance(dev,int) and dev<0": False,
                "hasattr(dev,'ioctl')": True, "dev.ioctl(4,0)": len(self.flash) // 4096,
                "dev.ioctl(5,0)": 4096, "hasattr(bytes,'fromhex')": True}[code]


def test_mpremote_romfs_deploy_leaves_the_journals_area_alone(tmp_path, capsys):
    """What ``deploy`` runs (``mpremote romfs deploy``) erases and programs only
    the sectors its image covers: an image filling the partition up to the
    journal's area leaves the journal's records as they were."""
    import argparse
    from types import SimpleNamespace

    from mpremote.commands import do_romfs

    from tools.tapptable.fsimage import JOURNAL_BYTES
    flash = bytearray(b"\x00" * ROMFS_PARTITION)          # an old, larger image everywhere
    room = ROMFS_PARTITION - JOURNAL_BYTES
    flash[room:] = b"\x5a" * JOURNAL_BYTES                  # the journal's records
    image = b"\xd2\xcd\x31" + bytes(range(256)) * (room // 256 - 1) + bytes(253)
    assert len(image) == room
    (tmp_path / "romfs.img").write_bytes(image)
    rom = RomPartition(flash)
    state = SimpleNamespace(transport=rom, ensure_raw_repl=lambda: None,
                            did_action=lambda: None)
    do_romfs(state, argparse.Namespace(command=["deploy"], path=str(tmp_path / "romfs.img"),
                                       partition=0, mpy=False))
    assert "ROMFS image deployed" in capsys.readouterr().out
    assert flash[:room] == image
    assert flash[room:] == b"\x5a" * JOURNAL_BYTES


def test_the_board_is_trusted_for_nothing_but_its_file_list(firmware, tmp_path, board):
    port, flash = board
    out = tmp_path / "build" / "pico"
    D.build("pico", out, src=firmware, log=lambda s: None)
    D.deploy("pico", port, out, reset=False, log=lambda s: None)
    (flash / "tapp" / "jsonout.mpy").write_bytes(b"changed on the board")
    (flash / "table" / "names.mpy").unlink()
    said = []
    assert D.deploy("pico", port, out, reset=False, log=said.append) == (
        ["table/names.mpy", "tapp/jsonout.mpy"], [])
    assert any("tapp/jsonout.mpy" in s and "changed on the board" in s for s in said)
    assert D.sha256(flash / "tapp" / "jsonout.mpy") == D.sha256(out / "fs" / "tapp" /
                                                                 "jsonout.mpy")
    assert "linux" in said[0]                       # the board named in the plan
    D.build("pico", out, src=firmware, romfs=True, log=lambda s: None)
    r = subprocess.run(TAPPTABLE + ["deploy", "--board", "pico", "--port", port, "--build",
                                    str(out), "--no-reset", "--dry-run", "--romfs"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "its MicroPython has no ROMFS partition" in r.stderr


def test_without_a_board_the_error_is_one_line(tmp_path, firmware):
    out = tmp_path / "build" / "pico"
    D.build("pico", out, src=firmware, log=lambda s: None)
    env = {k: v for k, v in os.environ.items() if k != "TAPPTABLE_PORT"}
    r = subprocess.run(TAPPTABLE + ["deploy", "--build", str(out), "--dry-run"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert r.stderr.startswith("tapptable deploy: no table found")
    r = subprocess.run(TAPPTABLE + ["deploy", "--build", str(out), "--dry-run", "--port",
                                    "/dev/tapptable-none"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no such port" in r.stderr

"""The Pico's flash images (tools/tapptable/fsimage.py) and ``tapptable build --board pico``.

The table's board folder, the firmware built from it, the journal's area
(firmware/boards/pico.py) and fsimage agree; the littlefs image is read back
with littlefs-python and mounted by the MicroPython unix port with ``vfs.VfsLfs2`` (as the board's
``_boot.py`` does) on the emulated NOR flash of tests/mp/mpflash.py, which
also writes to it; the UF2 is parsed block by block against the firmware UF2
it was made from, and booted on the emulated Pico from blank flash.  The
MicroPython rp2 images come from tools/tapptable/rp2_images.py: a missing one
fails these tests loudly.
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from table.settings import Settings
from tools import mpvm
from tools.tapptable import deploy as D
from tools.tapptable import fsimage as F
from tools.tapptable import rp2_images

ROOT = Path(__file__).resolve().parent.parent

TAPPTABLE = [sys.executable, "-m", "tools.tapptable.cli"]


@pytest.fixture(scope="module")
def stock_uf2():
    return rp2_images.image(rp2_images.STOCK_FIRMWARE).read_bytes()


@pytest.fixture(scope="module")
def table_uf2():
    return rp2_images.image(rp2_images.ROMFS_FIRMWARE).read_bytes()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``tapptable build --board pico`` of the repository's firmware/ (no UF2)."""
    out = tmp_path_factory.mktemp("build") / "pico"
    D.build("pico", out, log=lambda *a: None)
    return out


# ----------------------------------------------------------------- the layout

BOARD = ROOT / "tools" / "micropython-boards" / "RPI_PICO_ROMFS"


def board_defines():
    """{name: value} of the board folder's mpconfigboard.h ("(256 * 1024)" evaluated)."""
    defines = {}
    for line in (BOARD / "mpconfigboard.h").read_text().splitlines():
        if line.startswith("#define"):
            _, name, value = line.split(None, 2)
            defines[name] = value if value.startswith('"') else eval(value, {"__builtins__": {}})
    return defines


def test_the_board_folder_the_firmware_and_the_journals_area_agree(stock_uf2, table_uf2):
    """One layout: mpconfigboard.h's storage and ROMFS sizes are where the
    table's firmware declares its partitions and where fsimage puts the
    images; the journal's area is the last JOURNAL_SECTORS sectors of the
    ROMFS partition (boards/pico.py), in whole sectors; both firmwares mount
    littlefs on the whole storage."""
    from boards import pico
    h = board_defines()
    assert h["MICROPY_HW_FLASH_STORAGE_BYTES"] == F.FS_BYTES == 1408 * 1024
    assert h["MICROPY_HW_ROMFS_BYTES"] == F.ROMFS_BYTES == 256 * 1024
    assert F.partitions(table_uf2) == {"MicroPython": (0xA0000, F.FS_BYTES),
                                       "ROMFS": (0x60000, F.ROMFS_BYTES)}
    assert (F.FS_OFFSET, F.ROMFS_OFFSET) == (0xA0000, 0x60000)
    assert F.filesystem_partition(table_uf2) == (F.FS_OFFSET, F.FS_BYTES)
    assert (F.JOURNAL_OFFSET, F.JOURNAL_BYTES) == (0x93000, 52 * 1024)
    assert F.journal_area(*F.partitions(table_uf2)["ROMFS"]) == (0x93000, 52 * 1024)
    assert F.JOURNAL_BYTES == pico.JOURNAL_SECTORS * pico.SECTOR == pico.JOURNAL_SECTORS * 4096
    assert F.JOURNAL_OFFSET + F.JOURNAL_BYTES == F.FS_OFFSET    # the top of the ROMFS partition
    assert F.partitions(stock_uf2) == {"MicroPython": (0xA0000, 1408 * 1024)}
    assert F.filesystem_partition(stock_uf2) == (0xA0000, 1408 * 1024)
    assert 'set(PICO_BOARD "pico")' in (BOARD / "mpconfigboard.cmake").read_text()
    assert "LED,GPIO25" in (BOARD / "pins.csv").read_text()


# ----------------------------------------------------------------- littlefs


def test_littlefs_image_holds_the_files_and_does_not_depend_on_their_order():
    files = {"main.py": b"print('hi')\n", "tapp/engine.mpy": bytes(range(256)) * 40,
             "table/sub/deep.mpy": b"\x00" * 3, "empty.txt": b""}
    img = F.littlefs_image(files)
    assert len(img) == F.FS_BYTES
    assert F.littlefs_files(img) == files
    assert F.littlefs_image(dict(reversed(list(files.items())))) == img


# what the filesystem holds besides the manifest: main.py (source) and the
# self-test's bytecode (loaded into RAM when it runs; the ROMFS partition is full)
ON_FS = {"main.py", "bringup/selftest.mpy", "bringup/selftest_readers.mpy"}


def test_littlefs_image_of_a_build_holds_main_py_and_the_device_manifest(built):
    """The table's firmware runs the bytecode from /rom: the filesystem holds
    what stays source, the self-test, and the manifest a later deploy compares
    with; the ROMFS image holds the rest and not the self-test."""
    rom = (built / "romfs.img").read_bytes()
    assert b"/rom/table/game.mpy" in rom
    assert b"selftest.mpy" not in rom and b"selftest_readers.mpy" not in rom
    files = F.littlefs_files((built / F.FS_IMAGE).read_bytes())
    manifest = json.loads((built / D.MANIFEST).read_text())
    assert set(files) == ON_FS | {D.DEVICE_MANIFEST}
    for name in ON_FS:
        assert files[name] == (built / "fs" / name).read_bytes()
    on_board = json.loads(files[D.DEVICE_MANIFEST])
    assert on_board["files"] == {name: manifest["files"][name] for name in ON_FS}
    assert on_board["romfs"] == manifest["romfs"]
    # what deploy reads back from the board: nothing left to copy
    assert D.plan(manifest, on_board, romfs=True) == ([], [])


def test_files_that_do_not_fit_are_an_error():
    with pytest.raises(F.ImageError, match="do not fit"):
        F.littlefs_image({"big.bin": b"\x55" * (F.FS_BYTES + 1)})


MOUNT_IN_VM = """
import sys, os, vfs, hashlib, binascii
from mpflash import FlashDev
path = sys.argv[1]
data = bytearray(os.stat(path)[6])
with open(path, 'rb') as f:
    f.readinto(data)
dev = FlashDev(len(data) // 4096, 4096, data, share=True)
vfs.mount(vfs.VfsLfs2(dev, progsize=256), '/flash')

def walk(d):
    for name, kind, *_ in os.ilistdir(d):
        p = d + '/' + name
        if kind == 0x4000:
            walk(p)
        else:
            with open(p, 'rb') as f:
                h = binascii.hexlify(hashlib.sha256(f.read()).digest()).decode()
            print('F', p[len('/flash/'):], h)

walk('/flash')
with open('/flash/written_on_device.txt', 'w') as f:
    f.write('kept')
vfs.umount('/flash')
with open(path, 'wb') as f:
    f.write(data)
print('done')
"""


def test_micropython_mounts_the_image_with_vfslfs2_and_writes_to_it(built, tmp_path):
    """The unix port mounts the image as the rp2 port does, reads every file
    and writes a new one; littlefs-python then finds all of them."""
    image = tmp_path / "fs.img"
    image.write_bytes(F.littlefs_image(F.build_files(built)))      # every built file
    expected = F.littlefs_files(image.read_bytes())
    proc = mpvm.run_unix(MOUNT_IN_VM, [str(image)], heapsize="4m")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("done"), proc.stdout
    seen = dict(line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("F "))
    import hashlib
    assert seen == {k: hashlib.sha256(v).hexdigest() for k, v in expected.items()}
    after = F.littlefs_files(image.read_bytes())
    assert after.pop("written_on_device.txt") == b"kept"
    assert after == expected


# ----------------------------------------------------------------- UF2


def _blocks(uf2):
    """Every block's header fields and final magic."""
    out = []
    for i in range(0, len(uf2), 512):
        out.append(struct.unpack_from("<8I", uf2, i) + struct.unpack_from("<I", uf2, i + 508))
    return out


def test_uf2_holds_the_firmware_then_romfs_littlefs_and_the_erased_journal(table_uf2):
    fs = F.littlefs_image({"main.py": b"import table\n"})
    rom = b"\xd2\xcd\x31" + bytes(range(200)) * 10     # any bytes: placed, not parsed
    uf2 = F.uf2_with_filesystem(table_uf2, fs, rom)
    fw = F.uf2_chunks(table_uf2)
    chunks = F.uf2_chunks(uf2)
    assert chunks[:len(fw)] == fw                      # the firmware, unchanged and first
    rest = [a - F.XIP_BASE for a, _ in chunks[len(fw):]]
    rom_pages = -(-len(rom) // 256)
    assert rest == (list(range(F.ROMFS_OFFSET, F.ROMFS_OFFSET + rom_pages * 256, 256))
                    + list(range(F.JOURNAL_OFFSET, F.JOURNAL_OFFSET + F.JOURNAL_BYTES, 256))
                    + list(range(F.FS_OFFSET, F.FLASH_BYTES, 256)))
    blocks = _blocks(uf2)
    n = len(blocks)
    for i, (m0, m1, flags, _addr, size, no, total, family, end) in enumerate(blocks):
        assert (m0, m1, end) == (F.UF2_MAGIC_START0, F.UF2_MAGIC_START1, F.UF2_MAGIC_END)
        assert (flags, size, no, total, family) == (0x2000, 256, i, n, 0xE48BFF56)
    flash = F.flash_contents(uf2)
    fw_flash = F.flash_contents(table_uf2)
    fw_end = max(a + len(p) for a, p in fw) - F.XIP_BASE
    assert flash[:fw_end] == fw_flash[:fw_end]
    assert flash[F.ROMFS_OFFSET:F.ROMFS_OFFSET + len(rom)] == rom
    assert flash[F.FS_OFFSET:F.FS_OFFSET + F.FS_BYTES] == fs
    assert flash[F.JOURNAL_OFFSET:F.JOURNAL_OFFSET + F.JOURNAL_BYTES] == b"\xff" * F.JOURNAL_BYTES
    assert F.uf2_encode(chunks) == uf2                 # parse and write back: same bytes


def test_a_romfs_image_reaching_the_journals_area_is_refused(table_uf2):
    """The ROMFS image may fill the partition up to the journal's area, not a byte more."""
    fs = F.littlefs_image({})
    room = F.ROMFS_BYTES - F.JOURNAL_BYTES
    flash = F.flash_contents(F.uf2_with_filesystem(table_uf2, fs, b"\x55" * room))
    assert flash[F.ROMFS_OFFSET:F.JOURNAL_OFFSET] == b"\x55" * room
    assert flash[F.JOURNAL_OFFSET:F.FS_OFFSET] == b"\xff" * F.JOURNAL_BYTES
    with pytest.raises(F.ImageError, match="romfs.img is %d bytes; the ROMFS partition holds %d "
                       "below the journal's 52 KiB" % (room + 1, room)):
        F.uf2_with_filesystem(table_uf2, fs, b"\x55" * (room + 1))


def test_the_published_firmware_gets_littlefs_on_its_whole_storage(stock_uf2):
    """What the tests of its refusal boot: the port's own _boot.py mounts all 1408 KiB."""
    files = {"main.py": b"import table\n"}
    flash = F.flash_contents(F.uf2_with_files(stock_uf2, files))
    assert F.littlefs_files(flash[F.FS_OFFSET:]) == files
    assert len(flash[F.FS_OFFSET:]) == F.FS_BYTES


@pytest.mark.parametrize("damage, message", [
    (lambda u: u[:-1], "whole number of 512-byte blocks"),
    (lambda u: b"\x00" * 4 + u[4:], "no UF2 magic"),
    (lambda u: u[:28] + struct.pack("<I", 0x12345678) + u[32:], "family 0x12345678"),
    (lambda u: b"", "not a UF2 file"),
])
def test_a_damaged_firmware_uf2_is_refused(table_uf2, damage, message):
    fs = F.littlefs_image({})
    with pytest.raises(F.ImageError, match=message):
        F.uf2_with_filesystem(damage(table_uf2), fs)


def test_the_stock_firmware_takes_no_romfs_image_and_a_wrong_sized_fs_is_refused(
        stock_uf2, table_uf2):
    with pytest.raises(F.ImageError, match="no ROMFS partition"):
        F.uf2_with_filesystem(stock_uf2, F.littlefs_image({}), b"romfs")
    with pytest.raises(F.ImageError, match="filesystem image is"):
        F.uf2_with_filesystem(table_uf2, F.littlefs_image({}, F.FS_BYTES - 4096))
    not_micropython = F.uf2_encode([(F.XIP_BASE, b"\x00" * 256)])
    with pytest.raises(F.ImageError, match="declares no 'MicroPython'"):
        F.uf2_with_filesystem(not_micropython, F.littlefs_image({}))


# ----------------------------------------------------------------- tapptable build


def _build(out, *extra):
    return subprocess.run([*TAPPTABLE, "build", "--board", "pico", "--out", str(out), *extra],
                          capture_output=True, text=True, cwd=ROOT)


def test_build_writes_one_uf2_of_the_tables_firmware_romfs_and_littlefs(tmp_path, table_uf2):
    """``tapptable build --board pico``, no other option: the carried ROMFS
    firmware, the bytecode at the start of its ROMFS partition, the journal's
    area erased, littlefs with main.py and the manifest over the whole
    storage, checked block by block; ``--firmware`` with the same UF2 makes
    the same file."""
    out = tmp_path / "pico"
    proc = _build(out)
    assert proc.returncode == 0, proc.stderr
    assert F.UF2_NAME in proc.stdout
    uf2 = (out / F.UF2_NAME).read_bytes()
    flash = F.flash_contents(uf2)
    fw = F.uf2_chunks(table_uf2)
    chunks = F.uf2_chunks(uf2)
    assert chunks[:len(fw)] == fw
    rom = (out / "romfs.img").read_bytes()
    fs_image = (out / F.FS_IMAGE).read_bytes()
    assert 0 < len(rom) <= F.JOURNAL_OFFSET - F.ROMFS_OFFSET
    expected = {F.XIP_BASE + F.ROMFS_OFFSET + i: rom[i:i + 256].ljust(256, b"\xff")
                for i in range(0, len(rom), 256)}
    expected.update({F.XIP_BASE + F.JOURNAL_OFFSET + i: b"\xff" * 256
                     for i in range(0, F.JOURNAL_BYTES, 256)})
    expected.update({F.XIP_BASE + F.FS_OFFSET + i: fs_image[i:i + 256]
                     for i in range(0, F.FS_BYTES, 256)})
    assert dict(chunks[len(fw):]) == expected and len(chunks) == len(fw) + len(expected)
    assert flash[F.ROMFS_OFFSET:F.ROMFS_OFFSET + len(rom)] == rom
    assert flash[F.JOURNAL_OFFSET:F.JOURNAL_OFFSET + F.JOURNAL_BYTES] == b"\xff" * F.JOURNAL_BYTES
    fs = F.littlefs_files(flash[F.FS_OFFSET:])
    assert set(fs) == ON_FS | {D.DEVICE_MANIFEST}
    own = tmp_path / "own.uf2"
    own.write_bytes(table_uf2)
    again = _build(tmp_path / "again", "--firmware", str(own))
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "again" / F.UF2_NAME).read_bytes() == uf2


def test_build_with_a_missing_or_wrong_firmware_says_so_in_one_line(tmp_path):
    stock = str(rp2_images.image(rp2_images.STOCK_FIRMWARE))
    for extra, message in ((["--firmware", str(tmp_path / "nothing.uf2")], "no such file"),
                           (["--firmware", stock], "without a ROMFS partition"),
                           (["--board", "esp32", "--firmware", stock], "for --board pico only")):
        proc = _build(tmp_path / "pico", *extra)
        assert proc.returncode == 2
        assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr, proc.stderr
        assert not (tmp_path / "pico" / F.UF2_NAME).exists()
    assert "docs/build.md" in _build(tmp_path / "pico", "--firmware", stock).stderr


def test_build_refuses_a_romfs_image_reaching_the_journals_area(tmp_path, monkeypatch, capsys):
    """Exit 2 and one line with both sizes; no UF2 is left behind."""
    import argparse
    monkeypatch.setattr(F, "JOURNAL_BYTES", F.ROMFS_BYTES - 4096)     # 4 KiB left for romfs
    out = tmp_path / "pico"
    args = argparse.Namespace(board="pico", out=str(out), romfs=False, firmware=None)
    assert D.cmd_build(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    size = (out / "romfs.img").stat().st_size
    assert err == ["tapptable build: romfs.img is %d bytes; the ROMFS partition holds 4096 "
                   "below the journal's 252 KiB at its top (boards/pico.py JOURNAL_SECTORS)"
                   % size], err
    assert not (out / F.UF2_NAME).exists()


def test_a_missing_rp2_image_is_a_named_error(tmp_path, monkeypatch):
    monkeypatch.setenv(rp2_images.ENV, str(tmp_path))
    with pytest.raises(rp2_images.ImageMissing, match=rp2_images.ENV):
        rp2_images.image(rp2_images.STOCK_FIRMWARE)
    with pytest.raises(F.ImageError, match=rp2_images.ROMFS_FIRMWARE):
        F.table_firmware()


# ----------------------------------------------------------------- on the emulated Pico


def test_the_stock_uf2_refuses_the_table_and_names_its_firmware(built, tmp_path):
    """The published firmware with the table's files (.mpy) on its littlefs,
    on the emulated Pico: MicroPython mounts the image (it does not format
    it: every file is still there afterwards) and runs main.py, which stops
    with one line naming the table's UF2 and stays at the REPL."""
    from host_sim.board import SimChips
    from host_sim.rp2040.emulator import Pico
    from host_sim.rp2040.table import wire_chips
    files = F.build_files(built)
    stock = rp2_images.image(rp2_images.STOCK_FIRMWARE).read_bytes()
    chips = SimChips(seats=5)
    pico = Pico(bytes(F.flash_contents(F.uf2_with_files(stock, files))),
                rp2_images.image(rp2_images.BOOTROM))
    saved = tmp_path / "after.bin"
    try:
        wire_chips(pico, chips, 5)
        pico.run_for(3_000_000)
        said = pico.serial_output().decode(errors="replace")
        pico.save_flash(str(saved))
    finally:
        pico.close()
    after = F.littlefs_files(saved.read_bytes()[F.FS_OFFSET:])
    assert {k: after.get(k) for k in files} == files
    lines = [ln for ln in said.splitlines() if ln.startswith("tapptable:")]
    assert len(lines) == 1 and "no ROMFS partition" in lines[0], said[-800:]
    assert "tapptable-pico.uf2" in lines[0] and "Traceback" not in said
    assert said.rstrip().endswith(">>>"), said[-300:]


def test_the_uf2_of_build_boots_from_blank_flash_and_plays_a_deal(tmp_path):
    """What a builder drags onto a new Pico -- ``tapptable build --board pico``'s
    UF2, nothing else on the flash -- on the emulated Pico: MicroPython
    starts, mounts littlefs and /rom, runs main.py; the table shows its setup,
    the setup is answered (the first game, Tapp with its 36 cards: the deck
    enrolled at the table is half the test's time, Tarock's 54 take it over
    the test command's budget at 200 MHz; open mode: the deal is not dealt
    over the reader), a deck enrolled at the table and a deal played, each
    step showing what the same table shows under CPython, and the journal on
    the Pico's flash is the CPython table's."""
    from host_sim.flash import journal_area_lines
    from host_sim.players import AutoPlayers
    from host_sim.table import VirtualTable
    from tools.tapptable.bench_rp2040 import MirroredTable
    proc = _build(tmp_path / "pico")
    assert proc.returncode == 0, proc.stderr
    flash = bytes(F.flash_contents((tmp_path / "pico" / F.UF2_NAME).read_bytes()))
    new = Settings(str(tmp_path)).as_dict()            # nothing remembered yet
    twin = VirtualTable(new["variant"], new["players"], new["mode"], setup=True,
                        enrolled=False, seats=new["seat_names"][:new["players"]])
    # the display on I2C: on SPI (the Pico's pin map) this test takes 12 s more of
    # the test command's 12 minutes; the SPI panel is booted by test_rp2040_table's
    # test_main_starts_with_whatever_is_attached and played on by ``tapptable bench``
    table = MirroredTable(flash, tmp_path / "flash.bin", twin, "i2c")
    try:
        table.power_on()
        assert table.screen()[0].startswith("Einstellen"), table.screen()
        while table.app.view.engine() is None:
            if table.app.view.mode() == "enrol":
                table.enrol_cards()
            elif "Modus" in table.screen() and "<streng>" in table.screen():
                table.press("next")                  # open: no dealing over the reader
            else:
                table.press("ok")
        assert table.app.view.engine().variant() == "tapp_modern"
        result = AutoPlayers(table, seed=3, illegal_once=False).play_deal()
        assert result is not None and table.app.view.mode() != "play"    # settled
        lines = [ln.rstrip("\n") for ln in table.journal_lines()]
        assert table.pico_journal() == lines
        after = table.flash_path.read_bytes()         # saved by pico_journal
        assert journal_area_lines(after[F.JOURNAL_OFFSET:F.FS_OFFSET]) == lines   # its own area
        assert not [k for k in F.littlefs_files(after[F.FS_OFFSET:]) if k.startswith("journal")]
    finally:
        table.close()

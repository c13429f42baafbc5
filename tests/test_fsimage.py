"""The Pico's flash images (tools/tapptable/fsimage.py) and ``tapptable build --firmware``.

The littlefs image is read back with littlefs-python and mounted by the
MicroPython unix port with ``vfs.VfsLfs2`` (as the rp2 port's ``_boot.py``
does) on the emulated NOR flash of tests/mp/mpflash.py, which also writes to
it; the UF2 is parsed block by block against the official MicroPython UF2 it
was made from.  The MicroPython rp2 images come from
tools/tapptable/rp2_images.py: a missing one fails these tests loudly.
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

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
def romfs_uf2():
    return rp2_images.image(rp2_images.ROMFS_FIRMWARE).read_bytes()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``tapptable build --board pico`` of the repository's firmware/ (no UF2)."""
    out = tmp_path_factory.mktemp("build") / "pico"
    D.build("pico", out, log=lambda *a: None)
    return out


# ----------------------------------------------------------------- the layout


def test_the_firmware_declares_the_partitions_the_images_are_made_for(stock_uf2, romfs_uf2):
    """The stock firmware's binary info names its littlefs partition where
    fsimage puts it; the ROMFS firmware adds its ROMFS partition below."""
    assert F.partitions(stock_uf2) == {"MicroPython": (F.FS_OFFSET, F.FS_BYTES)}
    assert F.partitions(romfs_uf2) == {"MicroPython": (F.FS_OFFSET, F.FS_BYTES),
                                       "ROMFS": (F.ROMFS_OFFSET, F.ROMFS_BYTES)}
    assert (F.FS_OFFSET, F.FS_BYTES) == (0xA0000, 1408 * 1024)
    assert F.FS_OFFSET + F.FS_BYTES == F.FLASH_BYTES


def test_the_romfs_board_folder_is_rpi_pico_with_the_partition_fsimage_expects():
    """tools/micropython-boards/RPI_PICO_ROMFS: the stock board's storage and a
    ROMFS partition of ROMFS_BYTES, which rp2_flash.c puts just below it."""
    folder = ROOT / "tools" / "micropython-boards" / "RPI_PICO_ROMFS"
    defines = {}
    for line in (folder / "mpconfigboard.h").read_text().splitlines():
        if line.startswith("#define"):
            _, name, value = line.split(None, 2)
            defines[name] = value
    size = lambda v: eval(v, {"__builtins__": {}})  # noqa: E731 - "(256 * 1024)"
    assert size(defines["MICROPY_HW_FLASH_STORAGE_BYTES"]) == F.FS_BYTES
    assert size(defines["MICROPY_HW_ROMFS_BYTES"]) == F.ROMFS_BYTES
    assert F.FS_OFFSET - F.ROMFS_BYTES == F.ROMFS_OFFSET
    assert 'set(PICO_BOARD "pico")' in (folder / "mpconfigboard.cmake").read_text()
    assert "LED,GPIO25" in (folder / "pins.csv").read_text()


# ----------------------------------------------------------------- littlefs


def test_littlefs_image_holds_the_files_and_does_not_depend_on_their_order():
    files = {"main.py": b"print('hi')\n", "tapp/engine.mpy": bytes(range(256)) * 40,
             "table/sub/deep.mpy": b"\x00" * 3, "empty.txt": b""}
    img = F.littlefs_image(files)
    assert len(img) == F.FS_BYTES
    assert F.littlefs_files(img) == files
    assert F.littlefs_image(dict(reversed(list(files.items())))) == img


def test_littlefs_image_of_a_build_holds_every_built_file_and_the_device_manifest(built):
    files = F.littlefs_files((built / F.FS_IMAGE).read_bytes())
    manifest = json.loads((built / D.MANIFEST).read_text())
    assert set(files) == set(manifest["files"]) | {D.DEVICE_MANIFEST}
    for name in manifest["files"]:
        assert files[name] == (built / "fs" / name).read_bytes(), name
    on_board = json.loads(files[D.DEVICE_MANIFEST])
    assert on_board["files"] == manifest["files"]
    # what deploy reads back from the board: nothing left to copy
    assert D.plan(manifest, on_board) == ([], [])


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
    image.write_bytes((built / F.FS_IMAGE).read_bytes())
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


def test_uf2_holds_the_firmware_then_the_filesystem_at_its_partition(stock_uf2):
    fs = F.littlefs_image({"main.py": b"import table\n"})
    uf2 = F.uf2_with_filesystem(stock_uf2, fs)
    fw = F.uf2_chunks(stock_uf2)
    chunks = F.uf2_chunks(uf2)
    assert chunks[:len(fw)] == fw                      # the firmware, unchanged and first
    fs_chunks = chunks[len(fw):]
    assert [a for a, _ in fs_chunks] == list(range(F.XIP_BASE + F.FS_OFFSET,
                                                   F.XIP_BASE + F.FS_OFFSET + F.FS_BYTES, 256))
    assert b"".join(p for _, p in fs_chunks) == fs
    blocks = _blocks(uf2)
    n = len(blocks)
    assert n == len(fw) + F.FS_BYTES // 256
    for i, (m0, m1, flags, _addr, size, no, total, family, end) in enumerate(blocks):
        assert (m0, m1, end) == (F.UF2_MAGIC_START0, F.UF2_MAGIC_START1, F.UF2_MAGIC_END)
        assert (flags, size, no, total, family) == (0x2000, 256, i, n, 0xE48BFF56)
    flash = F.flash_contents(uf2)
    fw_flash = F.flash_contents(stock_uf2)
    fw_end = max(a + len(p) for a, p in fw) - F.XIP_BASE
    assert flash[:fw_end] == fw_flash[:fw_end]
    assert flash[F.FS_OFFSET:] == fs
    assert F.uf2_encode(chunks) == uf2                 # parse and write back: same bytes


def test_uf2_with_romfs_puts_the_romfs_image_in_its_partition(romfs_uf2):
    fs = F.littlefs_image({"main.py": b"import table\n"})
    rom = b"\xd2\xcd\x31" + bytes(range(200)) * 10     # any bytes: placed, not parsed
    flash = F.flash_contents(F.uf2_with_filesystem(romfs_uf2, fs, rom))
    assert flash[F.ROMFS_OFFSET:F.ROMFS_OFFSET + len(rom)] == rom
    assert flash[F.FS_OFFSET:] == fs


@pytest.mark.parametrize("damage, message", [
    (lambda u: u[:-1], "whole number of 512-byte blocks"),
    (lambda u: b"\x00" * 4 + u[4:], "no UF2 magic"),
    (lambda u: u[:28] + struct.pack("<I", 0x12345678) + u[32:], "family 0x12345678"),
    (lambda u: b"", "not a UF2 file"),
])
def test_a_damaged_firmware_uf2_is_refused(stock_uf2, damage, message):
    fs = F.littlefs_image({})
    with pytest.raises(F.ImageError, match=message):
        F.uf2_with_filesystem(damage(stock_uf2), fs)


def test_the_stock_firmware_takes_no_romfs_image_and_a_wrong_sized_fs_is_refused(stock_uf2):
    fs = F.littlefs_image({})
    with pytest.raises(F.ImageError, match="no ROMFS partition"):
        F.uf2_with_filesystem(stock_uf2, fs, b"romfs")
    with pytest.raises(F.ImageError, match="filesystem image is"):
        F.uf2_with_filesystem(stock_uf2, fs[:-4096])
    not_micropython = F.uf2_encode([(F.XIP_BASE, b"\x00" * 256)])
    with pytest.raises(F.ImageError, match="declares no 'MicroPython'"):
        F.uf2_with_filesystem(not_micropython, fs)


# ----------------------------------------------------------------- tapptable build


def test_build_with_firmware_writes_one_uf2_with_everything(tmp_path):
    fw = rp2_images.image(rp2_images.STOCK_FIRMWARE)
    out = tmp_path / "pico"
    proc = subprocess.run([*TAPPTABLE, "build", "--board", "pico", "--out", str(out),
                           "--firmware", str(fw)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert F.UF2_NAME in proc.stdout
    flash = F.flash_contents((out / F.UF2_NAME).read_bytes())
    assert flash[F.FS_OFFSET:] == (out / F.FS_IMAGE).read_bytes()
    assert "main.py" in F.littlefs_files(flash[F.FS_OFFSET:])


def test_build_romfs_puts_the_bytecode_in_rom_and_only_main_on_the_filesystem(tmp_path):
    fw = rp2_images.image(rp2_images.ROMFS_FIRMWARE)
    out = tmp_path / "pico"
    proc = subprocess.run([*TAPPTABLE, "build", "--board", "pico", "--out", str(out),
                           "--romfs", "--firmware", str(fw)], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    flash = F.flash_contents((out / F.UF2_NAME).read_bytes())
    rom = (out / "romfs.img").read_bytes()
    assert flash[F.ROMFS_OFFSET:F.ROMFS_OFFSET + len(rom)] == rom
    assert set(F.littlefs_files(flash[F.FS_OFFSET:])) == {"main.py", D.DEVICE_MANIFEST}


def test_build_with_a_missing_or_wrong_firmware_says_so_in_one_line(tmp_path):
    for extra, message in ((["--firmware", str(tmp_path / "nothing.uf2")], "no such file"),
                           (["--romfs", "--firmware",
                             str(rp2_images.image(rp2_images.STOCK_FIRMWARE))],
                            "no ROMFS partition")):
        proc = subprocess.run([*TAPPTABLE, "build", "--board", "pico", "--out",
                               str(tmp_path / "pico"), *extra],
                              capture_output=True, text=True, cwd=ROOT)
        assert proc.returncode == 2
        assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr, proc.stderr
        assert not (tmp_path / "pico" / F.UF2_NAME).exists()


def test_a_missing_rp2_image_is_a_named_error(tmp_path, monkeypatch):
    monkeypatch.setenv(rp2_images.ENV, str(tmp_path))
    with pytest.raises(rp2_images.ImageMissing, match=rp2_images.ENV):
        rp2_images.image(rp2_images.STOCK_FIRMWARE)


# ----------------------------------------------------------------- on the emulated Pico


def _built_flash(tmp_path, romfs):
    """The flash a Pico holds after the one UF2 of ``tapptable build --firmware``."""
    fw = rp2_images.image(rp2_images.ROMFS_FIRMWARE if romfs
                              else rp2_images.STOCK_FIRMWARE)
    out = tmp_path / "pico"
    proc = subprocess.run([*TAPPTABLE, "build", "--board", "pico", "--out", str(out),
                           "--firmware", str(fw)] + (["--romfs"] if romfs else []),
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return bytes(F.flash_contents((out / F.UF2_NAME).read_bytes())), out


def test_the_stock_uf2_boots_micropython_on_the_table_files(tmp_path):
    """The published firmware with the table's filesystem, on the emulated Pico:
    MicroPython mounts the image (it does not format it: every file is still
    there afterwards) and runs main.py, which imports the table from it (the
    table needs more heap than this firmware leaves: docs/benchmarks.md)."""
    from host_sim.board import SimChips
    from host_sim.rp2040.emulator import Pico
    from host_sim.rp2040.table import wire_chips
    flash, out = _built_flash(tmp_path, romfs=False)
    chips = SimChips(seats=5)
    pico = Pico(flash, rp2_images.image(rp2_images.BOOTROM))
    saved = tmp_path / "after.bin"
    try:
        wire_chips(pico, chips, 5)
        pico.run_for(3_000_000)
        said = pico.serial_output()
        pico.save_flash(str(saved))
    finally:
        pico.close()
    before = F.littlefs_files((out / F.FS_IMAGE).read_bytes())
    after = F.littlefs_files(saved.read_bytes()[F.FS_OFFSET:])
    assert {k: after.get(k) for k in before} == before
    # the table's code ran from these files: it shows a screen, or (the stock
    # firmware's heap being too small for .mpy files) main.py names the ROMFS way
    ran = b"the table ran out of RAM" in said and b"--romfs" in said
    assert ran or any(row.strip() for row in chips.oled.text_rows()), said[-800:]


def test_the_romfs_uf2_boots_the_table_on_the_emulated_pico(tmp_path):
    """What a user drags onto the board, written into the emulated Pico's
    flash: MicroPython starts, mounts the filesystem and the ROMFS partition,
    runs main.py, and the table's setup screen answers a button."""
    from host_sim.board import SimChips
    from host_sim.rp2040.emulator import Pico
    from host_sim.rp2040.table import wire_chips
    flash, _out = _built_flash(tmp_path, romfs=True)
    chips = SimChips(seats=5)
    pico = Pico(flash, rp2_images.image(rp2_images.BOOTROM))
    try:
        sync_buttons = wire_chips(pico, chips, 5)
        first = chips.oled.text_rows()
        for _ in range(40):                      # the first screen within 5 s
            pico.run_for(125_000)
            first = chips.oled.text_rows()
            if chips.oled.display_on and any(row.strip() for row in first):
                break
        assert chips.oled.display_on and any(row.strip() for row in first), (
            first, pico.serial_output()[-500:])
        chips.button_pins[1].press()             # "next": the setup's next answer
        sync_buttons()
        pico.run_for(150_000)
        chips.button_pins[1].release()
        sync_buttons()
        pico.run_for(300_000)
        assert chips.oled.text_rows() != first, first
        assert b"Traceback" not in pico.serial_output()
    finally:
        pico.close()

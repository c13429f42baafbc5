"""The console and deploy against the port a Pico runs: MicroPython v1.28.0's rp2
port in the emulated RP2040 (host_sim/rp2040/), its USB CDC on a
pseudo-terminal (``Pico.open_pty``), the table's unchanged ``main.py``.

* PREV held at power-up is safe boot: the app does not start, the REPL is there;
* while the table plays, keyboard interrupt is really off on the rp2 port:
  Ctrl-C bytes on the USB serial line do not stop it; the PIN-guarded
  ``repl`` command hands the board to the REPL (journal closed), after which
  mpremote works and names the machine;
* ``tapptable deploy`` stops the table by itself, checks ``sys.platform``
  (rp2), the machine name and the ROMFS partition before changing anything,
  refuses an esp32 build and a Pico on the published firmware (no ROMFS
  partition: the table itself refuses to start there, naming its UF2);
* .mpy files loaded into RAM leave too little of it for the table: it stops
  with one line naming the table's UF2, whose ROMFS runs them from flash.

The MicroPython UF2s and the boot ROM come from tools/tapptable/rp2_images.py
(without them these tests fail and name what to supply).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from host_sim.rp2040.emulator import Pico, flash_image
from host_sim.rp2040.table import bootrom_path, firmware_uf2
from tools.tapptable import console as client
from tools.tapptable import deploy as D
from tools.tapptable import fsimage

ROOT = Path(__file__).resolve().parent.parent
PIN = "4711"
BUTTONS = (10, 11, 12)          # firmware/boards/pico.py: prev, next, OK (to ground)
MACHINE = "Raspberry Pi Pico with RP2040"      # RPI_PICO_ROMFS names the board as RPI_PICO


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    D.build("pico", out / "rom", src=ROOT / "firmware", log=lambda s: None)
    D.build("esp32", out / "esp32", src=ROOT / "firmware", log=lambda s: None)
    return out


@pytest.fixture
def pico_with(builds):
    """Boot the emulated Pico on the table's firmware with its ROMFS image as
    ``tapptable build`` makes them (``romfs=False``: the published firmware,
    every module as .mpy on littlefs; ``prev_held``: PREV pressed at
    power-up)."""
    picos = []

    def boot(prev_held=False, romfs=True):
        rom = builds / "rom"
        files = dict(fsimage.build_files(rom, romfs),
                     **{"settings.json": json.dumps({"referee_pin": PIN}).encode()})
        img = (rom / "romfs.img").read_bytes() if romfs else None
        pico = Pico(flash_image(firmware_uf2(romfs), files=files, romfs_image=img),
                    bootrom_path())
        picos.append(pico)
        for gpio in BUTTONS:
            pico.set_input(gpio, 0 if prev_held and gpio == BUTTONS[0] else 1)
        return pico
    yield boot
    for pico in picos:
        pico.close()


def test_prev_held_at_power_up_is_safe_boot(pico_with):
    pico = pico_with(prev_held=True)
    text = pico.wait_for(b">>> ", 5_000_000).decode(errors="replace")
    assert "safe boot (PREV held at power-up)" in text and MACHINE in text


def test_ctrl_c_does_not_stop_the_table_and_repl_hands_it_over(pico_with):
    pico = pico_with()
    pico.run_for(2_000_000)                        # the table is up, nobody talking
    assert b">>>" not in pico.serial_output()
    port = pico.open_pty()
    texts = []
    link = client.Link(port, on_text=texts.append, reconnect_s=0)
    try:
        assert link.hello(timeout=30)["protocol"] >= 2
        link.send_raw(b"\x03\x03 noise \x03\x04\n")
        time.sleep(1)
        status = link.request("status", timeout=30)
        assert status["state"] == "setup" and status["mem_free"] > 50000
        with pytest.raises(client.DeviceError) as e:
            link.request("repl", timeout=30)
        assert e.value.code == "locked"
        assert link.request("repl", pin=PIN, timeout=30)["repl"] is True
        time.sleep(1)
        with pytest.raises(client.ReplError):
            link.request("status", timeout=5)
        assert any("the table stopped for the REPL (journal closed)" in t for t in texts)
    finally:
        link.close()
    board = D.Board(port, timeout=120)
    assert board.identify() == ("rp2", MACHINE)      # mpremote has the board


def test_deploy_stops_the_table_and_checks_the_board(pico_with, builds):
    pico = pico_with()
    pico.run_for(2_000_000)
    port = pico.open_pty()
    said = []
    with pytest.raises(D.DeployError, match="not a esp32 board.*--board pico"):
        D.deploy("esp32", port, builds / "esp32", dry_run=True, reset=False, stop_pin=PIN,
                 log=said.append)
    assert said == ["the table's app stopped for the REPL (journal closed)"]
    copy, remove = D.deploy("pico", port, builds / "rom", dry_run=True, reset=False,
                            log=said.append)
    # the table's firmware has a ROMFS partition: the image goes there by default
    assert said[1] == "plan for %s (rp2, %s): copy 0, remove 0, romfs.img" % (port, MACHINE)
    assert copy == [] and remove == []               # main.py on the flash is the build's


def test_a_pico_on_the_published_firmware_is_refused(pico_with, builds):
    pico = pico_with(romfs=False)                    # the stock firmware: no ROMFS
    pico.run_for(2_000_000)
    said = pico.serial_output().decode(errors="replace")
    assert "no ROMFS partition" in said and "tapptable-pico.uf2" in said, said
    port = pico.open_pty()
    link = client.Link(port, reconnect_s=0)
    try:                                             # main.py stopped: no table answers
        with pytest.raises(client.ReplError, match="not running"):
            link.request("status", timeout=10)
    finally:
        link.close()
    with pytest.raises(D.DeployError, match="without a ROMFS partition.*tapptable-pico.uf2"):
        D.deploy("pico", port, builds / "rom", dry_run=True, reset=False,
                 log=lambda s: None)


def test_bytecode_loaded_into_ram_names_the_tables_uf2(builds):
    """Measured here: from .mpy files on littlefs (loaded into RAM) the table's
    firmware has too little heap left for it (docs/benchmarks.md). The board
    says so and how to fix it, and stays at the REPL (mpremote and deploy
    still reach it)."""
    files = fsimage.build_files(builds / "rom")      # every module as .mpy
    files["settings.json"] = json.dumps({"referee_pin": PIN}).encode()
    pico = Pico(flash_image(firmware_uf2(True), files=files), bootrom_path())
    try:
        for gpio in BUTTONS:
            pico.set_input(gpio, 1)
        pico.run_for(3_000_000)                      # power-up: the table tries to start
        out = pico.serial_output().decode(errors="replace")
    finally:
        pico.close()
    assert "the table ran out of RAM" in out and "tapptable-pico.uf2" in out, out
    assert "Traceback" not in out, out

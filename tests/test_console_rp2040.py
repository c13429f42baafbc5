"""The console and deploy against the port a Pico runs: MicroPython v1.28.0's rp2
port in the emulated RP2040 (host_sim/rp2040/), its USB CDC on a
pseudo-terminal (``Pico.open_pty``), the table's unchanged ``main.py``.

* PREV held at power-up is safe boot: the app does not start, the REPL is there;
* while the table plays, keyboard interrupt is really off on the rp2 port:
  Ctrl-C bytes on the USB serial line do not stop it; the PIN-guarded
  ``repl`` command hands the board to the REPL (journal closed), after which
  mpremote works and names the machine;
* ``tapptable deploy`` stops the table by itself, checks ``sys.platform``
  (rp2) and the machine name before changing anything, refuses an esp32 build
  and a ROMFS deploy onto firmware without a ROMFS partition;
* a flat .mpy deploy leaves too little RAM for the console: the table plays
  on and answers ``unavailable`` (deploy with --romfs).

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
MACHINE = "Raspberry Pi Pico with RP2040"


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    D.build("pico", out / "rom", src=ROOT / "firmware", romfs=True, log=lambda s: None)
    D.build("esp32", out / "esp32", src=ROOT / "firmware", log=lambda s: None)
    D.build("pico", out / "flat", src=ROOT / "firmware", log=lambda s: None)
    return out


@pytest.fixture
def pico_with(builds):
    """Boot the emulated Pico on a ROMFS image of the table (``prev_held``: PREV
    pressed at power-up); its USB serial port as a pty path."""
    picos = []

    def boot(prev_held=False, romfs=True):
        rom = builds / "rom"
        files = {"main.py": (rom / "fs" / "main.py").read_bytes(),
                 "settings.json": json.dumps({"referee_pin": PIN}).encode()}
        flash = bytearray(flash_image(firmware_uf2(romfs), files=files))
        if romfs:
            img = (rom / "romfs.img").read_bytes()
            flash[fsimage.ROMFS_OFFSET:fsimage.ROMFS_OFFSET + len(img)] = img
        pico = Pico(bytes(flash), bootrom_path())
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
    copy, remove = D.deploy("pico", port, builds / "rom", dry_run=True, romfs=True,
                            reset=False, log=said.append)
    assert said[1].startswith("plan for %s (rp2, %s): copy 0, remove 0" % (port, MACHINE))
    assert copy == [] and remove == []               # main.py on the flash is the build's


def test_romfs_needs_a_partition(pico_with, builds):
    pico = pico_with(romfs=False)                    # the stock firmware: no ROMFS
    pico.run_for(2_000_000)
    port = pico.open_pty()
    link = client.Link(port, reconnect_s=0)
    try:                                             # main.py finds no table: a broken app
        with pytest.raises(client.ReplError, match="not running"):
            link.request("status", timeout=10)
    finally:
        link.close()
    with pytest.raises(D.DeployError, match="no ROMFS partition"):
        D.deploy("pico", port, builds / "rom", dry_run=True, romfs=True, reset=False,
                 log=lambda s: None)


def test_a_flat_deploy_on_the_stock_firmware_names_the_romfs_way(builds):
    """Measured here: from .mpy files the published firmware leaves too little heap
    for the table (docs/benchmarks.md). The board says so and how to fix it, and
    stays at the REPL (mpremote and deploy still reach it)."""
    flat = builds / "flat"
    files = {k: (flat / "fs" / k).read_bytes()
             for k in json.loads((flat / "manifest.json").read_text())["files"]}
    files["settings.json"] = json.dumps({"referee_pin": PIN}).encode()
    pico = Pico(flash_image(firmware_uf2(False), files=files), bootrom_path())
    try:
        for gpio in BUTTONS:
            pico.set_input(gpio, 1)
        pico.run_for(3_000_000)                      # power-up: the table tries to start
        out = pico.serial_output().decode(errors="replace")
    finally:
        pico.close()
    assert "the table ran out of RAM" in out and "--romfs" in out, out
    assert "Traceback" not in out, out

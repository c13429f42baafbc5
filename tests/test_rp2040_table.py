"""The firmware on the port a Pico runs: MicroPython v1.28.0's rp2 port in the
emulated RP2040 (host_sim/rp2040/, ``--runtime rp2040``), the host's chip
models at the pins of firmware/boards/pico.py.

A chosen few scenario files run here, under a minute to two of CPU each: a
power cut mid-trick in open mode that must end as the uncut reference does
in the test command (strict mode's dealing over the reader is played on the
emulated Pico by the bench's slow test, tests/test_bench.py; a Tapp deal by
tests/test_fsimage.py's UF2 test; a Württemberg deal cut in and after its
flash operations by tests/test_rp2040_cuts.py); strict mode's power cut mid-trick
with the next deal, the Tarock and the Herzblatt deals join it with the slow
extras (``TAPP_SLOW=1``, ``dev.py test --slow``), which run every scenario
file on the emulated Pico (the sessions of several deals take ten minutes
and more each; ``TAPP_RP2040_ALL=1`` too), so the test command stays under
its 12 minutes on two cores.

The flash keeps what is written (littlefs formats, files survive a reboot) and
a power cut inside a page program leaves part of the page programmed, from
which the table boots and resumes.  The table starts
without a display.

The table's firmware (RPI_PICO_ROMFS, built from the board folder
tools/micropython-boards/RPI_PICO_ROMFS) and the RP2040 boot ROM come from
tools/micropython-boards/images (tools/tapptable/rp2_images.py): without them
these tests fail and name what to supply.
"""
import os
from pathlib import Path

import pytest

from host_sim.board import OLED_ADDR
from host_sim.players import AutoPlayers
from host_sim.rp2040.emulator import CutPoint, Pico, flash_image
from host_sim.rp2040.table import (
    SPI_DISPLAY,
    Rp2040Table,
    bootrom_path,
    cpython_on_flash,
    firmware_files,
    firmware_uf2,
    power_up_device,
)
from host_sim.runtimes import EMULATED
from host_sim.scenario import format_failures, run_file
from host_sim.table import VirtualTable
from tools.tapptable import fsimage, rp2_images

SCENARIO_DIR = Path(__file__).parent / "scenarios"
# power cuts mid-trick (open, then strict with the next deal), a deal of each other family
CHOSEN = ("power_cut_same_deal_open", "resume_mid_trick", "deal_tarock_simple_3_open",
          "deal_herzblatt_4_strict")
QUICK = CHOSEN[:1]          # the test command's share (the others: 80, 60 and 90 s more)
EVERY = "1" in (os.environ.get("TAPP_RP2040_ALL"), os.environ.get("TAPP_SLOW"))
NAMES = sorted(p.stem for p in SCENARIO_DIR.glob("*.scn")) if EVERY else QUICK


def test_without_the_images_the_runtime_says_what_to_supply(tmp_path, monkeypatch):
    monkeypatch.setenv(rp2_images.ENV, str(tmp_path))          # an empty folder
    with pytest.raises(rp2_images.ImageMissing) as err:
        Rp2040Table("tapp_modern", 3, root=str(tmp_path))
    assert rp2_images.ENV in str(err.value) and str(tmp_path) in str(err.value)


def test_the_chosen_scenarios_exist():
    missing = [n for n in CHOSEN if not (SCENARIO_DIR / (n + ".scn")).is_file()]
    assert not missing


@pytest.mark.parametrize("name", NAMES)
def test_scenario_on_the_emulated_pico(name):
    path = SCENARIO_DIR / (name + ".scn")
    failures = run_file(str(path), runtime=EMULATED)
    assert not failures, "\n" + format_failures(name + ".scn", failures)


def _deal_a_few(cls, **kw):
    """Six cards dealt over the centre reader and lifted again."""
    table = cls("wuerttemberg", 3, "strict", **kw)
    try:
        AutoPlayers(table, seed=4).deal_cards(6)
        table.wait(200)
        return {"journal": table.journal_lines(), "screen": table.screen(),
                "framebuffer": bytes(table.board.oled.ram), "leds": table.leds(),
                "led_history": table.board.strip.history[-1:]}
    finally:
        table.close()


def test_the_pico_leaves_what_cpython_leaves(tmp_path):
    """The same actions at the table: the same journal bytes (with CRCs), OLED
    memory and LEDs on the emulated Pico as under CPython."""
    cpython = _deal_a_few(VirtualTable)
    pico = _deal_a_few(Rp2040Table, root=str(tmp_path))
    assert any(r.startswith("Karte ") and not r.startswith("Karte 0/")   # cards counted
               for r in cpython["screen"])
    for key in cpython:
        assert pico[key] == cpython[key], key


def test_a_record_replays_on_the_pico_as_under_cpython():
    """``tapptable replay --runtime rp2040``: the engine on the emulated Pico
    (the replay beside the table's image, which leaves it out) writes the
    outcome lines CPython writes."""
    from host_sim.rp2040.replay import replay_on_pico
    from tapp.replay import replay_stream

    record = Path(__file__).parent / "golden" / "berliner_4_open.jsonl"
    on_pico = []
    assert replay_on_pico(str(record), on_pico.append) == 0
    here = []
    with record.open("rb") as f:
        replay_stream(f, here.append)
    assert len(here) > 10 and "".join(on_pico) == "".join(here)


# ----------------------------------------------------------------- the flash


def _pico(flash):
    return Pico(flash, bootrom_path())


LAYOUT_NOW = ("import os, vfs\nd = vfs.rom_ioctl(2, 0)\nprint(vfs.rom_ioctl(1), "
              "d.ioctl(4, 0) * d.ioctl(5, 0), os.statvfs('/')[2] * os.statvfs('/')[0])")


def test_littlefs_formats_on_blank_flash_and_a_file_survives_the_power_cut(tmp_path):
    """The table's firmware on a new Pico: the port's _boot.py formats littlefs
    on the whole storage, the ROMFS partition is the board folder's, and
    nothing either does touches the journal's area at the partition's top."""
    blank = bytearray(flash_image(firmware_uf2(True)))   # no filesystem: _boot.py formats it
    assert blank[fsimage.FS_OFFSET:fsimage.FS_OFFSET + 4096] == b"\xff" * 4096
    journal = slice(fsimage.JOURNAL_OFFSET, fsimage.JOURNAL_OFFSET + fsimage.JOURNAL_BYTES)
    blank[journal] = b"\x5a" * fsimage.JOURNAL_BYTES        # records an old journal left
    pico = _pico(bytes(blank))
    try:
        pico.boot_to_repl()
        assert pico.flash_state()["erase"] >= 1     # the format erased blocks
        assert pico.exec_raw(LAYOUT_NOW).split() == [
            "1", str(fsimage.ROMFS_BYTES), str(fsimage.FS_BYTES)]
        pico.exec_raw("f = open('kept.txt', 'w'); f.write('tapp' * 3000); f.close()")
    finally:
        pico.power_cut(tmp_path / "flash.bin")
    assert (tmp_path / "flash.bin").read_bytes()[journal] == b"\x5a" * fsimage.JOURNAL_BYTES
    again = _pico(tmp_path / "flash.bin")
    try:
        again.boot_to_repl()
        out = again.exec_raw("import os; print(sorted(os.listdir('/')), "
                             "open('kept.txt').read() == 'tapp' * 3000)")
    finally:
        again.close()
    assert out.split() == ["['kept.txt']", "True"]


def test_the_faster_emulator_runs_exactly_what_rp2040js_runs():
    """host_sim/rp2040/fast_core.mjs (the decoder as a jump table, SRAM stores
    without the peripheral lookup) changes no instruction and no cycle: the
    same boot and the same Python code leave the same program counter,
    instruction count, timer reads, emulated time and output as rp2040js's own;
    and so do the runner's bursts of instructions (the clock moved in place)
    against each instruction stepped on its own (``profile``)."""
    code = ("s = 0\nd = {}\nfor i in range(300):\n s = (s * 31 + i) % 1000003\n"
            " d[str(i)] = [i] * (i % 5)\nprint(s, len(d), sum(len(v) for v in d.values()))")
    image = flash_image(firmware_uf2(True))
    runs = []
    for chain, one_by_one in ((True, False), (False, False), (False, True)):
        pico = Pico(image, bootrom_path(), chain_decoder=chain)
        try:
            if one_by_one:
                pico.profile()
            pico.boot_to_repl()
            out = pico.exec_raw(code)
            runs.append((out, pico.now_us, pico.stats()))
        finally:
            pico.close()
    assert runs[0][0].split()[1:] == ["300", "600"]
    assert runs[0] == runs[1] == runs[2]


def test_a_power_cut_inside_a_page_program_leaves_part_of_the_page(tmp_path):
    pico = _pico(flash_image(firmware_uf2(True), files={"log.txt": b"old\n"}))
    try:
        pico.boot_to_repl()
        pico.arm_cut("program")
        with pytest.raises(CutPoint):
            pico.exec_raw("f = open('log.txt', 'a'); f.write('new line\\n' * 200); f.close()")
        pico.run_for(150)                            # of the page's 400 us
        state = pico.flash_state()
        pico.save_flash(tmp_path / "cut.bin")
        pico.run_for(1000)                           # the program ends
        pico.save_flash(tmp_path / "done.bin")
    finally:
        pico.close()
    assert state["busy"] == "program" and 0 < state["done"] < state["cells"], state
    cut = (tmp_path / "cut.bin").read_bytes()
    done = (tmp_path / "done.bin").read_bytes()
    a, k, n = state["addr"], state["done"], state["cells"]
    assert cut[a:a + k] == done[a:a + k]             # the first bytes are programmed
    assert cut[a + k:a + n] == b"\xff" * (n - k)     # the rest still erased...
    assert done[a + k:a + n] != b"\xff" * (n - k)    # ...where the program wrote
    again = _pico(tmp_path / "cut.bin")              # littlefs mounts the cut flash
    try:
        again.boot_to_repl()
        text = again.exec_raw("print(open('log.txt').read())")
    finally:
        again.close()
    assert text.startswith("old\n")


def _act(players):
    """One thing the simulated players do at the table (as AutoPlayers.play_deal)."""
    table = players.table
    players.sync()
    expects = table.view.expects()
    if table.app.view.menu_size():
        players.choose()
    elif expects == "card":
        players.play_card()
    else:
        table.wait(100)


def _cpython_on_the_same_flash(table, root):
    """The CPython table powered up on the files the Pico's flash holds (read
    from its littlefs), with the same cards on the readers."""
    return cpython_on_flash(Path(table.flash_path).read_bytes(), table.args, root,
                            [[tag.uid for tag in tags] for tags in table.tags])


def test_the_table_resumes_after_a_cut_inside_a_journal_write(tmp_path):
    """Open mode (the cards face down: no dealing over the reader): the players
    act on the emulated Pico; the power goes while a journal append is being
    programmed; the next boot resumes from what the flash kept, and play goes
    on (the players' shadow session checks every journalled event)."""
    table = Rp2040Table("wuerttemberg", 3, "open", root=str(tmp_path))
    try:
        players = AutoPlayers(table, seed=4, illegal_once=False)
        before = table.journal_lines()
        table.pico.arm_cut("program")
        with pytest.raises(CutPoint):
            for _ in range(20):
                _act(players)
        table.pico.run_for(100)
        assert table.pico.flash_state()["busy"] == "program"
    except BaseException:
        table.close()
        raise
    table.power_off()
    cpython = _cpython_on_the_same_flash(table, tmp_path / "cpython")
    resumed = table.power_on()
    try:
        after = resumed.journal_lines()
        assert after[:len(before)] == before         # nothing journalled before is lost
        assert after == cpython.journal_lines()      # resumed as CPython resumes...
        assert resumed.screen() == cpython.screen()  # ...from the same files
        players = AutoPlayers(resumed, seed=5, illegal_once=False)
        for _ in range(4):
            _act(players)
        players.sync()
        assert len(resumed.journal_lines()) > len(after)
    finally:
        resumed.close()


# ----------------------------------------------------------------- whatever is attached


@pytest.mark.parametrize("display_addr, miso", [(None, 0x00), (0x3D, 0xFF), (0x3C, 0xFF),
                                                (SPI_DISPLAY, 0x00)],
                         ids=["no-display", "display-0x3D", "display-0x3C", "display-spi"])
def test_main_starts_with_whatever_is_attached(display_addr, miso):
    """firmware/main.py at power-up on the Pico's own board (six chip-selects):
    readers for three seats and the centre, the other two chip-selects read
    ``miso``; the display where given.  The table starts and says so on USB
    serial (docs/console.md), and names the readers that are not there."""
    pico, chips = power_up_device(display_addr=display_addr, players=3, floating_miso=miso)
    try:
        pico.run_for(2_000_000)
        pico.serial_write(b"\r")                   # a byte opens the console door:
        out = ""                                   # the console loads a part a step
        waited = 0
        said = ['"event":"hello"']                 # ... and says each reader's fault after
        if miso == 0xFF:
            said += ['"reader":3,"state":"reader_fault"', '"reader":4,"state":"reader_fault"']
        while not all(s in out for s in said) and waited < 2_000_000:
            pico.run_for(100_000)
            waited += 100_000
            out += pico.serial_output().decode(errors="replace")   # (what came since)
        print("the console said it all %d ms after the first byte" % (waited // 1000))
    finally:
        pico.close()
    assert "Traceback" not in out, out
    assert '"event":"hello"' in out, out
    if miso == 0xFF:                                 # 0xFF reads as a reader's fault
        assert '"reader":3,"state":"reader_fault"' in out, out
        assert '"reader":4,"state":"reader_fault"' in out, out
    if display_addr in (OLED_ADDR, SPI_DISPLAY):
        assert chips.oled.display_on and chips.oled.text_rows()[0].strip()
    if display_addr == SPI_DISPLAY:                  # reset by its RES# pin, then set up
        assert chips.oled.resets == 1 and chips.oled.transactions > 0


def test_the_self_test_says_what_is_missing():
    """OK held at power-up: the bring-up self-test on the console names the
    seats without a reader and finds the others; with no panel on I2C the
    Pico drives the one on SPI, which cannot answer: the test says so and
    shows its pattern to look at."""
    pico, _chips = power_up_device(display_addr=None, players=3, held=("ok",))
    try:
        pico.serial_write(b"\r")
        pico.run_for(6_000_000)
        out = pico.serial_output().decode(errors="replace")
    finally:
        pico.close()
    assert "display: ok no panel at I2C address 0x3c or 0x3d, so the one on SPI" in out, out
    for seat in (1, 2, 3):
        assert "seat %d: ok" % seat in out, out
    assert "seat 4: FAIL" in out and "seat 5: FAIL" in out and "centre: ok" in out, out


def test_the_table_starts_without_a_display(tmp_path):
    table = Rp2040Table("tapp_modern", 3, "strict", root=str(tmp_path), display_addr=None)
    try:
        table.wait(300)
        assert table.leds() == ["idle"] * 3
        assert len(table.journal_lines()) == 1       # the session's header
    finally:
        table.close()


TAP_DURING_A_LONG_STEP = """\
import time
from machine import Pin
from drivers.buttons import EVENT_NAMES, ButtonPad
keys = [Pin(n, Pin.IN, Pin.PULL_UP) for n in (10, 11, 12)]
pad = ButtonPad(keys[0], keys[1], keys[2], time.ticks_ms)
if %s:
    pad.latch_edges(Pin.IRQ_FALLING | Pin.IRQ_RISING)
print('busy')
t = time.ticks_ms()
while time.ticks_diff(time.ticks_ms(), t) < 300:
    pass
print('got', EVENT_NAMES[pad.poll()])
"""


@pytest.mark.parametrize("latched", [True, False])
def test_a_tap_during_a_long_loop_step_is_taken_on_the_pico(latched):
    """The rp2 port's pin interrupts: NEXT tapped for 80 ms while Python is busy
    for 300 ms (a long loop step) is the next poll's event when the pad latches
    its edges (as boards/common.py has it), and is lost when it only samples."""
    files, romfs_image = firmware_files(True)          # the firmware, no main.py
    pico = _pico(flash_image(firmware_uf2(True), files=files, romfs_image=romfs_image))
    try:
        pico.boot_to_repl()
        for gpio in (10, 11, 12):
            pico.set_input(gpio, 1)                 # released (the pull-ups)
        pico.serial_write(b"\r\x03\x03\x01")
        pico.wait_for(b"raw REPL; CTRL-B to exit\r\n>", 10_000_000)
        pico.serial_write((TAP_DURING_A_LONG_STEP % latched).encode() + b"\x04")
        pico.wait_for(b"busy", 10_000_000)
        pico.run_for(50_000)
        pico.set_input(11, 0)
        pico.run_for(80_000)
        pico.set_input(11, 1)
        out = pico.wait_for(b"\x04", 10_000_000).decode()
    finally:
        pico.close()
    assert ("got next" if latched else "got none") in out, out


NATIVE_AGAINST_SPI = """\
from machine import SPI, Pin
from drivers import mfrc522 as M
from boards.rp2_regs import Rp2Regs
spi = SPI(0, baudrate=4000000, sck=Pin(18), mosi=Pin(19), miso=Pin(16))
Pin(9, Pin.OUT, value=1)
for cs in (20, 21, 22, 26, 27):
    Pin(cs, Pin.OUT, value=1)
cs = Pin(17, Pin.OUT, value=1)
plain = M.MFRC522(spi, cs)
native = M.MFRC522(spi, cs, regs=Rp2Regs(17))
regs = Rp2Regs(17)
print('crc', regs.crc_a(bytes((0x12, 0x50, 0x00)), 3), regs.crc_a(bytes((0x12,)), 1))
print('init', plain.init(hard_reset=False), native.init(hard_reset=False))
for rd in (plain, native, plain, native):
    r = rd.scan()
    print('scan', r, bytes(rd.uid[:rd.uid_len]).hex(), rd.sak)
    r = rd.reselect()
    print('again', r, bytes(rd.uid[:rd.uid_len]).hex())
"""


@pytest.mark.parametrize("uid", ["04a1b2c3d4e5f6", "a1b2c3d4"])
def test_the_native_bus_access_reads_what_machine_spi_reads(uid):
    """boards/rp2_regs.py on the emulated Pico (the RP2040's SPI0 and SIO
    registers, rp2040js): a card read through its native frames and CRC_A is
    the card read through machine.SPI and the chip's CalcCRC; its CRC_A is
    ISO/IEC 14443-3's (HLTA "50 00" carries 57 CD)."""
    from host_sim.board import SimChips
    from host_sim.mfrc522_model import Tag
    from host_sim.rp2040.table import wire_chips
    files, romfs_image = firmware_files(True)          # the firmware, no main.py
    pico = _pico(flash_image(firmware_uf2(True), files=files, romfs_image=romfs_image))
    chips = SimChips(seats=5)
    try:
        wire_chips(pico, chips, 5)
        chips.chips[0].place(Tag(bytes.fromhex(uid)))
        pico.boot_to_repl()
        out = pico.exec_raw(NATIVE_AGAINST_SPI).split("\n")
    finally:
        pico.close()
    lines = [ln.strip() for ln in out if ln.strip()]
    assert lines[0] == "crc %d %d" % (0xCD57, 0x6363), lines
    assert lines[1] == "init True True", lines
    reads = lines[2:]
    assert len(reads) == 8, lines
    for k in range(0, 8, 2):
        assert reads[k].split()[:3] == ["scan", "1", uid], lines
        assert reads[k + 1] == "again 1 %s" % uid, lines
    assert len(set(reads[0::2])) == 1, lines     # the same card, the same SAK


SPI_WRITES = """\
import time
from machine import SPI, Pin
cs = Pin(8, Pin.OUT, value=1)
spi = SPI(0, baudrate=4000000, sck=Pin(18), mosi=Pin(19), miso=Pin(16))
for n in (16, 31, 32, 128):
    cs(0)
    t = time.ticks_us()
    spi.write(bytes(range(n)))
    print('wrote', n, time.ticks_diff(time.ticks_us(), t))
    cs(1)
"""


def test_machine_spi_writes_take_their_time_on_the_wire_dma_too():
    """machine.SPI on the emulated Pico: a write of 32 bytes or more goes by
    DMA (MicroPython's rp2 port), which waited forever while the emulator
    finished each byte at once (the transmit channel, rescheduled at the same
    instant, overran the receive FIFO); each byte now takes its 8 clocks at
    4 MHz, as on the wire -- the display's page of 128 bytes 256 us."""
    from host_sim.board import SimChips
    from host_sim.rp2040.table import SPI_DISPLAY, wire_chips
    files, romfs_image = firmware_files(True)
    pico = _pico(flash_image(firmware_uf2(True), files=files, romfs_image=romfs_image))
    chips = SimChips(seats=3)
    try:
        wire_chips(pico, chips, 3, SPI_DISPLAY)
        pico.boot_to_repl()
        out = pico.exec_raw(SPI_WRITES, limit_us=2_000_000)
    finally:
        pico.close()
    took = {int(n): int(us) for _w, n, us in (ln.split() for ln in out.split("\n") if ln.strip())}
    assert sorted(took) == [16, 31, 32, 128], out
    for n, us in took.items():
        assert n * 2 <= us < n * 2 + 400, (n, us)      # 2 us a byte, and the call (125 MHz)
    # the panel on the display's chip-select got every byte, as data or commands
    assert chips.oled.bytes == 16 + 31 + 32 + 128, chips.oled.bytes


def test_a_display_that_stops_answering_gets_every_page_when_it_is_back(tmp_path):
    """On the Pico's own I2C (the bus's time modelled): a panel that stops
    acknowledging (a loose wire) while cards are dealt is noticed at the next
    page, the table deals on, and once the panel answers again (tried every
    second: it may have lost power) it gets every page: it shows what the
    table shows."""
    table = Rp2040Table("tapp_modern", 3, "strict", root=str(tmp_path))
    try:
        table.wait(300)
        assert table.screen() == [r.rstrip() for r in table.app.view.rows()]
        table.pico.i2c_ack([])                      # the wire comes loose
        before = table.screen()
        for code in ("S7", "S8", "S9"):
            table.place(table.centre, code)
            table.lift(table.centre)
        rows = [r.rstrip() for r in table.app.view.rows()]
        assert rows != before and "3/" in " ".join(rows)    # the table dealt on,
        assert table.screen() == before                     # the panel missed it
        table.pico.i2c_ack([OLED_ADDR])             # ... and is back
        table.wait(1500)                            # tried again within a second
        assert table.screen() == [r.rstrip() for r in table.app.view.rows()]
    finally:
        table.close()

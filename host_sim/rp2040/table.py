"""The virtual table with the firmware on the emulated Pico (``--runtime rp2040``).

``Rp2040Table`` is the virtual table (host_sim/table.py) with the unchanged
firmware running on the table's MicroPython (the rp2 port with a ROMFS
partition, RPI_PICO_ROMFS) in the emulated RP2040
(host_sim/rp2040/emulator.py), as ``tapptable build --board pico`` makes it:
the bytecode in the firmware's ROMFS partition, the rest on the Pico's
littlefs (``romfs=False``: ``.mpy`` files on littlefs and the published
RPI_PICO firmware, for the tests of its refusal).
The chips are the host's models (host_sim/board.py's ``SimChips``), wired to
the pins of
firmware/boards/pico.py by ``wire_chips``: the readers on SPI0 with their
chip-selects and the shared reset, the display on I2C0, the buttons as GPIO
inputs, the LED strip decoded from its data pin, the buzzer from its PWM slice.

As for the MicroPython VM runtime (host_sim/vm_table.py), the host's
scheduler runs the application's jobs: ``Rp2040Table`` is the VM's table's
sibling, a ``BridgedTable`` (host_sim/bridge.py) whose link is the Pico's
USB serial port (``PicoLink``), where the Pico runs one step per command
(host_sim/rp2040/pico_main.py, on the serve loop both share).  Between
steps the Pico waits for the next command and the emulator skips that idle
time; the scheduler's clock is the emulated one, so the table's timeline is
the Pico's.  ``link.step_us`` holds the longest step of each job (by its
method) as the Pico's own clock measured it.

The Pico's flash lives in a file (``flash``, default ``pico-flash.bin`` in the
table's folder): a power cut writes what the serial flash held at that cycle
(an erase or program under way left half done), and the next power-up boots
from it: MicroPython mounts the same littlefs and the table resumes the journal.
"""
import json
import os
import subprocess
import tempfile
from pathlib import Path

from boards import pico as pico_board
from host_sim.board import OLED_ADDR, SimChips
from host_sim.bridge import BridgedTable, Link, VmError
from host_sim.rp2040.emulator import Pico, PicoError, flash_image
from host_sim.spi_bus import BusError
from host_sim.table import JOURNAL_IMAGE, VirtualTable
from host_sim.vm.vm_deck import enrol_virtual_deck
from table.app import JOBS
from table.registry import Registry
from tools import mpvm
from tools.tapptable import rp2_images

HERE = Path(__file__).resolve().parent
VM_DIR = HERE.parent / "vm"
ENTRY = "tapp_rp2040"                 # pico_main.py's name on the Pico
FLASH_FILE = "pico-flash.bin"
ANSWER_LIMIT_US = 30_000_000          # emulated time one command may take (a hang after)
FLOATING_MISO = 0x00                  # what SPI0 reads with no reader selected


_FILES = {}                           # romfs -> (files, ROMFS image): built once
_MAIN = {}                            # romfs -> the firmware's main.py


def firmware_files(romfs):
    """({path: bytes} for the Pico's filesystem, the ROMFS image or None): the
    firmware as ``tapptable build --board pico [--romfs]`` compiles it (without
    main.py: the host runs the jobs) and the scheduler's end of the bridge.
    Built once per process."""
    if romfs not in _FILES:
        from tools.tapptable import deploy, fsimage
        out = Path(tempfile.mkdtemp(prefix="tapp-pico-build-"))
        deploy.build("pico", out, romfs=romfs, log=lambda *_a: None)
        files = fsimage.build_files(out, romfs)
        _MAIN[romfs] = files.pop("main.py")
        bridge = {ENTRY: HERE / "pico_main.py"}
        for name in ("vm_serve", "vm_link", "vm_deck"):
            bridge[name] = VM_DIR / (name + ".py")
        # the replay, which the Pico's image leaves out (tapptable replay --runtime rp2040)
        bridge["tapp_replay"] = HERE.parent.parent / "firmware" / "tapp" / "replay.py"
        for name, src in bridge.items():       # bytecode, as the firmware's modules
            mpy = out / (name + ".mpy")
            subprocess.run([str(mpvm.mpy_cross_binary()), "-march=armv6m", "-s", name + ".py",
                            "-o", str(mpy), str(src)], check=True, capture_output=True)
            files[name + ".mpy"] = mpy.read_bytes()
        _FILES[romfs] = files, (out / "romfs.img").read_bytes() if romfs else None
    return _FILES[romfs]


def device_flash(romfs=True, decks=1, firmware=None):
    """The Pico's flash as a user's table holds it: the firmware with its
    main.py (the table starts at power-up, firmware/main.py), ``decks``
    enrolled virtual decks, nothing else (no settings: the first power-up)."""
    files, romfs_image = firmware_files(romfs)
    files = dict(files, **enrolled_files(decks))
    files["main.py"] = _MAIN[romfs]
    return flash_image(firmware or firmware_uf2(romfs), files=files, romfs_image=romfs_image)


# ``display_addr`` for a display on SPI0 at the board's display pins (boards/pico.py:
# its own chip-select, D/C# and reset), not on I2C0
SPI_DISPLAY = "spi"


def power_up_device(display_addr=OLED_ADDR, players=5, floating_miso=FLOATING_MISO,
                    romfs=True, flash=None, held=()):
    """The whole device on the emulated Pico: firmware/main.py runs at power-up
    with the Pico's board (firmware/boards/pico.py: six chip-selects), readers
    fitted for ``players`` seats and the centre (the other chip-selects read
    ``floating_miso``), the display at ``display_addr`` (None: none;
    SPI_DISPLAY: on SPI0), the
    buttons named in ``held`` ("prev", "next", "ok") held down.  Returns
    (pico, chips); run it with ``pico.run_for``, talk to it on USB serial."""
    chips = SimChips(seats=players)
    for name in held:
        chips.button_pins[("prev", "next", "ok").index(name)].press()
    pico = Pico(flash if flash is not None else device_flash(romfs), bootrom_path())
    try:
        wire_chips(pico, chips, players, display_addr, floating_miso)
    except BaseException:
        pico.close()
        raise
    return pico, chips


def enrolled_files(decks):
    """{path: bytes} of the registry with ``decks`` virtual decks enrolled, as
    the table's own registry code writes them (in this process: enrolling 36
    cards on the emulated Pico takes seconds of flash erases at every boot)."""
    if not decks:
        return {}
    with tempfile.TemporaryDirectory(prefix="tapp-decks-") as root:
        registry = Registry(root)
        registry.load()
        for deck_id in range(1, decks + 1):
            enrol_virtual_deck(registry, deck_id)
        return {p.relative_to(root).as_posix(): p.read_bytes()
                for p in Path(root).rglob("*") if p.is_file()}


def bootrom_path():
    return rp2_images.image(rp2_images.BOOTROM)


def firmware_uf2(romfs):
    """MicroPython's UF2 for the Pico: the table's (RPI_PICO_ROMFS, with a
    ROMFS partition) or the published RPI_PICO one."""
    return rp2_images.image(rp2_images.ROMFS_FIRMWARE if romfs
                            else rp2_images.STOCK_FIRMWARE)


def cpython_on_flash(flash, args, root, tags=()):
    """The CPython table powered up (resuming) on what the Pico's ``flash``
    (the whole image's bytes) holds: its littlefs files copied to the folder
    ``root``, its journal's area as that folder's image; ``args``: a table's
    ``args``; ``tags``: per reader, the uids lying on it."""
    from tools.tapptable import fsimage
    root = Path(root)
    for name, data in fsimage.littlefs_files(
            flash[fsimage.FS_OFFSET:fsimage.FS_OFFSET + fsimage.FS_BYTES]).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    area = fsimage.JOURNAL_OFFSET
    (root / JOURNAL_IMAGE).write_bytes(flash[area:area + fsimage.JOURNAL_BYTES])
    args = {k: v for k, v in args.items() if k != "flash_kb"}
    table = VirtualTable(root=str(root), enrolled=False, resume=True, **args)
    for reader, uids in enumerate(tags):
        for uid in uids:
            table.place_tag(reader, uid, wait=False)
    table.wait()
    return table


class EmulatorClock:
    """The scheduler's clock: the Pico's emulated time; advancing it runs the
    Pico (idle, waiting for the next command) that long."""

    def __init__(self, pico, before_run):
        self.pico = pico
        self.before_run = before_run

    @property
    def now_us(self):
        return self.pico.now_us

    def advance(self, us):
        if us > 0:
            self.before_run()
            self.pico.run_for(us)


def wire_chips(pico, chips, players, display_addr=OLED_ADDR, floating_miso=FLOATING_MISO):
    """Attach the host's chip models ``chips`` (``SimChips``) at the pins of
    firmware/boards/pico.py: the seats in play and the centre reader on SPI0
    (the seats' chip-selects first, the centre's last; other chip-selects have
    no reader: SPI0 reads ``floating_miso``), the shared reset, the display at
    ``display_addr`` on I2C0 (None: no display, nothing acknowledges; SPI_DISPLAY:
    on SPI0 at the board's display pins, nothing on I2C0), the
    WS2812 strip and the buzzer.  Returns ``sync_buttons``: call it before
    running the Pico to drive the button pins to the models' levels."""
    pins = pico_board.PINS
    chips.bus.overhead_us = 0.0       # the emulator's clock times the bus, not the model's
    chips.bus.init(baudrate=10 ** 15)
    clock = chips.clock

    def on_time(t_us):
        if t_us > clock.now_us:
            clock.advance(t_us - clock.now_us)
    pico.on_time = on_time
    cs = list(pins["reader_cs"][:players]) + [pins["reader_cs"][-1]]
    for gpio, pin in zip(cs, chips.cs, strict=True):
        pico.watch(gpio, lambda _t, level, pin=pin: pin.value(level))
    pico.watch(pins["reader_rst"], lambda _t, level: chips.rst.value(level))

    def on_spi(_t, byte):
        try:
            return chips.bus.read(1, byte)[0]
        except BusError:              # no reader selected: nobody drives MISO
            return floating_miso
    pico.on_spi = on_spi
    if display_addr == SPI_DISPLAY:     # (else its bytes go nowhere: emulator.Pico)
        cs, dc, res = pins["display_spi"]
        oled = chips.oled
        pico.spi_display(cs, dc, lambda _t, is_data, data: oled.spi_write(data, is_data))
        pico.watch(res, lambda _t, level: oled.reset() if level == 0 else None)
    if display_addr not in (None, SPI_DISPLAY):
        pico.i2c_ack([display_addr])
        pico.on_i2c_write = lambda _t, _addr, data: chips.i2c.writeto(OLED_ADDR, data)
        pico.on_i2c_read = lambda _t, _addr: chips.i2c.readfrom(OLED_ADDR, 1)[0]
    else:
        pico.i2c_ack([])
    pico.ws2812(pins["ws2812"], lambda _t, data: chips.strip.wire_in(data))

    def on_pwm(_t, freq, duty, enabled):
        pwm = chips.pwm
        if 8 <= freq <= 62_500_000 and freq != pwm.freq():
            pwm.freq(freq)
        duty = duty if enabled else 0
        if duty != pwm.duty_u16():
            pwm.duty_u16(duty)
    pico.pwm(pins["buzzer"], on_pwm)
    sent = {}

    def sync_buttons():
        for gpio, pin in zip(pins["buttons"], chips.button_pins, strict=True):
            level = pin.value()
            if sent.get(gpio) != level:
                pico.set_input(gpio, level)
                sent[gpio] = level
    sync_buttons()
    return sync_buttons


class _SerialPipe:
    """The Pico's USB serial as the pipe a ``Link`` talks over: lines out, lines in."""

    def __init__(self, pico):
        self.pico = pico
        self.stdin = self
        self.stdout = self
        self._out = []

    def write(self, data):
        self._out.append(bytes(data))

    def flush(self):
        data = b"".join(self._out)
        self._out.clear()
        self.pico.serial_write(data)

    def readline(self):
        return self.pico.read_line(ANSWER_LIMIT_US).replace(b"\r\n", b"\n")


class PicoLink(Link):
    """The commands of vm_serve.py (a job step, a value, a call) over the
    Pico's USB serial, as plain lines (pico_main.py ``PicoPort``).  The bus
    operations do not cross this link: the Pico's own SPI, I2C and pins reach
    the chip models through the emulator."""

    def __init__(self, pico, cfg, sync_buttons):
        Link.__init__(self, _SerialPipe(pico))
        self.pico = pico
        self.sync_buttons = sync_buttons
        self.step_us = {}             # job method -> its longest step (the Pico's clock)
        pico.serial_write(b"import %s\r" % ENTRY.encode())
        pico.serial_write(json.dumps(cfg).encode() + b"\n")
        self.serve()                  # until the application is built

    def step(self, job):
        """Run one step of job number ``job`` on the Pico (the microseconds it
        took kept in ``step_us``): the ms the job waits now."""
        self.sync_buttons()
        spent, wait = Link.step(self, job)
        method = JOBS[job][1]
        if spent > self.step_us.get(method, -1):
            self.step_us[method] = spent
        return wait

    def stderr_tail(self, n=2000):
        return "%s\n(emulator) %s" % (self.pico.serial_output()[-n:].decode(errors="replace"),
                                      self.pico.stderr_tail(n))

    def close(self):
        self.pico.close()


class Rp2040Table(BridgedTable):
    """``VirtualTable`` with the firmware on the emulated Pico.

    ``romfs``: the firmware's bytecode in a ROMFS image, run from flash (the
    default: from ``.mpy`` files on littlefs the modules take most of the
    heap, docs/benchmarks.md); ``firmware``: MicroPython's UF2 for the Pico,
    with a ROMFS partition when ``romfs`` (default: RPI_PICO_ROMFS,
    tools/tapptable/rp2_images.py); ``flash``: the file holding the Pico's
    flash (made from the firmware and the built files when absent);
    ``display_addr``: where the display answers on I2C0 (None: no display;
    SPI_DISPLAY: the display on SPI0)."""

    def __init__(self, *args, flash=None, firmware=None, romfs=True, display_addr=OLED_ADDR,
                 **kw):
        self.flash_path = flash
        self.firmware = firmware
        self.romfs = romfs
        self.display_addr = display_addr
        BridgedTable.__init__(self, *args, **kw)

    def mount_flash(self, flash_kb, flash_store):
        """The Pico has its own flash (``flash``): none from the host."""
        return None

    def journal_area(self, kb, dev, files, given):
        """The journal lies on the Pico's own flash too (its area, or littlefs)."""
        return None

    def boot(self, values, setup, resume):
        players = values["players"]
        bootrom = bootrom_path()      # the images first: a missing one is named at once
        uf2 = self.firmware or firmware_uf2(self.romfs)
        if self.flash_path is None:
            self.flash_path = os.path.join(self.root, FLASH_FILE)
        decks = self.decks
        if not os.path.exists(self.flash_path):
            files, romfs_image = firmware_files(self.romfs)
            files = dict(files, **enrolled_files(decks))
            Path(self.flash_path).write_bytes(flash_image(uf2, files=files,
                                                          romfs_image=romfs_image))
            decks = 0                 # enrolled on the host, through the same front door
        self.board = SimChips(seats=players)
        self.pico = Pico(self.flash_path, bootrom)
        try:
            sync_buttons = wire_chips(self.pico, self.board, players, self.display_addr)
            self.pico.boot_to_repl()
            self.boot_us = self.pico.now_us
            cfg = {"players": players, "fields_on": self.args["fields_on"],
                   "values": values, "setup": setup, "resume": resume,
                   "decks": decks}
            link = PicoLink(self.pico, cfg, sync_buttons)
        except (PicoError, VmError):
            self.pico.close()
            raise
        self.flash = None
        self.bridge(link, EmulatorClock(self.pico, sync_buttons))

    def save_flash(self, path=None):
        """Write the Pico's flash, as a power cut now leaves it, to the file."""
        self.pico.save_flash(path or self.flash_path)

    def close(self):
        """Power off: the flash as it is at this cycle goes to the file."""
        if self.pico.proc.poll() is None:
            self.save_flash()
        self.link.close()

    def power_up_args(self):
        return dict(self.args, flash=self.flash_path, firmware=self.firmware, romfs=self.romfs,
                    display_addr=self.display_addr)

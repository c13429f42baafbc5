"""The virtual table with the application inside the real MicroPython VM.

``VmTable`` is ``VirtualTable`` (host_sim/table.py) with one difference: the
unchanged firmware runs in the MicroPython unix port (strict heap), not in this
process (a ``BridgedTable``, host_sim/bridge.py, as the emulated Pico's table
is).  The chip models stay here (host_sim/board.py's ``SimChips``); inside
the VM, ``machine``, ``neopixel`` and ``time`` are small bridge modules
(host_sim/vm/) that send every bus operation over the VM's standard input and
output to them.  The scheduler (host_sim/scheduler.py) runs here and asks the
VM to run one job step at a time, so both runtimes see the same virtual
timeline, and a scenario file expects the same in both.

Why a bridge and not the models inside the VM: the models are host code
(CPython-only libraries, PNG output, type hints), and the point is to run the
firmware, and only the firmware, under MicroPython's heap and integer
semantics.  The cost is one pipe round trip per register read: a scenario runs
a few times slower than in CPython (``tapptable sim --scenario`` prints the
time).

Front-ends ask about the application through host_sim/bridge.py's ``Remote``
objects: the view's questions and the App's inputs, as the allow-list of the
VM's serve loop (host_sim/vm/vm_serve.py ``ALLOWED``) names them.  Nothing
else crosses.
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path

from host_sim.board import SimChips
from host_sim.bridge import BridgedTable, Link, Remote, VmError
from host_sim.flash import PICO_JOURNAL_KB, split
from host_sim.pins import Pin
from host_sim.table import JOURNAL_IMAGE
from tools import mpvm

VM_DIR = Path(__file__).resolve().parent / "vm"
VM_HEAPSIZE = "1m"      # the app and the bridge's JSON answers; the app's own peak: bench
FLASH_HEAPSIZE = "4m"   # ... and littlefs's emulated flash with its log of operations
LOG_KB = 64             # ... the journal area's log of operations, when a test keeps one
COMMAND_LIMIT_S = 60.0  # a command the VM has not finished by then is a hang: it is killed


def journal_heapsize(journal_kb):
    """The VM's heap with the journal's area in it: the app's, the area's
    bytes and room for its log."""
    return "%dk" % (1024 + journal_kb + LOG_KB)


def compiled_firmware():
    """A folder holding firmware/ compiled by mpy-cross (``.mpy`` files, as
    the device runs them), made once per content of the sources and shared by
    every process: on the VM's path before firmware/, so a power-up imports
    bytecode instead of compiling the sources again (0.11 s of a VM's start ->
    0.05 s; the journal's power-cut tests start about 200 VMs).  Tracebacks
    name the sources' paths as before."""
    root = mpvm.repo_root() / "firmware"
    sources = mpvm.bytecode_sources(root)
    mpy_cross = mpvm.mpy_cross_binary()
    h = hashlib.sha256(str(mpy_cross).encode())
    for src in sources:
        h.update(src.relative_to(root).as_posix().encode() + b"\0" + src.read_bytes())
    out = Path(tempfile.gettempdir()) / ("tapp-vm-mpy-" + h.hexdigest()[:16])
    if not out.is_dir():
        part = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
        for src in sources:
            mpy = part / src.relative_to(root).with_suffix(".mpy")
            mpy.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([str(mpy_cross), "-s", str(src), "-o", str(mpy), str(src)],
                           check=True, capture_output=True)
        try:
            os.rename(part, out)
        except OSError:               # another process made it meanwhile
            shutil.rmtree(part, ignore_errors=True)
    return out


class VmLink(Link):
    """One MicroPython process running firmware/ on ``chips``, and the host's
    end of its bridge: serves the bus operations, sends commands (framed:
    host_sim/vm/vm_link.py ``read_frame``)."""

    def __init__(self, chips, cfg, heapsize=VM_HEAPSIZE):
        self.chips = chips
        self.pins = {c.name.encode(): c for c in chips.cs}
        self.pins[b"rst"] = chips.rst
        self.edges = []                # the buttons' edges since the last step
        for i, pin in enumerate(chips.button_pins):
            self.pins[pin.name.encode()] = pin
            pin.irq(handler=self._edge_noter(i), trigger=Pin.IRQ_FALLING | Pin.IRQ_RISING)
        # the settings go in the environment: the unix port fails on an argument
        # of 256 characters or more ("FATAL: uncaught NLR")
        env = dict(os.environ, TAPP_VM_TABLE=json.dumps(cfg))
        cmd, env = mpvm.unix_cmd(VM_DIR / "vm_main.py", [], heapsize,
                                 extra_path=[VM_DIR, compiled_firmware()], env=env,
                                 tests=False)
        self.stderr = tempfile.TemporaryFile()
        Link.__init__(self, subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env,
            cwd=mpvm.repo_root()), {
            b"P": self._pin_write, b"p": self._pin_read, b"W": self._spi_write,
            b"X": self._spi_exchange, b"R": self._spi_read, b"S": self._sleep,
            b"T": self._ticks, b"I": self._i2c_write, b"V": self._i2c_writev,
            b"Q": self._i2c_read, b"A": self._i2c_scan, b"N": self._strip,
            b"F": self._pwm_freq, b"D": self._pwm_duty, b"Z": self._pwm_off,
        })
        self.timed_out = False
        self._stop_watch = threading.Event()
        threading.Thread(target=_watch, args=(weakref.ref(self), self.proc, self._stop_watch),
                         daemon=True).start()
        self._finalizer = weakref.finalize(self, _stop, self.proc, self.stderr,
                                           self._stop_watch)
        self.serve()                   # until the application is built

    def _edge_noter(self, i):
        """Button i's interrupt on the host's side: its edges, and when, go to
        the VM with the next step (its pins' interrupts run them then)."""
        def noted(pin):
            self.edges.append(b" %d:%d:%d" % (i, pin.value(), self.chips.clock.ticks_ms()))
        return noted

    def step(self, job):
        """Run one step of job number ``job`` in the VM; the buttons' levels and
        their edges since the last step go with it (the VM reads them from
        there, not over the link)."""
        levels = self._button_levels()
        edges = b"".join(self.edges)
        self.edges = []
        out = self.command(self.frame(b"s%c%s%s\n" % (48 + job, levels, edges)))
        if self._button_levels() != levels:
            raise VmError("a button changed during a job step (a bounce on the clock?): "
                          "the VM runtime takes button changes between steps only")
        return out

    def _button_levels(self):
        return bytes(0x30 if pin.is_pressed else 0x31 for pin in self.chips.button_pins)

    def close(self):
        """Power off: the VM is killed, as a power cut would stop the chip."""
        self._finalizer()

    @staticmethod
    def frame(line):
        """``line`` (bytes with its newline) as the VM reads it
        (host_sim/vm/vm_link.py ``read_frame``): its length in four digits first."""
        if len(line) > 9999:
            raise VmError("a line of %d bytes for the VM (9999 at most)" % len(line))
        return b"%04d" % len(line) + line

    def why_stopped(self):
        return " (no answer for %d s: killed)" % COMMAND_LIMIT_S if self.timed_out else ""

    def stderr_tail(self, n=2000):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-n:]

    # ----- the handlers: one per message kind (host_sim/vm/vm_machine.py) ---------------

    def _pin(self, name):
        pin = self.pins.get(name)
        if pin is None:                      # a pin no model listens to (sck, ws2812, ...)
            pin = self.pins[name] = Pin(name.decode(), Pin.OUT)
        return pin

    def _pin_write(self, arg):
        name, _, level = arg.partition(b" ")
        write = (self._pin(name).value, int(level))
        self.pin_lines[b"@P%s\n" % arg] = write
        self._guard(*write)

    def _pin_read(self, arg):
        return b"%d" % self._pin(arg).value()

    def _spi_write(self, arg):
        self._guard(self.chips.bus.write, bytes.fromhex(arg.decode()))

    def _spi_exchange(self, arg):
        out = bytes.fromhex(arg.decode())
        into = bytearray(len(out))
        self.chips.bus.write_readinto(out, into)
        return into.hex().encode()

    def _spi_read(self, arg):
        n, _, write = arg.partition(b" ")
        return self.chips.bus.read(int(n), int(write)).hex().encode()

    def _sleep(self, arg):
        self.chips.bus.sleep_us(int(arg))

    def _ticks(self, _arg):
        return b"%d" % self.chips.clock.ticks_us()

    def _i2c_write(self, arg):
        addr, _, data = arg.partition(b" ")
        return b"%d" % self.chips.i2c.writeto(int(addr), bytes.fromhex(data.decode()))

    def _i2c_writev(self, arg):
        addr, _, parts = arg.partition(b" ")
        vector = [bytes.fromhex(p.decode()) for p in parts.split(b",")]
        return b"%d" % self.chips.i2c.writevto(int(addr), vector)

    def _i2c_read(self, arg):
        addr, _, n = arg.partition(b" ")
        return self.chips.i2c.readfrom(int(addr), int(n)).hex().encode()

    def _i2c_scan(self, _arg):
        return ",".join(str(a) for a in self.chips.i2c.scan()).encode()

    def _strip(self, arg):
        self.chips.strip.wire_in(bytes.fromhex(arg.decode()))

    def _pwm_freq(self, arg):
        self._guard(self.chips.pwm.freq, int(arg))

    def _pwm_duty(self, arg):
        self.chips.pwm.duty_u16(int(arg))

    def _pwm_off(self, _arg):
        self.chips.pwm.deinit()


def _watch(link_ref, proc, stop):
    """Kill the VM when one command has taken longer than COMMAND_LIMIT_S (a
    hang, e.g. a lost line of the protocol): the host then reports it."""
    while not stop.wait(min(5.0, COMMAND_LIMIT_S / 4)):
        link = link_ref()
        if link is None:
            return
        since = link.busy_since
        if since is not None and time.monotonic() - since > COMMAND_LIMIT_S:
            link.timed_out = True
            proc.kill()
            return
        del link


def _stop(proc, stderr, stop_watch):
    stop_watch.set()
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for f in (proc.stdin, proc.stdout):
        f.close()
    stderr.close()


class VmTable(BridgedTable):
    """``VirtualTable`` with the application inside the MicroPython unix port.

    ``flash``: a file holding the table's littlefs (decks, settings) as an
    image: the VM mounts littlefs on emulated NOR flash (the Pico's 4 KB erase
    blocks, host_sim/vm/nor_flash.py) made from it (formatted when the file
    does not exist yet), and a power cut writes back what reached the flash.
    Without it the table's files lie in ``root`` on the host's file system, as
    for ``VirtualTable``.  ``journal``: the image file of the journal's own
    flash area (default ``<root>/journal.img``), on the same NOR model in the
    VM: read at power-up, written through when the table was given its folder
    or the image, else written back at a power cut."""

    def __init__(self, *args, flash=None, journal=None, **kw):
        self.flash_path = flash
        self.flash_blocks = None
        self.journal_path = journal
        self.journal_blocks = 0
        self.journal_through = journal is not None
        BridgedTable.__init__(self, *args, **kw)

    def mount_flash(self, flash_kb, flash_store):
        """``flash_kb``: the VM's littlefs on emulated flash of that size, its
        image in a file of its own (kept over power cuts: ``power_up_args``)."""
        if flash_kb is not None:
            self.flash_blocks = split(flash_kb)[0] * 1024 // 4096
            if self.flash_path is None:
                self.flash_path = os.path.join(tempfile.mkdtemp(prefix="tapptable-"),
                                               "flash.img")
        return None

    def journal_area(self, kb, dev, files, given):
        """The journal's area lives in the VM: here its image file and size
        (``VirtualTable.journal_area`` says which)."""
        self.journal_blocks = (kb or PICO_JOURNAL_KB) * 1024 // 4096
        if files:
            self.journal_path = None
        elif self.journal_path is None:
            self.journal_path = os.path.join(self.root, JOURNAL_IMAGE)
            self.journal_through = given
        return None

    def boot(self, values, setup, resume):
        self.board = SimChips(seats=values["players"])
        cfg = {"root": os.path.abspath(self.root), "players": values["players"],
               "fields_on": self.args["fields_on"], "values": values, "setup": setup,
               "resume": resume, "decks": self.decks, "flash": self.flash_path,
               "flash_blocks": self.flash_blocks,
               "journal": self.journal_path and os.path.abspath(self.journal_path),
               "journal_blocks": self.journal_blocks, "journal_through": self.journal_through}
        self.bridge(VmLink(self.board, cfg, FLASH_HEAPSIZE if self.flash_path else
                           journal_heapsize(self.journal_blocks * 4) if self.journal_path
                           else VM_HEAPSIZE), self.board.clock)
        self.flash = Remote(self.link, "flash") if self.flash_path else None
        self.journal_flash = Remote(self.link, "journal_flash") if self.journal_path else None

    def save_flash(self, path=None):
        """Write what reached the VM's flash to the image file (or ``path``)."""
        self.flash.save(os.path.abspath(path or self.flash_path))

    def power_off(self):
        if self.flash_path:
            self.save_flash()
        if self.journal_path and not self.journal_through:
            self.journal_flash.save(os.path.abspath(self.journal_path))
        BridgedTable.power_off(self)

    def power_up_args(self):
        return dict(self.args, flash=self.flash_path, journal=self.journal_path)

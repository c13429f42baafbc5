"""An emulated Raspberry Pi Pico: MicroPython's rp2 port in rp2040js.

``Pico`` boots a flash image (MicroPython's UF2 written in, a littlefs
filesystem, see ``flash_image``) in the RP2040 emulator ``rp2040js`` (npm,
pinned in package.json), which runs in a Node child process
(host_sim/rp2040/runner.mjs).  The chips on the Pico's pins stay in this
process: whatever the firmware clocks out of SPI0, writes on I2C0 or toggles on
a watched pin arrives here as a call of a handler; while a handler answers a
byte, the emulated CPU does not move (Node waits in a blocking read), so a
run is deterministic.

Time is the emulator's: ``now_us`` (a CPU cycle is one period of clk_sys as
the firmware sets the clock tree: 8 ns at MicroPython's 125 MHz, 5 ns at the
table's 200 MHz, firmware/boards/pico.py; idle time skipped when the CPU
sleeps).  Nothing runs unless asked: ``run_for``,
``run_until_line``, ``serial_write``.

What the emulator lets the host observe and what it does not (rp2040js 1.4.1):

- SPI0 and I2C0 byte by byte (the hardware blocks' FIFOs); an I2C byte takes
  its 9 SCL periods on the wire (runner.mjs: 22.5 us at 400 kHz), an SPI byte
  no emulated time (2 us at the readers' 4 MHz);
- GPIO levels (chip-selects, the readers' reset, buttons as inputs);
- the WS2812 strip: ``neopixel`` writes with ``machine.bitstream``, a timed
  loop; the pulses are decoded from the pin's edges in emulated time;
- the buzzer: the PWM slice's frequency and duty, read from its registers (the
  pin's waveform itself is not sampled);
- USB CDC: the Pico's serial console (``serial_write``, ``serial_output``),
  with read requests held until the host sends (no idle traffic);
- the serial flash: erase and program are modelled (host_sim/rp2040/
  serial_flash.mjs), so a power cut (``power_cut``) leaves the flash as a real
  chip would, also in the middle of an erase or a program; every program and
  erase can be logged (``start_oplog``, ``save_oplog``), so that the flash a
  cut in any of them leaves is rebuilt without running the Pico again
  (tests/test_rp2040_cuts.py).

Not modelled: flash cache misses (every memory access is one cycle, timings
are optimistic), the second core's timing, analogue levels, the PWM waveform.
"""
import os
import subprocess
import tempfile
import time
from pathlib import Path

from boards.pico import PINS
from tools import mpvm
from tools.tapptable import fsimage

RUNNER = Path(__file__).resolve().parent / "runner.mjs"
BOOT_LIMIT_US = 3_000_000      # the REPL's banner appears after ~16 ms: 3 s is a hang
PROMPT = b">>> "


class PicoError(RuntimeError):
    """The emulator stopped, refused a command, or the Pico did not answer."""


class CutPoint(Exception):
    """The flash operation ``arm_cut`` waits for has begun: the run stopped
    there (the Pico can run on, or be cut: ``power_cut``)."""


def flash_image(firmware_uf2, files=None, romfs_image=None):
    """The Pico's 2 MiB flash, erased, after the firmware UF2 and, given, a
    littlefs filesystem of ``files`` ({"path": bytes}) and a ROMFS image (for
    a firmware with a ROMFS partition) were written: what the boot drive
    leaves on a new board (fsimage.uf2_with_files)."""
    uf2 = Path(firmware_uf2).read_bytes()
    if files is not None or romfs_image is not None:
        uf2 = fsimage.uf2_with_files(uf2, files or {}, romfs_image)
    return bytes(fsimage.flash_contents(uf2))


class Pico:
    """One emulated Pico on ``flash`` (bytes of a whole flash image, e.g.
    ``flash_image(...)``, or the path of a file holding one).  The emulator
    decodes instructions through a jump table and stores to SRAM directly
    (host_sim/rp2040/fast_core.mjs); ``chain_decoder=True`` keeps rp2040js as
    it is, which runs the same instructions with the same cycles, only slower.

    Handlers (set before running; each is called with the emulated time in
    microseconds first):

    - ``on_spi(t, byte) -> byte``: SPI0, one byte out, one byte in;
    - ``on_pin[gpio](t, level)``: an output pin changed (``watch(gpio, fn)``);
    - ``on_spi_display(t, is_data, data)``: bytes for a display on SPI0 at
      one D/C# level (``spi_display(cs, dc, fn)``; not passed to ``on_spi``);
    - ``on_i2c_write(t, addr, data)``: a whole I2C0 write transaction to an
      address that acknowledges (``i2c_ack(addrs)``; others get no ACK, as on
      an empty bus);  ``on_i2c_read(t, addr) -> byte``;
    - ``on_ws2812(t, data)``: one frame of WS2812 bytes (``ws2812(gpio, fn)``);
    - ``on_pwm(t, freq, duty_u16, enabled)`` for ``pwm(gpio, fn)``;
    - ``on_serial(t, data)``: what the Pico wrote to USB serial (also kept in
      ``serial_output()`` until read).
    """

    def __init__(self, flash, bootrom, chain_decoder=False):
        if not (mpvm.repo_root() / "node_modules" / "rp2040js" / "package.json").is_file():
            raise PicoError("the RP2040 emulator is not installed (npm package rp2040js, "
                            "package.json): run python3 tools/dev.py setup")
        self._tmp = tempfile.TemporaryDirectory(prefix="tapp-pico-")
        if isinstance(flash, (bytes, bytearray)):
            path = Path(self._tmp.name) / "flash.bin"
            path.write_bytes(flash)
            flash = path
        self.now_us = 0.0
        self.on_spi = lambda t, b: 0xFF          # nothing on the bus: MISO pulled high
        self.on_pin = {}
        self.on_i2c_write = lambda t, addr, data: None
        self.on_spi_display = lambda t, is_data, data: None
        self.on_i2c_read = lambda t, addr: 0xFF
        self.on_ws2812 = None
        self.on_pwm = None
        self.on_serial = None
        self.on_time = None                      # called with every message's time
        self.on_cut = None                       # arm_cut's point: called, the run goes on
        self._serial = bytearray()
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [mpvm.node_binary(), str(RUNNER), str(bootrom), str(flash)]
            + (["--chain-decoder"] if chain_decoder else []),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            cwd=str(RUNNER.parent),
            start_new_session=True)      # Ctrl+C is the host's: the flash is saved first
        self.wall_s = 0.0                        # wall time spent running the emulator
        self._pty = None
        self._handlers = {b"S": self._spi, b"G": self._pin, b"I": self._i2c_write,
                          b"R": self._i2c_read, b"N": self._ws2812, b"P": self._pwm,
                          b"U": self._serial_in, b"Y": self._spi_display}
        # the board's display chip-select on SPI0 (boards/pico.py): its bytes take
        # their time on the wire, whether a panel listens or not (``spi_display``)
        cs, dc, _res = PINS["display_spi"]
        self.spi_display(cs, dc, lambda t, is_data, data: None)

    # ----- set-up ----------------------------------------------------------------------

    def watch(self, gpio, fn):
        """Call ``fn(t, level)`` whenever output pin ``gpio`` changes."""
        self.on_pin[gpio] = fn
        self._command("watch %d" % gpio)

    def i2c_ack(self, addrs):
        """The I2C0 addresses that acknowledge (where a device sits)."""
        self._command("ack " + " ".join(str(a) for a in addrs))

    def spi_display(self, cs, dc, fn):
        """A display on SPI0 at chip-select ``cs``, D/C# on ``dc``: ``fn(t,
        is_data, data)`` gets its bytes (the emulator times them on the wire)."""
        self.on_spi_display = fn
        self._command("spidisplay %d %d" % (cs, dc))

    def ws2812(self, gpio, fn):
        self.on_ws2812 = fn
        self._command("ws2812 %d" % gpio)

    def pwm(self, gpio, fn):
        self.on_pwm = fn
        self._command("pwm %d" % gpio)

    def set_input(self, gpio, level):
        """Drive input ``gpio`` (a button to ground: 0 pressed, 1 released)."""
        self._command("in %d %d" % (gpio, 1 if level else 0))

    # ----- running ---------------------------------------------------------------------

    def run_for(self, us):
        """Run ``us`` microseconds of emulated time."""
        self.run_until(self.now_us + us)

    def run_until(self, t_us):
        while t_us > self.now_us and self._command("run %d" % round(t_us * 1000)) == "cut":
            pass                                 # (on_cut took a cut point: on to t_us)

    def run_until_line(self, limit_us):
        """Run until the Pico's serial output holds a complete line (or
        ``limit_us`` more microseconds have passed); True if it does."""
        end = self.now_us + limit_us
        while b"\n" not in self._serial:
            if self.now_us >= end:
                return False
            self._command("run %d line" % round(end * 1000))
        return True

    def read_line(self, limit_us):
        """The next line the Pico wrote (bytes with the newline), or PicoError."""
        if not self.run_until_line(limit_us):
            raise PicoError("the Pico wrote no line within %.0f ms of emulated time; "
                            "it wrote %r" % (limit_us / 1000, bytes(self._serial[-300:])))
        i = self._serial.index(b"\n") + 1
        line = bytes(self._serial[:i])
        del self._serial[:i]
        return line

    def serial_write(self, data):
        """Bytes from the host to the Pico's USB serial port."""
        if data:
            self._command("cdc " + bytes(data).hex())

    def serial_output(self):
        """What the Pico wrote on USB serial since the last call (consumed)."""
        out = bytes(self._serial)
        self._serial.clear()
        return out

    def wait_for(self, marker, limit_us):
        """Run until ``marker`` appears in the serial output; everything up to
        and including it is consumed and returned."""
        end = self.now_us + limit_us
        while marker not in self._serial:
            if self.now_us >= end:
                raise PicoError("no %r from the Pico within %.0f ms of emulated time; it "
                                "wrote %r" % (marker, limit_us / 1000,
                                              bytes(self._serial[-300:])))
            self._command("run %d line" % round(min(end, self.now_us + 20_000) * 1000))
        i = self._serial.index(marker) + len(marker)
        out = bytes(self._serial[:i])
        del self._serial[:i]
        return out

    def boot_to_repl(self):
        """Run until MicroPython's REPL prompt (its ``main.py`` finished or absent)."""
        self.serial_write(b"\r")
        return self.wait_for(PROMPT, BOOT_LIMIT_US)

    def exec_raw(self, code, limit_us=10_000_000):
        """Run ``code`` with the raw REPL (as mpremote does); its output (lines
        end in a newline), or PicoError with the traceback."""
        self.serial_write(b"\r\x03\x03\x01")
        self.wait_for(b"raw REPL; CTRL-B to exit\r\n>", limit_us)
        self.serial_write(code.encode() + b"\x04")
        self.wait_for(b"OK", limit_us)
        out = self.wait_for(b"\x04", limit_us)[:-1]
        err = self.wait_for(b"\x04", limit_us)[:-1]
        self.wait_for(b">", limit_us)
        self.serial_write(b"\x02")
        if err:
            raise PicoError(err.decode(errors="replace"))
        return out.decode(errors="replace").replace("\r\n", "\n")

    # ----- the USB serial port on a pseudo-terminal --------------------------------------

    def open_pty(self, slice_us=5_000):
        """Serve the Pico's USB serial port on a pseudo-terminal (for mpremote,
        ``tapptable console``) and return its path.  A thread runs the Pico in
        slices of ``slice_us`` emulated microseconds, passing bytes both ways,
        until ``close()``; meanwhile nothing else may drive this Pico."""
        import pty
        import threading
        import tty
        master, slave = pty.openpty()
        tty.setraw(slave)
        self._pty = (master, slave)
        self._pty_stop = threading.Event()
        self._pty_thread = threading.Thread(target=self._serve_pty, args=(master, slice_us),
                                            daemon=True)
        self._pty_thread.start()
        return os.ttyname(slave)

    def _serve_pty(self, master, slice_us):
        import select
        while not self._pty_stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.005)
            try:
                if ready:
                    self.serial_write(os.read(master, 4096))
                self.run_for(slice_us)
                out = self.serial_output()
                if out:
                    os.write(master, out)
            except (OSError, PicoError):
                return

    def close_pty(self):
        """Stop serving the pseudo-terminal (the Pico stays as it is)."""
        if getattr(self, "_pty", None) is not None:
            self._pty_stop.set()
            self._pty_thread.join(5)
            for fd in self._pty:
                os.close(fd)
            self._pty = None

    # ----- power -----------------------------------------------------------------------

    def save_flash(self, path):
        """Write the flash to ``path`` as a power cut now would leave it."""
        self._command("save %s" % os.path.abspath(path))

    def flash_state(self):
        """The serial flash: operations carried out (``program``, ``erase``,
        ``bytes``), and the one under way: ``busy`` ("program", "erase" or None),
        its first ``addr``, its ``cells`` (bytes) and how many are ``done``."""
        import json
        return json.loads(self._command("flash"))

    def stats(self):
        """The emulator's counters, one string: the program counter (hex),
        whether the core sleeps, timer reads, busy-wait reads skipped ahead and
        instructions executed (runner.mjs ``stats``)."""
        return self._command("stats")

    def profile(self):
        """From now on count the instructions run per 64 bytes of code (runner.mjs
        ``profile on``): the runner then steps each instruction on its own, the
        reference its bursts must match (tests/test_rp2040_table.py)."""
        self._command("profile on")

    def arm_cut(self, kind="program", nth=1):
        """Stop the next run when the ``nth`` next flash ``kind`` ("program" or
        "erase") begins: the run raises ``CutPoint`` (with ``on_cut`` set, it
        is called there instead, and may run the Pico and save the flash, and
        the run goes on to where it was to end)."""
        self._command("arm %s %d" % (kind, nth))

    def start_oplog(self):
        """Record every program and erase from now on (``save_oplog``)."""
        self._command("oplog start")

    def save_oplog(self, path):
        """Write the operations recorded since ``start_oplog`` to ``path``, as
        host_sim/vm/nor_flash.py's ``load_log`` reads them (per 4 KiB sector of
        the whole flash): the flash a cut in any of them leaves is rebuilt
        from the flash before them (``apply_op``)."""
        self._command("oplog %s" % os.path.abspath(path))

    def power_cut(self, path=None):
        """Stop the Pico here (any cycle; an erase or program under way is left
        half done); with ``path`` the flash is written there first."""
        if path is not None:
            self.save_flash(path)
        self.close()

    def close(self):
        self.close_pty()
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.flush()
                self.proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            f.close()
        self._stderr.close()
        self._tmp.cleanup()

    def stderr_tail(self, n=2000):
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-n:]

    # ----- the pipe ----------------------------------------------------------------------

    def _command(self, line):
        t0 = time.perf_counter()
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
            return self._serve()
        except BrokenPipeError:
            raise PicoError("the emulator stopped:\n" + self.stderr_tail()) from None
        finally:
            self.wall_s += time.perf_counter() - t0

    def _serve(self):
        readline = self.proc.stdout.readline
        handlers = self._handlers
        write = self.proc.stdin.write
        while True:
            line = readline()
            if not line:
                raise PicoError("the emulator stopped:\n" + self.stderr_tail())
            parts = line.rstrip(b"\n").split(b" ", 2)
            kind, t = parts[0], parts[1]
            rest = parts[2] if len(parts) > 2 else b""
            self.now_us = int(t) / 1000.0
            if self.on_time is not None:
                self.on_time(self.now_us)
            if kind == b"D":
                if rest.startswith(b"!"):
                    raise PicoError("the emulator refused a command: " + rest[1:].decode())
                if rest == b"cut" and self.on_cut is not None:
                    self.on_cut()                # (the run's caller runs on)
                elif rest == b"cut":
                    raise CutPoint("a flash operation began at %.3f ms" % (self.now_us / 1000))
                return rest.decode()
            reply = handlers[kind](rest)
            if reply is not None:
                write(b"%d\n" % reply)
                self.proc.stdin.flush()

    def _spi(self, rest):
        return self.on_spi(self.now_us, int(rest)) & 0xFF

    def _pin(self, rest):
        pin, level = rest.split(b" ")
        fn = self.on_pin.get(int(pin))
        if fn is not None:
            fn(self.now_us, int(level))

    def _i2c_write(self, rest):
        addr, data = rest.split(b" ")
        self.on_i2c_write(self.now_us, int(addr), bytes.fromhex(data.decode()))

    def _spi_display(self, rest):
        level, data = rest.split(b" ")
        self.on_spi_display(self.now_us, level == b"1", bytes.fromhex(data.decode()))

    def _i2c_read(self, rest):
        return self.on_i2c_read(self.now_us, int(rest)) & 0xFF

    def _ws2812(self, rest):
        if self.on_ws2812 is not None:
            self.on_ws2812(self.now_us, bytes.fromhex(rest.decode()))

    def _pwm(self, rest):
        if self.on_pwm is not None:
            freq, duty, enabled = (int(x) for x in rest.split(b" "))
            self.on_pwm(self.now_us, freq, duty, bool(enabled))

    def _serial_in(self, rest):
        data = bytes.fromhex(rest.decode())
        self._serial += data
        if self.on_serial is not None:
            self.on_serial(self.now_us, data)


def main(argv=None):
    """``python -m host_sim.rp2040.emulator [--flash FILE] [--stock]``: an
    emulated Pico with MicroPython on a pseudo-terminal (for mpremote,
    ``tapptable deploy --port``, ``tapptable console --port``) until Ctrl+C;
    its flash lives in FILE (made from the table's firmware when absent, or
    a ``tapptable-pico.uf2``'s flash; written back at the end)."""
    import argparse
    import signal

    from tools.tapptable import rp2_images
    ap = argparse.ArgumentParser(prog="python -m host_sim.rp2040.emulator",
                                 description=main.__doc__)
    ap.add_argument("--flash", default="pico-flash.bin", help="the Pico's flash image file")
    ap.add_argument("--stock", action="store_true",
                    help="a new flash gets the published RPI_PICO firmware, not the table's")
    args = ap.parse_args(argv)
    if not os.path.exists(args.flash):
        uf2 = rp2_images.image(rp2_images.STOCK_FIRMWARE if args.stock
                               else rp2_images.ROMFS_FIRMWARE)
        Path(args.flash).write_bytes(flash_image(uf2))
    pico = Pico(args.flash, rp2_images.image(rp2_images.BOOTROM))
    try:
        pico.boot_to_repl()
        print("MicroPython on the emulated Pico: %s (Ctrl+C ends it and saves %s)"
              % (pico.open_pty(), args.flash), flush=True)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        pico.close_pty()
        pico.power_cut(args.flash)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

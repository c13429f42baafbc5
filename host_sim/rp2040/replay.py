"""``tapptable replay --runtime rp2040``: replay a record on the emulated Pico.

The record goes onto the Pico's littlefs beside the firmware (the table's
firmware and its ROMFS image, as for ``Rp2040Table``); the engine
replays it there through the firmware's bounded ``LineReader`` (the script
of tools/tapptable/mpreplay.py) and the outcome lines come back over USB
serial as the Pico writes them.
"""
import sys
from pathlib import Path

from host_sim.rp2040.emulator import Pico, PicoError, flash_image
from host_sim.rp2040.table import bootrom_path, firmware_files, firmware_uf2
from tools.tapptable.mpreplay import VM_SCRIPT

RECORD = "/record.jsonl"
DONE = "### done "
LIMIT_US = 600_000_000          # emulated time for one record: a hang after that

# VM_SCRIPT ends with sys.exit(status), which would end the raw REPL: run it
# as a function of its own and say the status in a last line instead
PICO_SCRIPT = ("import sys\nsys.argv[:] = ['', %r]\ndef _replay():\n%s\n"
               "try:\n    _replay()\nexcept SystemExit as exc:\n"
               "    print(%r + str(exc.args[0] if exc.args else 0))\n") % (
    RECORD, "\n".join("    " + line for line in VM_SCRIPT.strip("\n").splitlines()), DONE)


def replay_on_pico(path, write, romfs=True):
    """Replay the record at ``path`` ("-": standard input) on the emulated
    Pico, writing each outcome line as it comes; 0, or 2 after a one-line
    message on standard error."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        print("tapptable replay: cannot read %s: %s" % (path, exc.strerror or exc),
              file=sys.stderr)
        return 2
    files, romfs_image = firmware_files(romfs)
    files = dict(files, **{RECORD.lstrip("/"): data})
    pico = Pico(flash_image(firmware_uf2(romfs), files=files, romfs_image=romfs_image),
                bootrom_path())
    problem = None
    try:
        pico.boot_to_repl()
        pico.serial_write(b"\r\x03\x03\x01")
        pico.wait_for(b"raw REPL; CTRL-B to exit\r\n>", LIMIT_US)
        pico.serial_write(PICO_SCRIPT.encode() + b"\x04")
        pico.wait_for(b"OK", LIMIT_US)
        while True:
            line = pico.read_line(LIMIT_US).decode(errors="replace").replace("\r\n", "\n")
            if line.startswith("{"):
                write(line)
            elif line.startswith("!!! "):
                problem = line[4:].rstrip("\n")
            elif line.startswith(DONE):
                break
            elif line.startswith("\x04") or "Traceback" in line:
                problem = problem or "the Pico stopped: %s" % line.strip("\x04\n")[:200]
                break
    except PicoError as exc:
        problem = str(exc).splitlines()[0]
    finally:
        pico.close()
    if problem is None:
        return 0
    print("tapptable replay: %s: %s" % (path, problem), file=sys.stderr)
    return 2

"""``tapptable build`` and ``tapptable deploy``: firmware/ onto a board (docs/deploy.md).

``build`` compiles every firmware module with mpy-cross for the board
(``pico``: ``-march=armv6m``; ``esp32``: ``-march=xtensawin``) into
``build/<board>/fs/`` (``main.py`` stays source: the board runs it by name),
writes ``build/<board>/manifest.json`` (each file's SHA-256 and size) and
``build/<board>/romfs.img`` (``mpremote romfs build``: the bytecode then runs
from flash instead of RAM; always for the Pico, whose table firmware has the
partition, with ``--romfs`` for an ESP32).  For the Pico it also writes the
filesystem image and the one UF2 to flash (fsimage.py).

``deploy`` finds the board as ``tapptable console`` does, stops the table's
app with the console's PIN-guarded ``repl`` command (keyboard interrupt is off
while it plays), checks the board's ``sys.platform`` (and names its machine;
a Pico must have a ROMFS partition, the ROMFS image must end below the
journal's area at its top) before changing anything, writes the ROMFS image
where the board has a ROMFS partition (never the journal's area), hashes the files on
the board (the board's manifest ``tapptable-manifest.json`` only says which
files an earlier deploy put there), copies only the files whose hash
differs, removes the files the new build no longer has, writes the manifest
last (an interrupted deploy copies again), checks the copies by hash, writes
``settings.json`` when
``--pin``/``--set`` are given (checked by firmware/table/settings.py) and
soft-resets the board.
``--dry-run`` prints the plan and changes nothing.  The MicroPython unix
port behind a pseudo-terminal stands in for a board in the tests
(``--no-reset``: the unix port exits on a soft reset).
"""
import ast
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MARCH = {"pico": "armv6m", "esp32": "xtensawin"}
MANIFEST = "manifest.json"
DEVICE_MANIFEST = "tapptable-manifest.json"
SOURCE_ONLY = ("main.py",)          # run by name at boot: stays source
# packages whose bytecode goes onto the filesystem even with a ROMFS image: the
# bring-up self-test, loaded into RAM only when it runs (OK held at power-up, the
# console's selftest); the playing table's bytecode fills the Pico's ROMFS
# partition (docs/build.md)
ON_FILESYSTEM = ("bringup/",)


def on_filesystem(name):
    """Does the built file ``name`` lie on the board's filesystem when the
    bytecode comes from a ROMFS image?"""
    return name in SOURCE_ONLY or name.startswith(ON_FILESYSTEM)
# files another board's table needs and this one's never imports: the other
# board files; on the Pico the journal's files (table/journal_files.py: the
# table's firmware always has the journal's own flash area, boards/pico.py,
# and a MicroPython without it is refused before the table starts) and the
# replay (tapp/replay.py: the table never imports it; ``tapptable replay
# --runtime rp2040`` puts it beside the image) -- the ROMFS image must stay
# below that area
NOT_ON_BOARD = {"pico": ("boards/esp32.py", "table/journal_files.py", "tapp/replay.py"),
                "esp32": ("boards/pico.py", "boards/rp2_regs.py", "boards/flash_window.py")}


class DeployError(Exception):
    """A problem to tell in one line (exit status 2)."""


def _fail(cmd, msg):
    print("tapptable %s: %s" % (cmd, msg), file=sys.stderr)
    return 2


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ----------------------------------------------------------------- build


# firmware files that only the host uses: MicroPython has framebuf built in
HOST_ONLY = ("drivers/fbuf.py",)
# The device's bytecode without line numbers (mpy-cross -O3; the firmware has
# no assert, which -O would also drop): about 7 % less, which the ROMFS image
# needs below the journal's area (200 KiB); a traceback on the device names
# the function, not the line.
DEVICE_OPT = ("-O3",)
ROM = "/rom"                          # where MicroPython mounts a ROMFS image


def sources(src, board):
    """The firmware files that go onto ``board``: (relative path, path)."""
    out = []
    for p in sorted(Path(src).rglob("*.py")):
        rel = p.relative_to(src)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        if rel.as_posix() in HOST_ONLY or rel.as_posix() in NOT_ON_BOARD[board]:
            continue
        if p.name == "__init__.py" and _docstring_only(p):
            continue
        out.append((rel, p))
    return out


def _docstring_only(path):
    """Does this ``__init__.py`` hold nothing but its docstring?  MicroPython
    imports a folder as a package without one, so the board does not get it
    (a few hundred bytes of the Pico's full ROMFS partition)."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
               and isinstance(node.value.value, str) for node in body)


def build(board="pico", out=None, src=None, romfs=False, log=print, firmware=None,
          uf2=False):
    """Compile ``src`` (firmware/) for ``board`` into ``out``; the manifest dict.
    A Pico build always has its ROMFS image (the table's firmware runs the
    bytecode from /rom) and the filesystem image; with ``uf2`` also the one
    UF2 of the table's firmware (``firmware``: another MicroPython UF2 with a
    ROMFS partition)."""
    from tools.mpy_compile import compile_firmware, mpy_cross_version
    if board not in MARCH:
        raise DeployError("--board: pico or esp32, not %r" % board)
    if firmware and board != "pico":
        raise DeployError("--firmware: the UF2 is made for --board pico only")
    romfs = romfs or board == "pico"
    src = Path(src or ROOT / "firmware").resolve()
    if src.name != "firmware" or not (src / "main.py").is_file():
        raise DeployError("%s: not a firmware folder (with main.py)" % src)
    out = Path(out or ROOT / "build" / board)
    fs = out / "fs"
    if fs.exists():
        shutil.rmtree(fs)
    fs.mkdir(parents=True)
    files = sources(src, board)
    in_rom = [p for rel, p in files if not (romfs and on_filesystem(rel.as_posix()))]
    on_fs = [p for rel, p in files if romfs and on_filesystem(rel.as_posix())
             and rel.as_posix() not in SOURCE_ONLY]
    compiled = [p for rel, p in files if rel.as_posix() not in SOURCE_ONLY]
    with tempfile.TemporaryDirectory() as rom_dir:
        # the ROMFS image's bytecode first (its own folder), then the rest beside it
        for part, where, at in ((in_rom, Path(rom_dir) if romfs else fs, ROM if romfs else None),
                                (on_fs, fs, None)):
            report = compile_firmware(where, march=MARCH[board],
                                      sources=[p for p in part if p in compiled],
                                      root=src.parent, extra_args=DEVICE_OPT, mounted_at=at)
            if report.failed:
                raise DeployError("mpy-cross failed: " + "; ".join(
                    "%s: %s" % (s.name, m.splitlines()[-1] if m else "?")
                    for s, m in report.failed))
        img = out / "romfs.img"
        if img.exists():
            img.unlink()
        if romfs:            # the bytecode only: main.py is run from the filesystem
            proc = subprocess.run([*mpremote(), "romfs", "--no-mpy", "--output", str(img),
                                   "build", rom_dir], capture_output=True, text=True)
            if proc.returncode != 0 or not img.is_file():
                raise DeployError("mpremote romfs build: %s"
                                  % (proc.stderr or proc.stdout).strip())
            shutil.copytree(rom_dir, fs, dirs_exist_ok=True)   # the manifest lists them all
    for rel, p in files:
        if rel.as_posix() in SOURCE_ONLY:
            (fs / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, fs / rel)
    entries = {}
    for f in sorted(fs.rglob("*")):
        if f.is_file():
            entries[f.relative_to(fs).as_posix()] = {"sha256": sha256(f),
                                                     "size": f.stat().st_size}
    manifest = {"board": board, "march": MARCH[board], "mpy_cross": mpy_cross_version(),
                "files": entries}
    if romfs:
        manifest["romfs"] = {"sha256": sha256(img), "size": img.stat().st_size}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    if board == "pico":                  # fs.img, and the one UF2 (fsimage.py)
        from tools.tapptable.fsimage import ImageError, write_images
        try:
            write_images(out, firmware, uf2 or firmware is not None, log)
        except ImageError as exc:
            raise DeployError(str(exc)) from None
    total = sum(e["size"] for e in entries.values())
    log("built %d files (%d bytes) for %s (-march=%s) in %s%s" % (
        len(entries), total, board, MARCH[board], out,
        "; romfs.img %d bytes" % manifest["romfs"]["size"] if romfs else ""))
    return manifest


# ----------------------------------------------------------------- the board

PLATFORMS = {"pico": "rp2", "esp32": "esp32"}   # sys.platform of each board
STAND_IN = "linux"          # the MicroPython unix port: a stand-in for any board (tests)
HASH_SCRIPT = """import hashlib, binascii
for f in %r:
 try:
  h = hashlib.sha256()
  with open(f, 'rb') as x:
   while True:
    b = x.read(512)
    if not b:
     break
    h.update(b)
  print('H', f, binascii.hexlify(h.digest()).decode())
 except OSError:
  print('H', f, '-')
"""
IDENTIFY = ("import sys\nprint('P', sys.platform)\n"
            "print('M', getattr(sys.implementation, '_machine', '?'))\n"
            "try:\n import vfs\n d = vfs.rom_ioctl(2, 0)\n"
            " print('R', d.ioctl(4, 0) * d.ioctl(5, 0) if hasattr(d, 'ioctl') else len(d))\n"
            "except Exception:\n print('R', 0)\n")


def mpremote():
    exe = Path(sys.executable).with_name("mpremote")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "mpremote"]


def one_line(text):
    """The last meaningful line of mpremote's output (never a code snippet)."""
    lines = [x.strip() for x in (text or "").strip().splitlines() if x.strip()]
    for line in reversed(lines):
        if not line.startswith(("File ", "Traceback", "^")):
            return line
    return lines[-1] if lines else ""


class Board:
    """mpremote commands on one board (``port``: a device path; None: the one
    board found as ``tapptable console`` finds it)."""

    def __init__(self, port=None, timeout=120):
        self.port = port
        self.timeout = timeout
        self.found = False
        self.platform = None
        self.machine = None
        self.romfs = 0                # bytes of its ROMFS partition (0: none)

    def device(self):
        """The port, found once: the same board the console would pick."""
        if not self.found:
            from tools.tapptable.console import ConsoleError, find_port
            try:
                self.port = find_port(self.port)      # a0 -> /dev/ttyACM0 as well
            except ConsoleError as exc:
                raise DeployError(str(exc)) from None
            self.found = True
        return self.port

    def run(self, *args):
        """One mpremote invocation; ``resume`` (no soft reset on connect)."""
        cmd = [*mpremote(), "connect", self.device(), "resume", *args]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise DeployError("mpremote: no answer from %s within %d s (is the table's app "
                              "running? deploy stops it with the referee PIN first)"
                              % (self.port, self.timeout)) from None
        if proc.returncode != 0:
            raise DeployError("mpremote %s: %s" % (args[0] if args else "",
                                                   one_line(proc.stderr or proc.stdout)
                                                   or proc.returncode))
        return proc.stdout

    def stop_app(self, pin=None, log=print):
        """If the table's app answers on the port, ask it (``repl``, with the referee
        PIN) to hand the board to the REPL; a board at the REPL already is fine."""
        from tools.tapptable import console as C
        try:
            link = C.Link(self.device(), reconnect_s=0)
        except C.ConsoleError as exc:
            raise DeployError(str(exc)) from None
        try:
            try:
                link.hello(timeout=5)
            except C.ReplError:
                return False                       # at the REPL: mpremote can talk
            except C.ConsoleError:
                return False                       # silent: let mpremote try
            except C.DeviceError as exc:           # the console did not fit in RAM
                raise DeployError("the table's app runs on %s but cannot stop for the "
                                  "REPL (%s): hold PREV while resetting the board (safe "
                                  "boot), then deploy (the ROMFS image leaves room for the "
                                  "console)" % (self.port, exc.answer.get("message"))) from None
            if pin is None:
                raise DeployError("the table's app is running on %s: give the referee PIN "
                                  "(--pin or TAPPTABLE_PIN) so deploy can stop it, or hold "
                                  "PREV at power-up (safe boot)" % self.port)
            try:
                link.request("repl", timeout=10, pin=pin)
            except C.DeviceError as exc:
                raise DeployError("the table refused to stop for the REPL: %s: %s"
                                  % (exc.code, exc.answer.get("message"))) from None
            except C.ConsoleError as exc:
                raise DeployError(str(exc)) from None
            log("the table's app stopped for the REPL (journal closed)")
            return True
        finally:
            link.close()
            time.sleep(0.3)                        # the board prints its REPL banner

    def identify(self):
        """sys.platform, the machine name and the ROMFS partitions of the board."""
        for line in self.run("exec", IDENTIFY).splitlines():
            key, _, value = line.strip().partition(" ")
            if key == "P":
                self.platform = value
            elif key == "M":
                self.machine = value
            elif key == "R":
                self.romfs = int(value) if value.lstrip("-").isdigit() else 0
        if self.platform is None:
            raise DeployError("%s did not say what it is (is it MicroPython?)" % self.port)
        return self.platform, self.machine

    def hashes(self, names):
        """{name: sha256 hex or None (missing)} of files on the board."""
        out = {}
        names = sorted(names)
        for k in range(0, len(names), 40):         # one exec per 40 files
            for line in self.run("exec", HASH_SCRIPT % (names[k:k + 40],)).splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[0] == "H":
                    out[parts[1]] = None if parts[2] == "-" else parts[2]
        return out

    def read_text(self, name):
        """A file's text from the board's root, or None."""
        out = self.run("exec", "try:\n print(repr(open(%r).read()))\nexcept OSError:\n "
                               "print('None')" % name)
        line = out.strip().splitlines()[-1] if out.strip() else "None"
        if line == "None":
            return None
        import ast
        return ast.literal_eval(line)


def check_board(board, board_name, romfs=False, romfs_bytes=0):
    """Refuse, before anything changes: a board of another kind (a Pico build
    on an ESP32 cannot boot), a Pico without a ROMFS partition (the table does
    not start there), a ROMFS deploy onto firmware without one, and on a Pico
    a ROMFS image of ``romfs_bytes`` that would reach the journal's area at
    the partition's top (``mpremote romfs deploy`` erases and writes only the
    sectors the image covers)."""
    from tools.tapptable.fsimage import ImageError, check_romfs_fits
    platform, machine = board.identify()
    want = PLATFORMS[board_name]
    if platform not in (want, STAND_IN):
        raise DeployError("%s is a %s board (%s), not a %s board (%s): deploy a build made "
                          "with --board %s" % (board.port, platform, machine, board_name, want,
                                               {v: k for k, v in PLATFORMS.items()}.get(
                                                   platform, "?")))
    pico = platform == PLATFORMS["pico"]
    if pico and board.romfs <= 0:
        raise DeployError("%s runs MicroPython without a ROMFS partition (%s): copy "
                          "build/pico/tapptable-pico.uf2 (tapptable build --board pico) onto "
                          "its boot drive first (docs/build.md)" % (board.port, machine))
    if romfs and board.romfs <= 0:
        raise DeployError("%s: its MicroPython has no ROMFS partition (mpremote romfs query): "
                          "deploy without --romfs, or flash a firmware with one" % board.port)
    if pico and romfs is not False:
        try:
            check_romfs_fits(romfs_bytes, board.romfs)
        except ImageError as exc:
            raise DeployError(str(exc)) from None
    return platform, machine


def read_manifest(board):
    text = board.read_text(DEVICE_MANIFEST)
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def plan(local, remote, force=False, romfs=False, actual=None):
    """(copy, remove): file names to copy and to delete on the board.  ``actual``
    ({name: sha256 or None}) is what the board holds, hashed there: a file changed
    or deleted on the board is copied again whatever its manifest says."""
    have = remote.get("files", {}) if isinstance(remote.get("files"), dict) else {}
    want = local["files"]
    if romfs:                      # the bytecode comes from /rom: main.py (and the
        want = {k: v for k, v in want.items() if on_filesystem(k)}   # self-test) on the fs
    if actual is None:
        actual = {k: e.get("sha256") for k, e in have.items() if isinstance(e, dict)}
    copy = [k for k in sorted(want) if force or actual.get(k) != want[k]["sha256"]]
    remove = [k for k in sorted(have) if k not in want and actual.get(k, "?") is not None]
    return copy, remove


def settings_text(board, pin=None, sets=()):
    """The new settings.json text (merged into the board's), or None if unchanged."""
    if pin is None and not sets:
        return None
    sys.path.insert(0, str(ROOT / "firmware"))
    from table.settings import Settings
    old = board.read_text("settings.json")
    s = Settings("/")              # checks only: never loaded or saved here
    data = {}
    if old:
        try:
            data = json.loads(old)
        except ValueError:
            data = {}
    for k, v in (data.items() if isinstance(data, dict) else ()):
        s.set(k, v)
    for item in sets:
        k, eq, v = item.partition("=")
        if not eq:
            raise DeployError("--set KEY=VALUE, not %r" % item)
        try:
            value = json.loads(v)
        except ValueError:
            value = v
        if not s.set(k, value):
            raise DeployError("--set %s: not a valid value (firmware/table/settings.py)" % k)
    if pin is not None and not s.set("referee_pin", pin):
        raise DeployError("--pin: 4 to 8 digits")
    text = json.dumps(s.as_dict()) + "\n"
    return None if text == old else text


def deploy(board_name="pico", port=None, build_dir=None, dry_run=False, force=False,
           romfs=None, pin=None, sets=(), reset=True, log=print, board=None, stop_pin=None):
    """Copy the build onto the board; returns (copied, removed) file lists.

    The table's app is stopped first (``repl`` with ``stop_pin``, else ``pin``), the
    board's kind checked, and the board's own files hashed: nothing is trusted
    from its manifest but the list of files an earlier deploy put there.
    ``romfs``: True writes the ROMFS image (the board must have the partition),
    False copies the .mpy files; None (the default) writes the image where the
    board has a partition and the build an image (the table's Pico firmware)."""
    out = Path(build_dir or ROOT / "build" / board_name)
    if build_dir is None:
        build(board_name, out, romfs=romfs, log=log)
    mf = out / MANIFEST
    if not mf.is_file():
        raise DeployError("%s: no build here (tapptable build --board %s)" % (out, board_name))
    local = json.loads(mf.read_text())
    if local.get("board") != board_name:
        raise DeployError("%s was built for %s, not %s" % (out, local.get("board"), board_name))
    if romfs and "romfs" not in local:
        raise DeployError("%s has no romfs.img (tapptable build --romfs)" % out)
    board = board or Board(port)
    board.stop_app(stop_pin if stop_pin is not None else pin, log)
    platform, machine = check_board(board, board_name, romfs,
                                    local.get("romfs", {}).get("size", 0))
    if romfs is None:
        romfs = board.romfs > 0 and "romfs" in local
    remote = read_manifest(board)
    have = remote.get("files") if isinstance(remote.get("files"), dict) else {}
    actual = board.hashes(set(local["files"]) | set(have))
    copy, remove = plan(local, remote, force, romfs, actual)
    text = settings_text(board, pin, sets)
    log("plan for %s (%s, %s): copy %d, remove %d%s%s" % (
        board.port, platform, machine, len(copy), len(remove),
        ", write settings.json" if text else "", ", romfs.img" if romfs else ""))
    for k in copy:
        log("  copy   %s (%d bytes)%s" % (k, local["files"][k]["size"],
                                          "" if k not in have or actual.get(k) is None
                                          or have[k].get("sha256") == actual.get(k)
                                          else " (changed on the board)"))
    for k in remove:
        log("  remove %s" % k)
    if dry_run:
        return copy, remove
    fs = out / "fs"
    if romfs:
        board.run("romfs", "deploy", str(out / "romfs.img"))
    args = []
    dirs = sorted({str(Path(k).parent.as_posix()) for k in copy} - {"."})
    if dirs:
        args += ["exec", "import os\nfor d in %r:\n try:\n  os.mkdir(d)\n except OSError:\n"
                         "  pass" % (dirs,), "+"]
    for k in copy:
        args += ["fs", "cp", str(fs / k), ":" + k, "+"]
    if remove:
        args += ["exec", "import os\nfor f in %r:\n try:\n  os.remove(f)\n except OSError:\n"
                         "  pass" % (remove,), "+"]
    with tempfile.TemporaryDirectory() as tmp:
        if text:
            sf = Path(tmp) / "settings.json"
            sf.write_text(text)
            args += ["fs", "cp", str(sf), ":settings.json", "+"]
        mani = Path(tmp) / DEVICE_MANIFEST
        on_fs = dict(local)                  # what the filesystem holds now
        if romfs:
            on_fs["files"] = {k: v for k, v in local["files"].items() if on_filesystem(k)}
        else:
            on_fs.pop("romfs", None)
        mani.write_text(json.dumps(on_fs, sort_keys=True))
        args += ["fs", "cp", str(mani), ":" + DEVICE_MANIFEST]
        board.run(*args)
    got = board.hashes(copy)
    bad = [k for k in copy if got.get(k) != local["files"][k]["sha256"]]
    if bad:
        raise DeployError("%d file(s) differ on the board after copying (%s): deploy again"
                          % (len(bad), ", ".join(bad[:3])))
    if reset:
        board.run("soft-reset")
    log("deployed: %d copied, %d removed%s" % (len(copy), len(remove),
                                               "" if reset else " (no reset)"))
    return copy, remove


# ----------------------------------------------------------------- the commands


def cmd_build(args):
    try:
        build(args.board, args.out, romfs=args.romfs, firmware=args.firmware, uf2=True)
    except DeployError as exc:
        return _fail("build", str(exc))
    return 0


def cmd_deploy(args):
    import os
    try:
        deploy(args.board, args.port, args.build, args.dry_run, args.force, args.romfs,
               args.pin, args.set, reset=not args.no_reset,
               stop_pin=getattr(args, "current_pin", None) or os.environ.get("TAPPTABLE_PIN"))
    except DeployError as exc:
        return _fail("deploy", str(exc))
    return 0

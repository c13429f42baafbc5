"""Replay records inside the real MicroPython VM (``replay --runtime micropython``).

The VM imports the unchanged engine from firmware/; this module only starts it
and passes the record files in.  Several files can be replayed in one VM run,
each preceded by a ``### <name>`` line, which is how the CPython/MicroPython
equivalence tests stay fast.
"""
import sys
from pathlib import Path

from tools import mpvm

VM_SCRIPT = """
import sys
from tapp.record import replay_file
from tapp.variants import HeaderError
status = 0
paths = sys.argv[1:]
for p in paths:
    if len(paths) > 1:
        sys.stdout.write("### " + p + "\\n")
    try:
        replay_file(p, sys.stdout.write)
    except HeaderError as exc:
        sys.stdout.write("!!! bad header: " + str(exc) + "\\n")
        status = 2
    except OSError as exc:
        sys.stdout.write("!!! cannot read: " + str(exc) + "\\n")
        status = 2
sys.exit(status)
"""


def run_replay(paths, vm="unix", heapsize="512k"):
    """CompletedProcess of replaying ``paths`` in the ``unix`` or ``wasm`` VM."""
    if vm == "unix":
        return mpvm.run_unix(VM_SCRIPT, [str(Path(p).resolve()) for p in paths],
                             heapsize=heapsize)
    files = {}
    names = []
    for i, p in enumerate(paths):
        name = "/records/%d.jsonl" % i
        files[name] = str(Path(p).resolve())
        names.append(name)
    return mpvm.run_wasm(VM_SCRIPT, names, files=files)


def replay_in_micropython(path, write, vm="unix"):
    if not Path(path).is_file():
        print("tapptable replay: cannot read %s" % path, file=sys.stderr)
        return 2
    try:
        proc = run_replay([path], vm)
    except mpvm.MPVMError as exc:
        print("tapptable replay: %s" % exc, file=sys.stderr)
        return 2
    out = proc.stdout
    if proc.returncode != 0:
        lines = out.splitlines()
        msg = lines[-1][4:] if lines and lines[-1].startswith("!!! ") else proc.stderr.strip()
        print("tapptable replay: %s: %s" % (path, msg), file=sys.stderr)
        return 2
    write(out)
    return 0


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

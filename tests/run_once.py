"""A costly fixture value built once per pytest run, not once per worker.

pytest-xdist runs a module's tests on several workers, and each worker
builds a module-scoped fixture of its own: a two-minute session on the
emulated Pico was played twice.  ``built_once`` lets the first worker that
asks build the value in the run's shared temporary folder (the parent of
each worker's own, as pytest-xdist documents) while the others wait on a
file lock, then load the pickled value.  Without xdist it simply builds.
"""
import os
import pickle

try:
    import fcntl
except ImportError:                    # (no POSIX locks: each worker builds its own)
    fcntl = None


def built_once(tmp_path_factory, name, build):
    """``build(folder)``'s value (picklable; files it writes go in ``folder``,
    which all workers share and nobody else writes to) for the whole run."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or fcntl is None:
        return build(tmp_path_factory.mktemp(name))
    root = tmp_path_factory.getbasetemp().parent      # the run's, shared by its workers
    folder = root / ("once-" + name)
    folder.mkdir(exist_ok=True)
    with open(root / ("once-" + name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / ("once-" + name + ".pickle")
        if done.exists():
            return pickle.loads(done.read_bytes())
        value = build(folder)
        done.write_bytes(pickle.dumps(value))
        return value

"""Write a file completely or not at all (``tapptable simulate --out``).

``check_target`` says, before any work is done, why a path cannot be written
(a folder, a missing folder, an existing file without ``force``).
``write_lines`` writes to a temporary file in the target's folder, flushes it
to disk and renames it into place only when every line is written: a full disk,
an I/O error or an exception from the line source leaves the old file (or no
file) and no temporary file behind.
"""
import os
import tempfile


class WriteError(Exception):
    """A one-line reason why the file was not written."""


def _reason(exc):
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


def check_target(path, force=False):
    """Raise WriteError if ``path`` cannot become the new file."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise WriteError("%s is a folder" % path)
    if not os.path.isdir(folder):
        raise WriteError("folder %s does not exist" % (os.path.dirname(path) or folder))
    if os.path.lexists(path):
        if not force:
            raise WriteError("%s exists (use --force to overwrite it)" % path)
        if not os.path.isfile(path):
            raise WriteError("%s is not a regular file" % path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise WriteError("folder %s is not writable" % (os.path.dirname(path) or folder))


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_lines(path, lines, force=False):
    """Write each string of the iterable ``lines`` plus "\\n" to ``path``,
    atomically; return the number of lines.  WriteError on any failure."""
    check_target(path, force)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                                   suffix=".tmp")
    except OSError as exc:
        raise WriteError("cannot write in %s: %s" % (folder, _reason(exc))) from None
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            for line in lines:
                f.write(line)
                f.write("\n")
                count += 1
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())   # as open() would have made it
        if not force and os.path.lexists(path):
            raise WriteError("%s appeared meanwhile (use --force to overwrite it)" % path)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WriteError("cannot write %s: %s" % (path, _reason(exc))) from None
        raise
    try:   # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return count

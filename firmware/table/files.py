"""The table's file helpers on littlefs (or the host's file system in tests).

Shared by the settings, the deck registry and the journal.  A file is written
to ``<name>.tmp`` and then renamed over ``<name>.<ext>`` (littlefs and POSIX
replace the target in one step), so a power cut leaves either the old or the
new file, never a mix.  ``root`` is the file-system root: ``"/"`` on the
device, a folder in the tests and the virtual tables.
"""
import os


def join(root, *parts):
    """``root`` + "/" + parts, with one slash between ("/" + "a" -> "/a")."""
    path = root
    for p in parts:
        path = path + p if path.endswith("/") else path + "/" + p
    return path


def tmp_path(path):
    """``dir/name.ext`` -> ``dir/name.tmp``."""
    dot = path.rfind(".")
    if dot > path.rfind("/"):
        path = path[:dot]
    return path + ".tmp"


def exists(path):
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def ensure_dir(path):
    """Make the folder ``path`` if it is not there (its parent must exist)."""
    if not exists(path):
        os.mkdir(path)


def write_atomic(path, text):
    """Write ``text`` (str) to ``path`` via ``<name>.tmp`` and a rename.

    Raises OSError if the flash refuses; then ``path`` still holds its old
    contents (or is still missing) and no ``.tmp`` is left behind where the
    file system lets us remove it.
    """
    tmp = tmp_path(path)
    try:
        f = open(tmp, "wb")
        try:
            f.write(text.encode())
        finally:
            f.close()
        os.rename(tmp, path)
    except OSError:
        remove_quietly(tmp)
        raise


def read_limited(path, limit):
    """The text of ``path`` if it has at most ``limit`` bytes and decodes as
    UTF-8; else None.  Raises OSError when the file cannot be opened.

    The read asks for the file's size (+1), not for ``limit`` + 1 bytes:
    MicroPython allocates what a read asks for before it shrinks it, and at
    boot a fragmented heap may have no free run of 4 KB for a file of 200
    bytes (tests/mp/mptest_app_heap.py found boots failing there)."""
    f = open(path, "rb")
    try:
        try:
            want = os.stat(path)[6]
        except (OSError, AttributeError):
            want = limit
        want = limit if want > limit else want
        data = f.read(want + 1)
        if want < limit and len(data) > want:       # it grew since: read on to the limit
            data += f.read(limit - len(data) + 1)
    finally:
        f.close()
    if len(data) > limit:
        return None
    try:
        return data.decode()
    except UnicodeError:
        return None

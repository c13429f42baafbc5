"""The referee PIN's back-off, kept on flash so a restart does not reset it.

The console (console_link.py) counts wrong referee PINs in a row and waits
longer after each; the count lives in ``<root>/pin_failures``.
"""
from .files import join, read_limited, remove_quietly, write_atomic

PIN_FAILURES_FILE = "pin_failures"   # wrong referee PINs in a row


def load_pin_failures(root):
    """How many wrong referee PINs in a row were given before the last restart."""
    if root is None:
        return 0
    try:
        text = read_limited(join(root, PIN_FAILURES_FILE), 8)
    except OSError:
        return 0
    if not text or not text.strip().isdigit():
        return 0
    return int(text.strip()) if len(text.strip()) < 4 else 999


def save_pin_failures(root, count):
    """Keep the count on flash (a restart must not reset the back-off); 0 removes it."""
    if root is None:
        return
    path = join(root, PIN_FAILURES_FILE)
    try:
        if count:
            write_atomic(path, "%d\n" % (count if count < 999 else 999))
        else:
            remove_quietly(path)
    except OSError:
        pass

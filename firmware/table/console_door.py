"""The serial console's door on the device, and how the table runs around it.

The console (table/console*.py) is the firmware's largest part, loaded in
parts (``prepare``): ahead of need by the app's idle job, while nothing waits
and no card is awaited (a module's import holds the loop 5-35 ms on the
Pico), or at a client's first byte, whichever comes first (the table's heap
budget counts it loaded: ``tapptable bench`` plays with a client).
``ConsoleDoor`` sits in the app's console job and asks ``select.poll``
whether a byte is waiting (without reading it); only then does the console
take over the line (``attach``: it says hello and reads).

``run_table`` is the table's main loop with the keyboard-interrupt policy
(docs/console.md, "Ctrl-C and the REPL"): while the table plays, a 0x03 byte
on the USB serial line is an ordinary byte (``micropython.kbd_intr(-1)``), so
line noise cannot stop it.  The console's PIN-guarded ``repl`` command ends
the loop: the journal is closed, Ctrl-C is switched on again and ``main.py``
returns to the REPL (for mpremote and ``tapptable deploy``).  Any other end
(an exception) switches Ctrl-C on again too.
"""
import select
import sys

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731

# What a table whose console does not fit in RAM answers to each line (a flat
# .mpy deploy on an RP2040 leaves about 27 KB; docs/deploy.md, ROMFS).
NO_ROOM = ('{"ok":false,"error":"unavailable","message":"the console does not fit in '
           'this board\'s RAM: deploy with --romfs (docs/deploy.md)"}\n')


# The console is loaded in parts, one a step of the console job, each at an
# idle moment: the collection, then its modules one by one (on the Pico the
# whole took one step of some 250 ms; a module 5 to 45 ms at 200 MHz), then
# ``attach``; the console answers the first line in its own next step.
LOAD_PARTS = (None, "table.console_out", "table.console_link", "table.console_events",
              "table.console")
# Console steps a part waits for the table to be idle (``App.nothing_waits``:
# 200 ms at most), and, beyond that, for a moment when no card is awaited
# (``App.card_awaited``: a trick being cleared, a menu up, no deal on; 3 s at
# most, then it loads all the same: a client's request waits 10 s): a card
# laid while a module is imported would wait for the import.
_IDLE_STEPS = const(10)
_CARD_FREE_STEPS = const(150)
# Console steps the first byte leaves the parts to the app's idle job (1 s: it
# loads them ahead of need, ``prepare``, at the moments it has), before the door
# loads what is left itself.
_AHEAD_STEPS = const(50)


def byte_waiting(poller):
    """Is a byte waiting on ``poller``'s stream?  ``ipoll`` allocates nothing
    after its first call; ``poll(0)`` makes a list each time (about 100 bytes
    every console step: the garbage that made the loop stop for a collection).
    CPython's poll has no ``ipoll``."""
    try:
        for _ in poller.ipoll(0):
            return True
        return False
    except AttributeError:
        return bool(poller.poll(0))


class ConsoleDoor:
    def __init__(self, app, stream=None):
        self.app = app
        self.stream = stream or sys.stdin
        self.poller = select.poll()
        self.poller.register(self.stream, select.POLLIN)
        self.no_room = False
        self.count = 0            # steps the first byte has waited (all parts)
        self.waited = 0           # steps this part has waited for the table to be idle
        self.loaded = 0           # parts of LOAD_PARTS done

    def step(self):
        if not byte_waiting(self.poller):
            self.waited = self.count = 0
            return
        self.count += 1     # the console's import holds the loop: not while a card waits
        if self.count < _AHEAD_STEPS and self.loaded < len(LOAD_PARTS):
            return          # the idle job's to load, first
        self.waited += 1
        app = self.app
        if self.waited < _IDLE_STEPS and not app.nothing_waits():
            return
        if self.count < _CARD_FREE_STEPS and app.card_awaited() \
                and self.loaded < len(LOAD_PARTS):
            return          # (the console's attach, once loaded, is no import)
        if self.no_room:
            self.refuse()
            return
        self.waited = 0                     # the next part waits for its own idle moment
        if self.prepare():                  # (no room: refused from the next step on)
            return
        try:
            from table.console import attach  # (imported: the last part)
            attach(self.app)                    # it takes over the app's console job
        except MemoryError:
            self.stop()

    def prepare(self):
        """The console's next part loaded: whether one was (False once all
        are, or none fits).  Also the app's idle job's work (``App.idle_work``,
        only while nothing waits): ahead of need while no card is awaited, so
        a client's first byte finds the console loaded -- a module's import
        held the console's step 5-35 ms on the Pico; once a client's byte
        waits (``count``), whenever nothing waits, as the journal's erase
        ahead -- where a card was awaited all along (a power-up mid-trick)
        the door loaded it in its own steps after 3 s: 35 ms."""
        if self.no_room or self.loaded >= len(LOAD_PARTS):
            return False
        if not self.count and self.app.card_awaited():
            return False
        try:
            self.load(LOAD_PARTS[self.loaded])
            self.loaded += 1
        except MemoryError:
            self.stop()
        return True

    def stop(self):
        """No room for the console: its modules dropped, the table plays on
        without it (each line gets NO_ROOM)."""
        for name in list(sys.modules):
            if name.startswith("table.console_") or name == "table.console":
                del sys.modules[name]
        import gc
        gc.collect()
        self.no_room = True

    def load(self, part):
        """One part of the console's loading: the garbage collected (room for
        the console in one piece), or a module imported."""
        if part:
            __import__(part)
        else:
            import gc
            gc.collect()

    def refuse(self):
        """Read what arrived (at most 64 bytes a step); a line break gets NO_ROOM."""
        raw = getattr(self.stream, "buffer", self.stream)
        k = 0
        while k < 64 and byte_waiting(self.poller):
            b = raw.read(1)
            k += 1
            if b == b"\n":
                sys.stdout.write(NO_ROOM)


def open_door(app):
    """The app's console job waits for the first byte, then becomes the console."""
    door = ConsoleDoor(app)
    app.set_console(door)
    return door


def kbd_intr(char):
    """``micropython.kbd_intr`` where there is one (not under CPython)."""
    try:
        import micropython
        micropython.kbd_intr(char)
    except (ImportError, AttributeError):
        pass


def run_table(app, say=print):
    """Run ``app`` until the console hands the board to the REPL (True) or it fails
    (the exception goes on, after Ctrl-C is on again)."""
    import asyncio

    from table.console_link import HandOver, said
    kbd_intr(-1)                    # line noise must not stop a playing table
    try:
        asyncio.run(app.run())
    except HandOver:
        app.stop()
        say(said("a_repl_stopped"))
        return True
    finally:
        kbd_intr(3)
    return False

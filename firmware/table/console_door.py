"""The serial console, loaded when the first byte arrives on the USB line.

The console (table/console.py) is the firmware's largest module; a table that
nobody talks to should not carry it in RAM.  ``ConsoleDoor`` sits in the app's
console job, asks ``select.poll`` whether a byte is waiting (without reading
it), and only then imports the console and hands over to it.
"""
import select
import sys


class ConsoleDoor:
    def __init__(self, app, pin=None, stream=None):
        self.app = app
        self.pin = pin
        self.poller = select.poll()
        self.poller.register(stream or sys.stdin, select.POLLIN)

    def step(self):
        if not self.poller.poll(0):
            return
        from table.console import attach  # the first byte: load the console
        attach(self.app, self.pin)          # it takes over app.console
        self.app.console.step()


def open_door(app, pin=None):
    """``app.console`` waits for the first byte, then becomes the console."""
    app.console = ConsoleDoor(app, pin)
    return app.console

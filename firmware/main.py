"""The device's entry point: build this board's hardware and run the table.

Only this file and firmware/boards/ know which board it is.  Holding a button
at power-up (firmware/README.md, docs/console.md):

* OK: the bring-up self-test (hardware/README.md), then the table;
* PREV: safe boot -- the table's app does not start and the board stays at the
  MicroPython REPL (a board whose app is broken can still be reached with
  mpremote).

While the table plays, keyboard interrupt is off (a 0x03 byte in line noise
must not stop it); the console's PIN-guarded ``repl`` command hands the board
to the REPL (table/console_door.py, ``run_table``).
"""
import sys


def board_module():
    if sys.platform == "rp2":
        from boards import pico
        return pico
    if sys.platform == "esp32":
        from boards import esp32
        return esp32
    raise RuntimeError("no board file for platform " + sys.platform)


def safe_boot(module):
    """True when PREV is held at power-up: read from the pin map alone, before any
    table code is imported (the table's code may be what is broken)."""
    try:
        from machine import Pin
        pins = module.PINS
        n = pins["buttons"][0]
        pin = Pin(n, Pin.IN, Pin.PULL_UP) if pins.get("buttons_pull_up", True) \
            else Pin(n, Pin.IN)
        return pin.value() == 0                                       # active low
    except Exception:
        return False


def bring_up(board):
    """The bring-up self-test (bringup/selftest.py), then its code is let go.  On
    the Pico its .mpy files lie on the filesystem (not in the ROMFS image): a
    board they were not copied to says so and plays on."""
    try:
        from bringup.selftest import run_at_boot
    except ImportError:
        print("tapptable: this board has no self-test (bringup/ was not copied: "
              "tapptable deploy)")
        return
    run_at_boot(board)
    for name in ("bringup.selftest", "bringup.selftest_readers", "bringup"):
        sys.modules.pop(name, None)    # its code is not needed again


def main(root="/"):
    module = board_module()
    if safe_boot(module):
        print("tapptable: safe boot (PREV held at power-up): the table's app does not "
              "start; this is the MicroPython REPL")
        return
    wrong = getattr(module, "wrong_firmware", None)     # pico: a firmware with ROMFS
    problem = wrong() if wrong else None
    if problem:
        print(problem)
        return
    from table.power_up import boot

    board = module.make(root)
    if board.buttons.ok.pressed:    # OK held at power-up: the bring-up self-test
        bring_up(board)
    app = boot(board, root)         # settings remembered on flash; the session in
                                    # progress taken up again (table/power_up.py)
    from table.console_door import open_door, run_table
    open_door(app)              # the line protocol on USB serial, loaded on the first byte
                                # (docs/console.md)
    run_table(app)


NO_RAM = ("tapptable: the table ran out of RAM. It runs its bytecode from the "
          "firmware's ROMFS partition: flash build/pico/tapptable-pico.uf2 "
          "(tapptable build --board pico, docs/build.md). This is the MicroPython REPL.")


def run(root="/"):
    """``main`` with the one failure a user can fix named on the console: a board
    whose firmware leaves too little RAM (measured: .mpy files loaded into RAM)
    stops with that advice, not with a bare traceback."""
    try:
        main(root)
    except MemoryError:
        import gc
        gc.collect()
        print(NO_RAM)


if __name__ == "__main__":
    run()

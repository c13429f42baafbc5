"""The device's entry point: build this board's hardware and run the table.

Only this file and firmware/boards/ know which board it is.  Holding OK at
power-up runs the bring-up self-test (hardware/README.md).
"""
import asyncio
import sys


def board_module():
    if sys.platform == "rp2":
        from boards import pico
        return pico
    if sys.platform == "esp32":
        from boards import esp32
        return esp32
    raise RuntimeError("no board file for platform " + sys.platform)


def main(root="/"):
    from table.app import App
    from table.journal import create_journal, last_journal
    from table.registry import Registry
    from table.settings import Settings

    board = board_module().make(root)
    if board.buttons.ok.pressed:    # OK held at power-up: the bring-up self-test
        from table.selftest import run_at_boot
        run_at_boot(board)
        del sys.modules["table.selftest"]   # its code is not needed again
    registry = Registry(root)
    registry.load()
    settings = Settings(root)
    settings.load()
    journal = last_journal(root)    # a session in progress: take it up again
    app = App(board, settings.as_dict(), registry, settings.deck, remember=settings,
              journal_factory=lambda header: create_journal(root, header),
              resume=journal)
    from table.console_door import open_door
    open_door(app)              # the line protocol on USB serial, loaded on the first byte
                                # (docs/console.md)
    asyncio.run(app.run())


if __name__ == "__main__":
    main()

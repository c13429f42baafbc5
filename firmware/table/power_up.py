"""Power-up: the table's application from what its flash holds.

Every host builds the application here, on a board it built before: the
device (main.py), the virtual table in CPython (host_sim/table.py) and the
one inside MicroPython, in the unix port and on the emulated Pico
(host_sim/vm/vm_serve.py).  The power-up is the same on all of them: the
registry of enrolled decks, the remembered settings, the last session's
journal taken up again (table/journal.py ``open_journals``: the journal's own
flash area when the board has one, else files under ``root``), the
application on that store of sessions.  What differs is a parameter:

* ``overrides``: settings a virtual table is powered up with, over the
  loaded ones (``Settings.override``; a bad value raises ValueError);
* ``remember``: False keeps changed settings in RAM (the virtual tables);
  the device writes them to ``<root>/settings.json``;
* ``resume``: False starts without the last journal (a virtual table that
  is not a power cut); the device always takes it up;
* ``enrol``: a function given the loaded registry before the application
  starts (the virtual tables enrol their virtual decks there);
* ``deck``: the deck in play (default: the one the settings name);
* ``start``: True skips the setup screens (App's ``start``).
"""
from table.app import App
from table.journal import open_journals
from table.registry import Registry
from table.settings import Settings


def boot(board, root, overrides=None, remember=True, resume=True, enrol=None, deck=None,
         start=False):
    """The application on ``board`` with the table's files under ``root``."""
    registry = Registry(root)
    registry.load()
    if enrol is not None:
        enrol(registry)
    settings = Settings(root, remember=remember)
    settings.load()
    if overrides is not None:
        settings.override(overrides)
    journals = open_journals(board, root)
    journal = journals.last() if resume else None   # a session in progress
    return App(board, settings, registry, settings.deck if deck is None else deck,
               journals=journals, start=start, resume=journal)

"""The virtual table's flash directory, one door for the terminal and the browser.

``tapptable sim`` (terminal) and ``tapptable sim --web`` keep the table's flash
-- decks, settings, the journal -- in a directory (``--table-dir``, by default
one per kind of table under ``~/.local/state/tapptable/web``, the same for both
views), so a table started again takes the session up from its journal, as the
device does after a power cut.  Beside the flash the simulator keeps what the
device never knows: the open-mode hands the players dealt (``players.json``)
and, for the browser, which tab sits where (``seats.json``) and whether the
robots play (``robots.json``).
"""
import json
import os

DEALT_FILE = "players.json"   # open mode: the hands the players dealt (see AutoPlayers)
CLAIMS_FILE = "seats.json"    # the browser: which tab (token) sits where
ROBOTS_FILE = "robots.json"   # the browser: the robots switch, on or off


def state_dir(variant, players, mode, lang):
    """The default flash directory: one per kind of table (terminal and browser alike)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "tapptable", "web", "%s-%d-%s-%s" % (
        variant, players, mode, lang))


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f)


class TableDir:
    """A flash directory: ``open`` powers the table up on it (resuming a session
    found there); ``dealt``/``keep_dealt`` and ``claims``/``keep_claims`` are the
    simulator's notes beside it.  ``root`` None: no directory (nothing kept)."""

    def __init__(self, root):
        self.root = root
        self.resumed = None           # {"deals", "events"} of a session taken up
        self.dealt_saved = -1
        if root is not None:
            if os.path.exists(root) and not os.path.isdir(root):
                raise ValueError("--table-dir %s is not a directory" % root)
            os.makedirs(root, exist_ok=True)

    def open(self, table_class, variant, players, mode, lang="de", **kw):
        """The table on this flash: a session found there is resumed (``resumed``
        says how far it had come), else a new one with a freshly enrolled deck."""
        if self.root is None:
            return table_class(variant, players, mode, lang=lang, **kw)
        found = table_class.session_found(self.root)
        table = table_class(variant, players, mode, lang=lang, root=self.root,
                            enrolled=not found, resume=found, **kw)
        if found:
            self.resumed = {"deals": table.view.deals_played(),
                            "events": len(table.journal_lines()) - 1}
        return table

    def dealt(self):
        """The open-mode hands the players of a resumed session dealt (or None)."""
        if self.resumed is None:
            return None
        return _read_json(os.path.join(self.root, DEALT_FILE))

    def keep_dealt(self, players):
        """Write ``players``' open-mode hands beside the journal when they dealt
        anew, so the players of a restarted table hold the same cards."""
        count = len(players.dealt_at)
        if self.root is None or count == self.dealt_saved:
            return
        self.dealt_saved = count
        _write_json(os.path.join(self.root, DEALT_FILE), players.dealt_hands())

    def claims(self):
        """Who sat where in a resumed session (the browser's tab tokens), or None."""
        if self.resumed is None:
            return None
        return _read_json(os.path.join(self.root, CLAIMS_FILE))

    def keep_claims(self, claims):
        if self.root is not None:
            _write_json(os.path.join(self.root, CLAIMS_FILE), claims)

    def robots(self, default):
        """The robots switch as the resumed session left it (else ``default``)."""
        on = None if self.resumed is None else _read_json(os.path.join(self.root, ROBOTS_FILE))
        return on if isinstance(on, bool) else default

    def keep_robots(self, on):
        if self.root is not None:
            _write_json(os.path.join(self.root, ROBOTS_FILE), bool(on))

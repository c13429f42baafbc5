"""The event log behind one small interface: what the table has accepted.

The game calls ``append(event)`` for every accepted input event; it returns
once the line is written (and, for a file journal, flushed), so a power cut
loses at most the event being entered.  Lines are RECORD.md lines with the
journal's CRC-32 suffix; the first line is the session's header.
``MemoryJournal`` keeps them in RAM (simulator, tests); the flash journal
fills in the same interface.
"""
from tapp.jsonout import dumps
from tapp.record import with_crc


class MemoryJournal:
    def __init__(self, header):
        self.lines = [with_crc(dumps(header))]

    def append(self, ev):
        self.lines.append(with_crc(dumps(ev)))

    def tail(self, n):
        """The last ``n`` lines (for screens and the console)."""
        return self.lines[-n:]

    def __len__(self):
        return len(self.lines)

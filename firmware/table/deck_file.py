"""The deck file: one deck's cards and tag UIDs as text, checked by a CRC.

``<root>/decks/<id>.txt`` on the table's flash (table/registry.py keeps it),
and the console's download/upload format (``export`` / ``import_lines``)::

    tappdeck<TAB>1<TAB><deck id><TAB><kind><TAB><card count><TAB><crc>
    CA<TAB>04a1b2c3d4e5f6
    C10<TAB>04a1b2c3d4e5f7
    ...

The card lines are in card order (C, S, H, D; A 10 K Q J 9 8 7 6), UIDs in
lowercase hex (8, 14 or 20 digits).  ``crc`` is the CRC-32 (8 hex digits,
``tapp.record.crc_hex``) of the header text before its last tab, a newline,
and every card line followed by a newline: i.e. of the whole file with the
``<TAB><crc>`` cut out.  A CR before a newline is ignored (files uploaded from
Windows).
"""
from tapp.cards import CARD_BIT, CARD_CODES, CARD_SUIT, CODE_INDEX, DECKS, NCARDS
from tapp.record import crc_hex

DECK_MIN = 1
DECK_MAX = 99
MAX_FILE = 4096           # bytes of one deck file (36 cards need about 900)
MAGIC = "tappdeck"
VERSION = "1"


def uid_hex(uid):
    """A tag UID (bytes, bytearray or memoryview) as lowercase hex, e.g. "04a1b2c3"."""
    return "".join("%02x" % b for b in uid)


def in_mask(masks, card):
    """Is ``card`` in per-suit ``masks`` (tapp/cards.py's DECKS rows)?"""
    return masks[CARD_SUIT[card]] & CARD_BIT[card] != 0


def _hex_uid(s):
    """bytes of a hex UID string of 8, 14 or 20 hex digits, or None."""
    if len(s) not in (8, 14, 20):
        return None
    out = bytearray(len(s) // 2)
    for i in range(len(out)):
        hi = "0123456789abcdef".find(s[2 * i].lower())
        lo = "0123456789abcdef".find(s[2 * i + 1].lower())
        if hi < 0 or lo < 0:
            return None
        out[i] = hi * 16 + lo
    return bytes(out)


class DeckFileError(Exception):
    """A deck file or upload that fails its checks (the text says why)."""


def parse_lines(lines):
    """Check a deck file's lines (str or bytes each, newlines optional; or the
    whole text in one str/bytes); returns (deck_id, kind, [(card, uid bytes)]).

    Raises DeckFileError with a one-line reason.  Checks the header, the CRC,
    the count, every card code (known, in the kind, once) and UID (hex of 4,
    7 or 10 bytes, once).  Conflicts with other decks are the registry's job.
    """
    if isinstance(lines, str):
        lines = lines.split("\n")
    elif isinstance(lines, bytes):
        lines = lines.split(b"\n")
    clean = []
    for line in lines:
        if isinstance(line, (bytes, bytearray)):
            try:
                line = bytes(line).decode()
            except UnicodeError:
                raise DeckFileError("not UTF-8 text") from None
        while line.endswith("\n") or line.endswith("\r"):
            line = line[:-1]
        clean.append(line)
    while clean and clean[-1] == "":
        clean.pop()   # a final newline
    if not clean:
        raise DeckFileError("empty")
    head = clean[0].split("\t")
    if len(head) != 6 or head[0] != MAGIC:
        raise DeckFileError("no deck header (tappdeck)")
    if head[1] != VERSION:
        raise DeckFileError("deck file version %s unknown" % head[1][:8])
    try:
        deck_id = int(head[2])
        count = int(head[4])
    except ValueError:
        raise DeckFileError("bad deck id or count") from None
    if not DECK_MIN <= deck_id <= DECK_MAX or str(deck_id) != head[2]:
        raise DeckFileError("bad deck id")
    kind = head[3]
    if kind not in DECKS:
        raise DeckFileError("unknown kind %s" % kind[:8])
    body = clean[1:]
    text = clean[0][:clean[0].rfind("\t")] + "\n" + "".join(x + "\n" for x in body)
    if crc_hex(text) != head[5].lower():
        raise DeckFileError("CRC mismatch")
    if count != len(body):
        raise DeckFileError("card count %d, %d lines" % (count, len(body)))
    masks = DECKS[kind]
    seen_cards = bytearray(NCARDS)
    seen_uids = {}
    cards = []
    for n, line in enumerate(body):
        parts = line.split("\t")
        card = CODE_INDEX.get(parts[0], -1) if len(parts) == 2 else -1
        if card < 0:
            raise DeckFileError("line %d: bad card" % (n + 2))
        if not in_mask(masks, card):
            raise DeckFileError("line %d: %s not in %s" % (n + 2, parts[0], kind))
        if seen_cards[card]:
            raise DeckFileError("line %d: %s twice" % (n + 2, parts[0]))
        seen_cards[card] = 1
        uid = _hex_uid(parts[1])
        if uid is None:
            raise DeckFileError("line %d: bad UID" % (n + 2))
        if uid in seen_uids:
            raise DeckFileError("line %d: UID twice" % (n + 2))
        seen_uids[uid] = card
        cards.append((card, uid))
    return deck_id, kind, cards


def format_lines(deck_id, kind, cards):
    """The lines (no newlines) of a deck file for [(card, uid)] (any order)."""
    cards = sorted(cards, key=lambda cu: cu[0])
    body = ["%s\t%s" % (CARD_CODES[c], uid_hex(u)) for c, u in cards]
    head = "%s\t%s\t%d\t%s\t%d" % (MAGIC, VERSION, deck_id, kind, len(body))
    crc = crc_hex(head + "\n" + "".join(x + "\n" for x in body))
    return [head + "\t" + crc] + body

"""The screen's rows, written character by character: nothing is allocated.

A row is 16 code points in a preallocated ``array`` (``shown``), written over
what it showed; a row whose characters or inversion changed is drawn into the
display's buffer when it ends (font.cells), the others are left alone.  The
pen writes one row at a time:

    w.begin(row, invert)      # the row's left part, from column 0
    w.num(3); w.text("wins")  # characters: put, add (a str), num, text, card ...
    w.right()                 # the pen moves to the row's right part
    room = w.left()           # and back: the columns the left part may fill
    w.end(aligned)            # the right part placed -- at the right edge
                              # (aligned) or one space after the left -- and
                              # the row drawn if it changed

Either part may be written first: a right part written first tells the left
part its room (a seat's card or a call, then the name shortened to what is
left), one written last is put at the edge as it is (a header's "G:Anna").
When both do not fit, one space goes between them and the row is cut.
Texts and names come straight from the bytes of table/texts.py,
numbers digit by digit, cards as their suit's glyph and rank -- French or, for
a German-suited deck (``german``), the German glyphs with Ober and Unter.

The methods are small on purpose: MicroPython puts a call's frame on the heap
when its locals and stack exceed about 11 words (tests/test_frames.py).
"""
from array import array

from tapp.cards import CARD_RANK, CARD_SUIT

from . import font, names, texts

ROWS = 8
COLS = 16
_SPACES = array("I", [32] * COLS)
_ALL = (1 << COLS) - 1          # every column
# bytes of a UTF-8 sequence by its first byte's high nibble
_SEQ = b"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x02\x02\x03\x04"


def _code(data, i):
    """The code point of the UTF-8 sequence at ``data[i]``."""
    b = data[i]
    if b < 0x80:
        return b
    if b < 0xE0:
        return (b & 0x1F) << 6 | data[i + 1] & 0x3F
    if b < 0xF0:
        return ((b & 0x0F) << 6 | data[i + 1] & 0x3F) << 6 | data[i + 2] & 0x3F
    return (((b & 0x07) << 6 | data[i + 1] & 0x3F) << 6 | data[i + 2] & 0x3F) << 6 \
        | data[i + 3] & 0x3F


def code_points(s):
    """The code points of the str ``s``, an ``array`` (from its UTF-8 bytes:
    ``for c in s`` makes a 1-character str of each, which MicroPython looks
    up among its interned strings, 0.25 ms a letter on the Pico)."""
    n = len(s)
    data = bytearray(4 * n)
    end = font.str_bytes(s, n, data)
    out = array("I", range(n))           # n slots, each written below
    i = 0
    k = 0
    while i < end:
        out[k] = _code(data, i)
        i += _SEQ[data[i] >> 4]
        k += 1
    return out


def _percent(a):
    """Where the "%s" of the text at ``texts.DATA[a]`` is."""
    return texts.DATA.find(b"%s", a)


def _digits(data, end):
    """How many digits end the UTF-8 bytes ``data[:end]`` (a digit is a byte)."""
    d = 0
    while d < end and 48 <= data[end - 1 - d] <= 57:
        d += 1
    return d


def width(n, sign=False):
    """Columns of the int ``n`` written with ``num`` (and a "+" if ``sign``)."""
    w = 1 if n < 0 or (sign and n > 0) else 0
    if n < 0:
        n = -n
    w += 1
    while n >= 10:
        n //= 10
        w += 1
    return w


def _utf8_at(out, k, c):
    """Code point ``c`` as UTF-8 at ``out[k]``: where the next goes."""
    if c < 0x80:
        out[k] = c
        return k + 1
    if c < 0x800:
        out[k] = 0xC0 | c >> 6
        out[k + 1] = 0x80 | c & 0x3F
        return k + 2
    if c < 0x10000:
        out[k] = 0xE0 | c >> 12
        out[k + 1] = 0x80 | c >> 6 & 0x3F
        out[k + 2] = 0x80 | c & 0x3F
        return k + 3
    out[k] = 0xF0 | c >> 18
    out[k + 1] = 0x80 | c >> 12 & 0x3F
    out[k + 2] = 0x80 | c >> 6 & 0x3F
    out[k + 3] = 0x80 | c & 0x3F
    return k + 4


class RowWriter:
    """The rows shown on ``display`` and the pen that writes them (above)."""

    def __init__(self, display):
        self.display = display
        # code points shown, spaces past a row's length (drawn blank, as a space)
        self.shown = [array("I", [32] * COLS) for _ in range(ROWS)]
        self.lens = bytearray(ROWS)          # characters shown per row
        self.inverted = bytearray(ROWS)
        self.lang = "de"                     # the texts' language
        self.german = False                  # cards of a German-suited deck
        self._right = array("I", [0] * COLS)  # the row's right part, placed at end()
        self.cut = 0                         # characters given past the edge (or a limit)
        self._right_len = 0
        self._left_len = 0                   # the left part's length while the pen is right
        self._to = self.shown[0]             # where the pen writes: the row or its right part
        self.row = 0                         # the row being written
        self._pos = 0                        # characters given (also past column 16)
        self._changed = False                # the row differs from what was shown
        self._kept = False                   # (that, while the pen writes the right part)
        self.whole = 0                       # bit r: draw row r whole (``forget``)
        self.texts = [""] * ROWS             # the rows as strs (``text_rows``) ...
        self.dirty = (1 << ROWS) - 1         # ... bit r: row r changed since made
        self.row_bytes = bytearray(4 * COLS)  # ... one row's bytes, put together
        self._sb = bytearray(4 * COLS)       # a str's bytes being written (``add``, ``short``)
        self._key = None                     # the text key asked last (``_which``),
        self._key_lang = None                # in this language: its number, its length
        self._key_j = -1
        self._key_len = -1
        self._first = COLS                   # the row's first and last changed column
        self._last = -1
        self._cols = 0                       # and every changed column (bit c: column c)
        # the display's ``mark(page, first, last)`` (drivers/ssd1306.py): which
        # columns of a row changed, so it sends only those; None: a display without it
        self._mark = getattr(display, "mark", None)

    # ----- a row: begin, its parts, end -------------------------------------------------

    def begin(self, row, invert=False):
        """Start ``row`` (0..7) at its left part, column 0."""
        self.row = row
        self._to = self.shown[row]
        self._pos = 0
        self._right_len = 0
        inv = 1 if invert else 0
        self._changed = inv != self.inverted[row]
        self.inverted[row] = inv
        self._first = 0 if self._changed else COLS     # inverted: every column changed
        self._last = COLS - 1 if self._changed else -1
        self._cols = _ALL if self._changed else 0

    def right(self):
        """The pen moves to the row's right part (after what it holds)."""
        self._left_len = self._pos
        self._kept = self._changed           # writing the right part changes no row
        self._to = self._right
        self._pos = self._right_len

    def left(self):
        """The pen moves back to the left part; the columns left for it."""
        if self._to is self._right:
            self._right_len = self._pos if self._pos < COLS else COLS
            self._to = self.shown[self.row]
            self._pos = self._left_len
            self._changed = self._kept
        n = self._right_len
        return COLS - 1 - n if n else COLS

    def fits(self):
        """Do the left part, a space and the right part fit in the row?"""
        return self._pos + 1 + self._right_len <= COLS

    def drop_right(self):
        """Forget the right part (it goes on a row of its own)."""
        self.left()
        self._right_len = 0

    def end(self, aligned=True):
        """Place the right part, then the row is written: its length, zeros
        after it, drawn if it changed."""
        self.left()
        n = self._right_len
        if n:
            gap = COLS - self._pos - n if aligned else 1
            if gap <= 0 or not aligned:
                gap = 1 if self._pos else 0
            self.spaces(gap)
            self._place_right(n)
        self._finish()

    def blank(self, row):
        """Row ``row`` shows nothing."""
        self.begin(row)
        self._finish()

    def _place_right(self, n):
        self._copy(self._right, n)

    def _finish(self):
        row = self.row
        n = self._pos if self._pos < COLS else COLS
        if n != self.lens[row]:
            self._changed = True
            if n < self.lens[row]:               # the columns cleared after it changed
                self._columns(n, self.lens[row] - 1)
            self.lens[row] = n
        cur = self._to
        while n < COLS:
            cur[n] = 32                          # blank as a space: no cell to draw
            n += 1
        if self._changed:
            self.dirty |= 1 << row
            self._draw_changed(row)
            if self._mark is not None and self._last >= 0:
                self._mark(row, self._first << 3, (self._last << 3) | 7)

    def _columns(self, a, b):
        """Columns a..b of the row being written changed."""
        if a < self._first:
            self._first = a
        if b > self._last:
            self._last = b
        self._cols |= (2 << b) - (1 << a)

    def draw(self, row):
        """Draw row ``row`` as it is shown into the display's buffer."""
        font.cells(self.display, row, self.shown[row], self.lens[row], self.inverted[row])

    def _draw_changed(self, row):
        """Draw the columns of ``row`` that changed (the whole row after ``forget``)."""
        if self._last >= 0 and not self.whole >> row & 1:
            font.columns(self._cols)
        self.whole &= ~(1 << row)
        self.draw(row)

    def forget(self):
        """Something else drew on the display: each row is drawn whole when it
        is next written and changed."""
        self.whole = (1 << ROWS) - 1

    # ----- characters ---------------------------------------------------------------------

    def put(self, c):
        """The character of code point ``c`` (past the row's edge: counted in ``cut``)."""
        p = self._pos
        if p < COLS:
            if self._to[p] != c:
                self._to[p] = c
                self._changed = True
                if self._to is not self._right:
                    self._columns(p, p)
        elif self._to is not self._right:
            self.cut += 1
        self._pos = p + 1

    def spaces(self, n):
        self._copy(_SPACES, n if n < COLS else COLS)

    def _copy(self, src, n):
        """``put`` of the code points ``src[0:n]`` (an ``array``), without a
        call per character (a call costs the Pico some 15 us)."""
        to = self._to
        p = self._pos
        i = 0
        while i < n:
            if p >= COLS:
                self._past(n - i)
                p += n - i
                break
            if to[p] != src[i]:
                to[p] = src[i]
                self._put_changed(p)
            p += 1
            i += 1
        self._pos = p

    def _put_changed(self, p):
        self._changed = True
        if self._to is not self._right:
            self._columns(p, p)

    def _past(self, k):
        """``k`` characters given past the row's edge."""
        if self._to is not self._right:
            self.cut += k

    def add(self, s, limit=COLS):
        """The characters of the str ``s``, at most ``limit`` of them: from its
        UTF-8 bytes (font.str_bytes), never ``s[i]`` (a 1-character str each,
        looked up among MicroPython's interned strings: 0.25 ms a character
        on the Pico, a row of a name and a prompt 3 ms)."""
        n = len(s)
        if n > limit:
            self.cut += n - limit
            n = limit
        end = font.str_bytes(s, n, self._sb)
        if end >= 0:
            self.utf8(self._sb, 0, end)
            return
        i = 0                            # (more than a row's bytes: never on the table)
        while i < n:
            self.put(ord(s[i]))
            i += 1

    def codes(self, codes):
        """The code points ``codes`` (an ``array``: a seat's name as the
        screens keep it, no str indexed character by character)."""
        self._copy(codes, len(codes))

    def utf8(self, data, i, end):
        """The characters of the UTF-8 bytes ``data[i:end]``."""
        while i < end:
            if data[i] < 0x80:          # a run of ASCII: their own code points
                i = self._ascii(data, i, end)
            else:
                self.put(_code(data, i))
                i += _SEQ[data[i] >> 4]

    def _ascii(self, data, i, end):
        """``put`` of the ASCII bytes from ``data[i]`` on, up to ``end`` or the
        first other byte; where it stopped."""
        to = self._to
        p = self._pos
        while i < end and data[i] < 0x80:
            if p >= COLS:
                self._past(1)
            elif to[p] != data[i]:
                to[p] = data[i]
                self._put_changed(p)
            p += 1
            i += 1
        self._pos = p
        return i

    def num(self, n):
        """An int in decimal."""
        if n < 0:
            self.put(45)                # -
            n = -n
        d = 1
        while d * 10 <= n:
            d *= 10
        while d:
            self.put(48 + n // d % 10)
            d //= 10

    def signed(self, n, columns, sign):
        """An int right-aligned in ``columns`` (a "+" before a positive one if ``sign``)."""
        self.spaces(columns - width(n, sign))
        if sign and n > 0:
            self.put(43)                # +
        self.num(n)

    def fraction(self, a, b):
        """"2/3"."""
        self.num(a)
        self.put(47)                    # /
        self.num(b)

    # ----- texts and names (table/texts.py) ------------------------------------------------

    def text(self, key):
        """The table text ``key`` in the language."""
        j = self._which(key)
        self.utf8(texts.DATA, texts.OFF[j], texts.OFF[j + 1] - 1)

    def text_number(self, j):
        """The table text number ``j`` (texts.error_number, a name's number of
        table/names.py ...)."""
        self.utf8(texts.DATA, texts.OFF[j], texts.OFF[j + 1] - 1)

    def text_head(self, key):
        """The text ``key`` up to its "%s"; ``text_tail(key)`` writes the rest."""
        a = texts.OFF[self._which(key)]
        self.utf8(texts.DATA, a, _percent(a))

    def text_tail(self, key):
        j = self._which(key)
        self.utf8(texts.DATA, _percent(texts.OFF[j]) + 2, texts.OFF[j + 1] - 1)

    def text_len(self, key):
        """Characters of the text ``key`` (its UTF-8 bytes counted once each)."""
        j = self._which(key)
        if self._key_len < 0:
            self._key_len = self.number_len(j)
        return self._key_len

    def _which(self, key):
        """``texts.which(key, lang)``, remembered for the last key asked (a row
        asks one text's length, head and tail in turn: on the Pico a lookup
        is some 0.1 ms)."""
        if key is not self._key or self.lang is not self._key_lang:
            self._key_j = texts.which(key, self.lang)
            self._key = key
            self._key_lang = self.lang
            self._key_len = -1
        return self._key_j

    def number_len(self, j):
        """Characters of the text number ``j``."""
        i = texts.OFF[j]
        end = texts.OFF[j + 1] - 1
        n = 0
        while i < end:
            i += _SEQ[texts.DATA[i] >> 4]
            n += 1
        return n

    def contract(self, cid, short=False):
        """Contract ``cid``'s name (``short``: its short name beside a
        player's, names.SHORT, where it has one)."""
        j = names.contract_number(cid, self.lang)
        if short and cid in names.SHORT:
            self.add(names.short_contract(cid, self.lang))
        elif j < 0:
            self.add(cid)
        else:
            self.text_number(j)

    def suit(self, s):
        """Suit ``s``'s glyph (0..3: C S H D) in the deck's pattern."""
        self.put(names.suit_code(s, self.german))

    def card(self, card):
        """``♥10``, or for a German-suited deck its glyph and ``O``/``U``."""
        self.suit(CARD_SUIT[card])
        self.add(names.rank_token(CARD_RANK[card], self.german))

    # ----- names shortened where they show ------------------------------------------------

    def short(self, s, columns):
        """The str ``s`` in at most ``columns``, as names.short_name shortens it
        (whole; without spaces; "Pl.1"; "Jürg."): no cut word.  Written from
        its UTF-8 bytes (``add``); a space and a digit are a byte each."""
        n = len(s)
        if n <= columns:
            self.add(s)
            return
        end = font.str_bytes(s, n, self._sb)
        if end < 0:                     # (longer than a name may be: as a row)
            self.add(s, columns)
        elif n - s.count(" ") <= columns:
            self._from(end, 0, False)
        else:
            self._shortened(n, end, columns)

    def _shortened(self, n, end, columns):
        """``_sb[:end]`` (``n`` characters) as a prefix and its trailing number
        ("Pl.1"), else a prefix and a period ("Jürg.")."""
        d = _digits(self._sb, end)
        if 0 < d < n and d + 2 <= columns:
            self._stem(columns - 1 - d)
            self._from(end, end - d, True)
        else:
            self._stem(columns - 1)

    def _from(self, end, i, keep_spaces):
        """The characters of ``_sb[i:end]`` (its spaces only if ``keep_spaces``)."""
        sb = self._sb
        while i < end:
            if keep_spaces or sb[i] != 32:
                self.put(_code(sb, i))
            i += _SEQ[sb[i] >> 4]

    def _stem(self, k):
        """The first ``k`` characters of ``_sb`` without trailing spaces, and "."."""
        sb = self._sb
        e = 0
        while k > 0:
            e += _SEQ[sb[e] >> 4]
            k -= 1
        while e > 0 and sb[e - 1] == 32:
            e -= 1
        self.utf8(sb, 0, e)
        self.put(46)                   # .

    # ----- what is shown ----------------------------------------------------------------

    def text_rows(self):
        """What the screen shows, row by row (strs: for the console and tests);
        a row's str is made again only after the row changed (a console
        client asks every few seconds; all eight made took some 30 ms on the
        Pico)."""
        texts = self.texts
        for r in range(ROWS):
            if self.dirty >> r & 1:
                texts[r] = self.text_row(r)
        self.dirty = 0
        return list(texts)

    def text_row(self, r):
        """Row ``r`` as a str: its UTF-8 bytes put together, then one str made
        (each character's own str, as ``chr`` makes it, costs a search of
        MicroPython's interned strings: some 8 ms a row on the Pico)."""
        row = self.shown[r]
        n = self.lens[r]
        k = 0
        i = 0
        while i < n:
            k = _utf8_at(self.row_bytes, k, row[i])
            i += 1
        return str(memoryview(self.row_bytes)[0:k], "utf-8")

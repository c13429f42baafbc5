# The journal's CRC-32 (firmware/table/crc_buf.py) on every runtime: the same
# value as binascii.crc32 and the record format's own (tapp/record.py crc_hex)
# for buffers of every length a record has, fed whole or in parts, from any
# offset; written as 8 hex digits and as 4 big-endian bytes.  Where the port
# compiles viper (the unix port, the Pico) crc_buf.feed is the machine code of
# table/crc_native.py, elsewhere (CPython, the wasm port) the bytecode loop:
# both give the same CRC.  Feeding allocates nothing (heap_lock).
import binascii

from table import crc_buf
from tapp.record import crc_hex

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _data(n, seed):
    out = bytearray(n)
    x = seed
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = x >> 16 & 0xFF
    return out


def test_the_crc_is_crc32_for_every_length_and_offset():
    st = crc_buf.state()
    out = bytearray(8)
    for n in (0, 1, 2, 7, 10, 45, 64, 255, 256, 300):
        data = _data(n + 3, n)
        crc_buf.start(st)
        crc_buf.feed(st, data, 3, 3 + n)
        crc_buf.put_hex(st, out, 0)
        want = crc_hex(bytes(data[3:3 + n]))
        assert bytes(out).decode() == want, (n, bytes(out), want)
        assert int(want, 16) == binascii.crc32(bytes(data[3:3 + n])) & 0xFFFFFFFF


def test_fed_in_parts_is_fed_whole():
    st = crc_buf.state()
    whole = bytearray(4)
    parts = bytearray(4)
    data = _data(100, 7)
    crc_buf.start(st)
    crc_buf.feed(st, data, 0, 100)
    crc_buf.put_be(st, whole, 0)
    crc_buf.start(st)
    for a in range(0, 100, 13):
        crc_buf.feed(st, data, a, min(a + 13, 100))
    crc_buf.put_be(st, parts, 0)
    assert whole == parts
    assert int.from_bytes(whole, "big") == binascii.crc32(bytes(data)) & 0xFFFFFFFF


def test_a_memoryview_is_fed_as_its_buffer():
    st = crc_buf.state()
    out = bytearray(8)
    data = _data(60, 3)
    crc_buf.start(st)
    crc_buf.feed(st, memoryview(data)[10:], 0, 45)
    crc_buf.put_hex(st, out, 0)
    assert bytes(out).decode() == crc_hex(bytes(data[10:55]))


def test_feeding_allocates_nothing():
    st = crc_buf.state()
    data = _data(45, 9)
    out = bytearray(8)
    crc_buf.feed(st, data, 0, 45)
    if micropython is None:
        return                      # CPython: the other tests are the point here
    micropython.heap_lock()
    try:
        crc_buf.start(st)
        crc_buf.feed(st, data, 0, 45)
        crc_buf.put_hex(st, out, 0)
    finally:
        micropython.heap_unlock()
    assert bytes(out).decode() == crc_hex(bytes(data))

"""``neopixel`` inside the bridged VM: the strip's bytes go to the host's model.

The same buffer layout as micropython-lib's ``neopixel.NeoPixel`` (GRB on the
wire); ``write()`` sends what the data line would carry.
"""
from binascii import hexlify

from vm_link import tell


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        off = i * self.bpp
        for k in range(self.bpp):
            self.buf[off + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        off = i * self.bpp
        return tuple(self.buf[off + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        for i in range(self.n):
            self[i] = v

    def write(self):
        tell(b"@N%s\n" % hexlify(self.buf))

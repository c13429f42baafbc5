"""A preallocated ring of small ints between two tasks that drops nothing silently.

``put`` returns False and counts ``overflows`` when the ring is full (the
newest item is refused, so the consumer still sees everything in order up to
the gap and can report it); ``get`` returns -1 when empty.  No allocation.
"""


class Ring:
    def __init__(self, size):
        self.buf = bytearray(size)
        self.size = size
        self.head = 0          # next to read
        self.count = 0
        self.overflows = 0

    def put(self, value):
        if self.count == self.size:
            self.overflows += 1
            return False
        self.buf[(self.head + self.count) % self.size] = value
        self.count += 1
        return True

    def get(self):
        if not self.count:
            return -1
        value = self.buf[self.head]
        self.head = (self.head + 1) % self.size
        self.count -= 1
        return value

    def __len__(self):
        return self.count

"""Byte buffers compared and copied without slicing (a slice allocates).

Shared by the reader driver and the card-presence arbiter, whose poll paths
must allocate nothing (docs/design.md, principle 4).
"""


def eq(a, b, n):
    """a[:n] == b[:n] without allocating."""
    while n:
        n -= 1
        if a[n] != b[n]:
            return False
    return True


def cp(dst, src, n):
    """dst[:n] = src[:n] without allocating."""
    while n:
        n -= 1
        dst[n] = src[n]

"""A deterministic small-int PRNG for code that runs in every runtime.

Plain Python for CPython, the unix port and the 32-bit WebAssembly port (no
random module there in every build): its values stay below 2**30, so a
32-bit port draws the same numbers as CPython.  The VM benches' players
(host_sim/vm/app_session.py) and the engine tests' random deals
(tests/mp/random_deals.py) draw from it.
"""


class Lcg:
    """x' = (1103 x + 12345) mod 1000003."""

    def __init__(self, seed):
        self.x = seed % 1000003

    def below(self, n):
        self.x = (self.x * 1103 + 12345) % 1000003
        return self.x % n

    def bits(self, n):
        """A number below 2**n (``random.getrandbits``' shape; n <= 16)."""
        return self.below(1 << n)

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]

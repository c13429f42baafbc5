"""The sliver of pytest that the rules-example tests use, for MicroPython.

Under pytest the real module is already imported, so this file is only found
inside the MicroPython VMs, where tests/mp/ is on the path and mprunner.py
expands ``Parametrized`` tests into one test per case.
"""


class Parametrized:
    """A test function with its cases (MicroPython functions take no attributes)."""

    def __init__(self, fn, names, values):
        self.fn = fn
        self.arity = len(names.split(","))
        self.values = list(values)

    def cases(self):
        return [v if self.arity > 1 else (v,) for v in self.values]

    def __call__(self, *args):
        return self.fn(*args)


class _Mark:
    def parametrize(self, names, values):
        def deco(fn):
            return Parametrized(fn, names, values)
        return deco


mark = _Mark()

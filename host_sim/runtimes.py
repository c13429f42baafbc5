"""The runtimes a virtual table's application runs on, and the table class of each.

``cpython``: in this process (host_sim/table.py ``VirtualTable``);
``micropython``: inside the MicroPython unix port on the same chip models
(host_sim/vm_table.py ``VmTable``); ``rp2040``: MicroPython's rp2 port on the
emulated Pico (host_sim/rp2040/table.py ``Rp2040Table``).  Every scenario
file runs on the first two (tests/test_scenarios.py), a chosen few on the
third (tests/test_rp2040_table.py); ``tapptable sim --runtime`` and the
tests pick a table here.
"""

RUNTIMES = ("cpython", "micropython")   # every scenario runs on both (tests/test_scenarios.py)
EMULATED = "rp2040"     # the emulated Pico: a chosen few in the tests (tests/test_rp2040_table.py)


class UnknownRuntime(ValueError):
    """A runtime none of the above."""


def table_class(runtime):
    """The virtual table class for ``runtime`` (its module imported only when asked for)."""
    if runtime == "micropython":
        from host_sim.vm_table import VmTable
        return VmTable
    if runtime == EMULATED:
        from host_sim.rp2040.table import Rp2040Table
        return Rp2040Table
    if runtime != "cpython":
        raise UnknownRuntime("unknown runtime %r (%s)" % (runtime,
                                                          ", ".join(RUNTIMES + (EMULATED,))))
    from host_sim.table import VirtualTable
    return VirtualTable

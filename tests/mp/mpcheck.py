# What a test in tests/mp/ says when it does not apply where it runs: a
# counted outcome of its own with its reason, never a silent pass.
#
#   from mpcheck import not_applicable
#   if not LFS:
#       not_applicable("no vfs.VfsLfs2 (littlefs) on this port")
#
# Inside a VM (mprunner.py) it raises ``NotApplicable``: the runner prints
# "N/A <module>.<test>: <reason>" and counts it apart from passes and
# failures; tests/test_micropython.py holds the list of tests that may say so
# on each port, and why (``NOT_APPLICABLE``).  Under pytest (CPython) it is
# pytest's skip with the reason.


class NotApplicable(Exception):
    """The test does not apply on this port; the text says why."""


RUNNER = []            # mprunner.py puts a mark here: the VM's runner counts the outcome


def not_applicable(reason):
    if not RUNNER:
        try:
            import pytest
            skip = getattr(pytest, "skip", None)   # (tests/mp/pytest.py, in a VM, has none)
        except ImportError:
            skip = None
        if skip is not None:
            skip(reason)
    raise NotApplicable(reason)

"""Every docs/rules worked example, inside the MicroPython VMs too.

The example modules are pytest files (run by pytest on CPython); here they are
imported with tests/mp/pytest.py standing in for pytest, and mprunner.py runs
each test and each parametrized case.
"""
# mp-heapsize: 1m
from test_rules_examples import *  # noqa: F403
from test_rules_examples_tarock_herzblatt import *  # noqa: F403

"""pytest under CPython collects the ``mptest_*`` modules too (pyproject's
``python_files``), except two that run only inside the VMs
(tests/test_micropython.py): ``mptest_vm`` checks the VM itself (``import
micropython``, the heap), and ``mptest_rules_examples`` only re-imports the
``test_rules_examples*`` files, which pytest already runs here."""
collect_ignore = ["mptest_vm.py", "mptest_rules_examples.py"]

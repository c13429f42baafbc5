"""pytest under CPython collects the ``mptest_*`` modules too (pyproject's
``python_files``), except ``mptest_vm``: it checks the VM itself (``import
micropython``, the heap) and runs only there (tests/test_micropython.py)."""
collect_ignore = ["mptest_vm.py"]

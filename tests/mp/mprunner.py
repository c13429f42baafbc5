# Mini test runner for tests that run under real MicroPython (unix and wasm
# ports) and unchanged under CPython.
#
#   micropython tests/mp/mprunner.py mptest_vm mptest_engine ...
#   python3 tests/mp/mprunner.py mptest_engine
#
# Imports each named module (they live in tests/mp/, which is on sys.path),
# runs every module-level function whose name starts with "test_" in name
# order, and ends with exactly one line "mp: N passed, M failed, K not
# applicable". The exit status is 1 when M > 0 or N == 0 (no test ran), else 0.
#
# A test passes when it returns without raising. A module that fails to import
# counts as one failed test. A test that leaves micropython.heap_lock() held
# fails too (and the heap is unlocked before the next test). A test that does
# not apply on this port says so (mpcheck.py ``not_applicable``): a line
# "N/A <module>.<test>: <reason>", counted as not applicable (which tests may,
# and why, is tests/test_micropython.py's to check).
import gc
import sys

import mpcheck

try:
    import micropython
except ImportError:  # CPython
    micropython = None


def _print_exc(exc):
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc)  # MicroPython
    else:
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stdout)


def _heap_locked():
    # Probe with a tiny allocation: it fails only while the heap is locked
    # (the ports have no heap_locked(), and unlocking an unlocked heap breaks it).
    if micropython is None:
        return False
    try:
        probe = [0]
    except MemoryError:
        return True
    del probe
    return False


def _unlock_heap():
    n = 0
    while n < 10000 and _heap_locked():
        micropython.heap_unlock()
        n += 1
    return n


def _tests_of(module):
    """(name, zero-argument callable) per test; a test parametrized through
    tests/mp/pytest.py becomes one entry per case, named ``test[i]``."""
    names = sorted(n for n in dir(module) if n.startswith("test_"))
    out = []
    for n in names:
        fn = getattr(module, n)
        if hasattr(fn, "cases"):
            for i, args in enumerate(fn.cases()):
                out.append(("%s[%d]" % (n, i), lambda f=fn.fn, a=args: f(*a)))
        elif callable(fn):
            out.append((n, fn))
    return out


def run(module_names):
    mpcheck.RUNNER.append(1)
    passed = 0
    failed = 0
    na = 0
    for mod_name in module_names:
        try:
            module = __import__(mod_name)
        except Exception as exc:
            _unlock_heap()
            failed += 1
            print("FAIL %s (import)" % mod_name)
            _print_exc(exc)
            continue
        tests = _tests_of(module)
        if not tests:
            print("NOTE %s: no test_ functions" % mod_name)
        for name, fn in tests:
            label = "%s.%s" % (mod_name, name)
            gc.collect()    # each test starts on a collected heap, whatever ran before
            try:
                fn()
            except mpcheck.NotApplicable as exc:
                if not _unlock_heap():
                    na += 1
                    print("N/A %s: %s" % (label, exc))
                    continue
                failed += 1
                print("FAIL %s: not applicable, with micropython.heap_lock() held" % label)
                continue
            except Exception as exc:
                locks = _unlock_heap()
                failed += 1
                print("FAIL %s: %s: %s" % (label, type(exc).__name__, exc))
                if locks:
                    print("  (the heap was still locked %d time(s); unlocked)" % locks)
                _print_exc(exc)
                continue
            locks = _unlock_heap()
            if locks:
                failed += 1
                print("FAIL %s: returned with micropython.heap_lock() held %d time(s)"
                      % (label, locks))
            else:
                passed += 1
                print("PASS %s" % label)
    print("mp: %d passed, %d failed, %d not applicable" % (passed, failed, na))
    return passed, failed


def main(argv):
    if not argv:
        print("usage: mprunner.py MODULE [MODULE...]   (modules in tests/mp/)")
        print("mp: 0 passed, 0 failed, 0 not applicable")
        return 1
    passed, failed = run(argv)
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The `ok` / `FAIL` lines the Python tests print, which their lit files
read with FileCheck, and the failures they end on."""

failures = []


def check(ok, what):
    """Prints `ok   what` or `FAIL what` (flushed, so that lines keep their
    order with a child process's output) and records a failure."""
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)
    if not ok:
        failures.append(what)


def finish(suffix=""):
    """Prints `N failed` (then `suffix`) and returns the exit status."""
    print("%d failed%s" % (len(failures), suffix))
    return 1 if failures else 0

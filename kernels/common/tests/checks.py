"""What the kernels' Python test scripts share: a failed check ends the case with its
message, and the script exits 1 naming the case (ctest shows stderr)."""
import sys


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run_case(name, case, *args):
    """The exit status of one case: 0, or 1 after "FAIL <name>: <why>" on stderr."""
    try:
        case(*args)
    except Failure as failure:
        print(f"FAIL {name}: {failure}", file=sys.stderr)
        return 1
    print(f"PASS {name}")
    return 0

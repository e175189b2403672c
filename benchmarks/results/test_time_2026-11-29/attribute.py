"""Which tests of a later commit are new since an earlier one, and which issue added each.

    python attribute.py THEN.xml NOW.xml --since 7479692 --issues 48 50 51 52 53 > leave_out.json

THEN.xml and NOW.xml are pytest's ``--junitxml`` of the two commits' test commands. A test of NOW whose name THEN
has not is new; the first commit after ``--since`` whose ``git log -S "def NAME("`` touches its file names the issue
(``issue N`` in its message). Prints the node ids of the new tests added under ``--issues`` as JSON (for
``leave_out.py``), and on stderr the new tests' seconds of test time by issue ("renamed": a new parameter of a test
that THEN had; "?": no issue named).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def tests(junit: str) -> dict[tuple[str, str], float]:
    """``{(file, name): seconds}``; file as ``tests/test_x.py`` or ``notebooks/NN_x.ipynb``."""
    found = {}
    for case in ET.parse(junit).iter("testcase"):
        folder, stem = case.get("classname").split(".")[:2]
        suffix = ".py" if folder == "tests" else ".ipynb"
        found[(f"{folder}/{stem}{suffix}", case.get("name"))] = float(case.get("time"))
    return found


def adding_issue(path: str, name: str, since: str) -> str:
    function = re.sub(r"\[.*", "", name)
    log = ["git", "log", "--format=%s", "--reverse", "-S", f"def {function}(", f"{since}..HEAD", "--", path]
    first = subprocess.run(log, capture_output=True, text=True, check=True).stdout.splitlines()
    if not first:
        return "renamed"
    found = re.search(r"issue (\d+)", first[0])
    return found.group(1) if found else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("then")
    parser.add_argument("now")
    parser.add_argument("--since", required=True, help="the earlier commit")
    parser.add_argument("--issues", nargs="+", default=[], help="the issues whose new tests are listed")
    args = parser.parse_args(argv)
    names = {name for _, name in tests(args.then)}
    seconds, leave_out = collections.Counter(), []
    for (path, name), time in tests(args.now).items():
        if path.startswith("notebooks/") or name in names:
            continue
        issue = adding_issue(path, name, args.since)
        seconds[issue] += time
        if issue in args.issues:
            leave_out.append(f"{path}::{name}")
    for issue, total in seconds.most_common():
        print(f"issue {issue}: {total:.1f} s of test time", file=sys.stderr)
    print(json.dumps(leave_out, indent=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())

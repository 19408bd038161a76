#!/usr/bin/env python3
"""Reads `go test -json` on stdin and prints what a person running `make test` needs.

While the run goes: one line per package (ok / FAIL / no tests) and the whole output of every failing test. At
the end: the W3C suite scores the conformance runners wrote to $LDHUB_REPORT_DIR, and every skipped test with the
reason it gave, so that a run which skipped half the suites cannot pass in silence. Exits 1 when any test or
package failed (or the input held none).
"""
import json
import os
import re
import sys

outputs = {}  # (package, test) -> [lines]
skipped = []  # (package, test, reason)
failed_pkgs = []
failed_tests = []
packages = 0

for raw in sys.stdin:
    try:
        ev = json.loads(raw)
    except ValueError:
        # Build errors arrive as plain text before the JSON of their package.
        sys.stdout.write(raw)
        continue
    pkg, test, action = ev.get("Package", ""), ev.get("Test"), ev.get("Action")
    if action == "output":
        outputs.setdefault((pkg, test), []).append(ev.get("Output", ""))
        continue
    if test:
        if action == "skip":
            lines = [l.strip() for l in outputs.get((pkg, test), [])
                     if l.strip() and not l.startswith(("=== ", "--- "))]
            skipped.append((pkg, test, lines[-1] if lines else "(no reason given)"))
        elif action == "fail":
            failed_tests.append((pkg, test))
            sys.stdout.write("".join(outputs.get((pkg, test), [])))
        if action in ("pass", "skip", "fail"):
            outputs.pop((pkg, test), None)
        continue
    if action in ("pass", "fail", "skip"):
        packages += 1
        elapsed = ev.get("Elapsed", 0)
        if action == "fail":
            failed_pkgs.append(pkg)
            # Package-level output holds panics and build failures.
            sys.stdout.write("".join(outputs.get((pkg, None), [])))
            print(f"FAIL\t{pkg}\t{elapsed:.1f}s")
        elif action == "pass":
            print(f"ok  \t{pkg}\t{elapsed:.1f}s")
        outputs.pop((pkg, None), None)
        sys.stdout.flush()

print("\n== conformance scores (W3C suites)")
report_dir = os.environ.get("LDHUB_REPORT_DIR", "build/reports")
score = re.compile(r"^[^ ].*: [0-9]+ passed, [0-9]+ failed$")
found = False
if os.path.isdir(report_dir):
    for name in sorted(os.listdir(report_dir)):
        if name.endswith(".txt"):
            with open(os.path.join(report_dir, name), encoding="utf-8") as f:
                for line in f:
                    if score.match(line.rstrip("\n")):
                        print("  " + line.rstrip("\n"))
                        found = True
if not found:
    print("  none: no conformance runner wrote a score")

print(f"\n== skipped tests: {len(skipped)}")
for pkg, test, reason in sorted(skipped):
    print(f"  {pkg.removeprefix('github.com/ldhub/ldhub/')} {test}: {reason}")

print(f"\n== {packages} packages, {len(failed_pkgs)} failed, {len(failed_tests)} failing tests")
for pkg, test in failed_tests:
    print(f"  FAIL {pkg} {test}")
sys.exit(1 if failed_pkgs or failed_tests or packages == 0 else 0)

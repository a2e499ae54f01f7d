#!/usr/bin/env python3
"""Prints the ratio of sqlbatch's to native_c's throughput for each criterion group of
`cargo bench --bench core`, from the medians criterion saved under target/criterion.

    cargo bench --bench core && python3 benches/criterion/ratios.py
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GROUPS = ["fetch_narrow", "fetch_wide", "exec_script", "bulk_insert"]
UNITS = {"exec_script": "statements"}


def median_ns(group, function):
    path = os.path.join(ROOT, "target", "criterion", group, function, "new", "estimates.json")
    with open(path) as f:
        return json.load(f)["median"]["point_estimate"]


def elements(group):
    path = os.path.join(ROOT, "target", "criterion", group, "sqlbatch", "new", "benchmark.json")
    with open(path) as f:
        return json.load(f)["throughput"]["Elements"]


def main():
    print("%-13s %16s %16s %8s" % ("group", "native_c", "sqlbatch", "ratio"))
    for g in GROUPS:
        try:
            n, b, e = median_ns(g, "native_c"), median_ns(g, "sqlbatch"), elements(g)
        except (OSError, KeyError) as err:
            print("%-13s not measured (%s)" % (g, err), file=sys.stderr)
            continue
        unit = UNITS.get(g, "rows")
        rate = lambda ns: "%.3gM %s/s" % (e / ns * 1e3, unit[0:4] if unit == "rows" else "stmt")
        print("%-13s %16s %16s %8.3f" % (g, rate(n), rate(b), n / b))


if __name__ == "__main__":
    main()

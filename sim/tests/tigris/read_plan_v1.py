#!/usr/bin/env python3
"""Print what an old tigris-ml's own reader makes of a schema-1 plan, as JSON.

Usage: PYTHONPATH=<dir with tigris-ml 0.3.1> read_plan_v1.py PLAN.tgrs

tigris-ml 0.3.x writes schema 1 but has no `tigris inspect`; its test reader
`tigris.emitters.binary.reader.read_binary_plan()` is the compiler's own view of the file, so
sim/tests/plan.rs compares `tigris-sim plan inspect --json` with the dict it returns. Only the
decompressed weight bytes (kept for its own tests) and the magic are left out.
"""

import json
import sys

import tigris
from tigris.emitters.binary.reader import read_binary_plan


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        plan = read_binary_plan(f.read())
    plan.pop("magic", None)
    for block in plan["weight_blocks"]:
        block.pop("decompressed", None)
    print(json.dumps({"tigris_ml": tigris.__version__, "schema": tigris.SCHEMA_VERSION, "plan": plan}))


if __name__ == "__main__":
    main()

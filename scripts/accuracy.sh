#!/usr/bin/env bash
# The calibration table of docs/accuracy.md: build public benchmarks whose on-board cycle counts are
# published, run them on tigris-sim under the conditions of the measurement, and print one row per
# cell: benchmark, board, conditions, source, published, simulated, error.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: scripts/accuracy.sh SRC_DIR [--sim PATH] [--only SUITE] [-j N]
#   SRC_DIR    a folder holding the benchmark sources, fetched elsewhere (none is shipped here):
#                SRC_DIR/embench-iot        Embench-IoT 2.0 (github.com/embench/embench-iot, tag embench-2.0
#                                           or later; its baseline-data/speed.json is the published figure)
#                SRC_DIR/embench-iot-3ef636f  the same repository at commit 3ef636f (2.0 pre-release)
#                SRC_DIR/embench-iot-1.0    the same repository at tag embench-1.0
#              A suite whose folder is absent is skipped, and the script says so.
#   --sim      the tigris-sim binary (default: target/release/tigris-sim)
#   --only     run one suite: embench-2.0 | embench-2.0-gcc13 | embench-1.0
#   -j N       parallel builds and runs (default: number of CPUs)
#
# Builds go to target/accuracy/ (never committed). The table goes to stdout, progress to stderr; the
# last lines give the median and largest |error| per board and overall.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIM=$ROOT/target/release/tigris-sim
ONLY=
JOBS=$(nproc 2>/dev/null || echo 2)
SRC=

die() { echo "accuracy.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --sim) SIM=$2; shift ;;
        --only) ONLY=$2; shift ;;
        -j) JOBS=$2; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        -*) die "unknown option '$1'" ;;
        *) [[ -z $SRC ]] || die "one SRC_DIR only (got '$SRC' and '$1')"; SRC=$1 ;;
    esac
    shift
done
[[ -n $SRC ]] || die "usage: scripts/accuracy.sh SRC_DIR (see --help)"
[[ -d $SRC ]] || die "SRC_DIR '$SRC' is not a directory"
SRC=$(cd "$SRC" && pwd)
[[ -x $SIM ]] || die "no tigris-sim binary at '$SIM' (cargo build --release, or --sim PATH)"
command -v arm-none-eabi-gcc >/dev/null || die "arm-none-eabi-gcc not found (apt install gcc-arm-none-eabi libnewlib-arm-none-eabi)"

OUT=$ROOT/target/accuracy
mkdir -p "$OUT"
CELLS=$OUT/cells.tsv
: >"$CELLS"
FW=$ROOT/firmware

# ------------------------------------------------------------------ Embench-IoT on the STM32F4-Discovery
# Each release's published baseline (baseline-data/speed.json, milliseconds) was measured on an
# STM32F407 at 16 MHz, its reset clock (HSI), as DWT_CYCCNT from start_trigger to stop_trigger
# (Embench 1.0 doc/README.md "Reference platform"; 2.0 examples/arm/stm32f4-discovery/README.md and
# pylib/run_stm32f4-discovery.py): cycles = ms x 16,000. At 16 MHz the flash needs no wait state
# (RM0090 §3.5.1 Table 10), and after reset FLASH_ACR has the prefetch buffer and both ART caches off
# (RM0090 §3.9.1, reset value 0x00000000): the simulated board is set the same way.
EMBENCH_BOARD=stm32f407vg
EMBENCH_SET=(--set core.clock_hz=16000000 --set flash.wait_states=0 --set flash.prefetch=false)

# One row per published set: label, folder under SRC_DIR, compiler flags of its reference
# configuration, C library, the define that scales the run. The 2.0 pre-release set (commit 3ef636f)
# was measured with GCC 13.2, not the 14.1 its README names (commit de24bdf's message says so).
EMBENCH_SUITES=(
    "embench-2.0|embench-iot|-O2 -ffunction-sections -fdata-sections -mcpu=cortex-m4 -mfloat-abi=soft -mthumb|newlib|-DGLOBAL_SCALE_FACTOR=16"
    "embench-2.0-gcc13|embench-iot-3ef636f|-O2 -mcpu=cortex-m4 -mthumb|newlib|-DGLOBAL_SCALE_FACTOR=16"
    "embench-1.0|embench-iot-1.0|-O2 -ffunction-sections -march=armv7-m -mcpu=cortex-m4 -mfloat-abi=soft -mthumb|nano|-DCPU_MHZ=16"
)

embench_cell() {   # <label> <src root> <cflags> <libc> <scale define> <benchmark> <published ms>
    local label=$1 root=$2 libc=$4 scale=$5 bench=$6 ms=$7
    local cflags
    read -r -a cflags <<<"$3"
    local dir=$OUT/$label/$bench
    mkdir -p "$dir"
    # Embench's support.h includes boardsupport.h; ours declares nothing, the hooks are in the .c.
    : >"$dir/boardsupport.h"
    local common=("${cflags[@]}" -I "$root/support" -I "$dir" -DHAVE_BOARDSUPPORT_H -DWARMUP_HEAT=1 "$scale")
    [[ $libc == nano ]] && common+=(--specs=nano.specs)
    {
        arm-none-eabi-gcc "${common[@]}" -c "$FW/common/startup.S" -o "$dir/startup.o" &&
        arm-none-eabi-gcc "${common[@]}" -Wl,--gc-sections -nostartfiles -static -Wl,--no-warn-rwx-segments \
            -T "$FW/boards/$EMBENCH_BOARD.ld" -L "$FW/common" \
            "$dir/startup.o" "$FW/common/syscalls.c" "$FW/calibration/embench_boardsupport.c" \
            "$root/support/main.c" "$root/support/beebsc.c" "$root/src/$bench"/*.c -lm \
            -o "$dir/$bench.elf"
    } >"$dir/build.log" 2>&1 || { echo "$label $bench: build failed ($dir/build.log)" >&2; return 1; }
    local rc=0
    "$SIM" run "$dir/$bench.elf" --board "$EMBENCH_BOARD" "${EMBENCH_SET[@]}" --summary none \
        --max-cycles 2000000000 >"$dir/run.log" 2>&1 || rc=$?
    # main returns 0 only when the benchmark verified its result.
    ((rc == 0)) || { echo "$label $bench: exit code $rc ($dir/run.log)" >&2; return 1; }
    local cycles
    cycles=$(sed -n 's/^embench cycles \([0-9]*\)$/\1/p' "$dir/run.log")
    [[ -n $cycles ]] || { echo "$label $bench: no cycle figure ($dir/run.log)" >&2; return 1; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$bench" "$EMBENCH_BOARD" "$((ms * 16000))" "$cycles" \
        "$(arm-none-eabi-gcc --version | head -1)" >>"$CELLS"
}

embench_suite() {   # <label|folder|cflags|libc|scale define>
    local label folder cflags libc scale
    IFS='|' read -r label folder cflags libc scale <<<"$1"
    want "$label" || return 0
    local root=$SRC/$folder speed=$SRC/$folder/baseline-data/speed.json
    [[ -f $speed ]] || { echo "skipped $label: no $speed" >&2; return 0; }
    echo "building and running $label from $root" >&2
    local bench ms running=0
    while read -r bench ms; do
        [[ -d $root/src/$bench ]] || { echo "skipped $label $bench: no source folder" >&2; continue; }
        embench_cell "$label" "$root" "$cflags" "$libc" "$scale" "$bench" "$ms" &
        if ((++running >= JOBS)); then wait -n || FAILED=1; ((running--)); fi
    done < <(python3 -c 'import json,sys; [print(k, v) for k, v in json.load(open(sys.argv[1])).items()]' "$speed")
    while ((running-- > 0)); do wait -n || FAILED=1; done
}

want() { [[ -z $ONLY || $ONLY == "$1" ]]; }
FAILED=0
for suite in "${EMBENCH_SUITES[@]}"; do
    embench_suite "$suite"
done

# ------------------------------------------------------------------ the table
python3 - "$CELLS" <<'EOF'
import statistics, sys
EMBENCH = "16 MHz HSI, 0 WS, ART and prefetch off; code in flash, data in SRAM"
SOURCES = {
    "embench-2.0": ("Embench-IoT 2.0 baseline-data/speed.json (STM32F4-Discovery, GCC 14.1.0, newlib 4.3)", EMBENCH),
    "embench-2.0-gcc13": ("Embench-IoT commit 3ef636f baseline-data/speed.json (STM32F4-Discovery, GCC 13.2)", EMBENCH),
    "embench-1.0": ("Embench-IoT 1.0 baseline-data/speed.json (STM32F4-Discovery, GCC 9.2.0, newlib-nano 3.3.0)", EMBENCH),
}
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
rows.sort(key=lambda r: (r[0], r[1]))
print("| suite | board | conditions | source of the published figure | built here with |")
print("|---|---|---|---|---|")
for suite, board, compiler in sorted({(r[0], r[2], r[5]) for r in rows}):
    source, conditions = SOURCES[suite]
    print(f"| {suite} | {board} | {conditions} | {source} | {compiler} |")
print()
print("| suite | benchmark | board | published cycles | simulated cycles | error |")
print("|---|---|---|---:|---:|---:|")
errors, by_suite = {}, {}
for suite, bench, board, published, simulated, _ in rows:
    published, simulated = int(published), int(simulated)
    error = (simulated - published) / published * 100
    errors.setdefault(board, []).append(error)
    by_suite.setdefault(suite, []).append(error)
    print(f"| {suite} | {bench} | {board} | {published:,} | {simulated:,} | {error:+.1f} % |")
def summary(name, es):
    print(f"- {name}: {len(es)} cells, median |error| {statistics.median(map(abs, es)):.1f} %, "
          f"max {max(map(abs, es)):.1f} %")
print()
for name, es in sorted(by_suite.items()) + sorted(errors.items()):
    summary(name, es)
everything = [e for es in errors.values() for e in es]
if everything:
    summary("all", everything)
EOF
((FAILED == 0)) || { echo "accuracy.sh: some cells failed (above)" >&2; exit 1; }

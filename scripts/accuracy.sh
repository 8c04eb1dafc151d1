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
#                SRC_DIR/esp-dsp            ESP-DSP (github.com/espressif/esp-dsp) at commit 972c4e9, the
#                                           last to measure the ESP32 and ESP32-S3 rows of
#                                           docs/esp_bm_results.csv
#                SRC_DIR/coremark           EEMBC CoreMark (github.com/eembc/coremark, any 1.0 release: the
#                                           benchmark's sources have not changed since; checked at d5fad6b)
#              A suite whose folder (or cross compiler) is absent is skipped, and the script says so.
#   --sim      the tigris-sim binary (default: target/release/tigris-sim)
#   --only     run one suite: embench-2.0 | embench-2.0-gcc13 | embench-1.0 | esp-dsp-esp32 |
#              esp-dsp-esp32s3 | coremark-rp2040-sram | coremark-rp2040-copy-to-ram |
#              coremark-rp2040-xip-flash | coremark-f405-flash-armcc-O3 |
#              coremark-f446-flash-gcc-Og | coremark-f427-flash-gcc-Og | coremark-h735-flash-iar |
#              coremark-teensy4-itcm | coremark-esp32-flash
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
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        -*) die "unknown option '$1'" ;;
        *) [[ -z $SRC ]] || die "one SRC_DIR only (got '$SRC' and '$1')"; SRC=$1 ;;
    esac
    shift
done
[[ -n $SRC ]] || die "usage: scripts/accuracy.sh SRC_DIR (see --help)"
[[ -d $SRC ]] || die "SRC_DIR '$SRC' is not a directory"
SRC=$(cd "$SRC" && pwd)
[[ -x $SIM ]] || die "no tigris-sim binary at '$SIM' (cargo build --release, or --sim PATH)"

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
    command -v arm-none-eabi-gcc >/dev/null ||
        { echo "skipped $label: no arm-none-eabi-gcc (apt install gcc-arm-none-eabi libnewlib-arm-none-eabi)" >&2; return 0; }
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

# ------------------------------------------------------------------ ESP-DSP on the ESP32 and ESP32-S3
# ESP-DSP's docs/esp_bm_results.csv gives, per chip and compiler option, the CCOUNT cycles of one call
# of each optimised kernel (test/prepare_csv_benchmarks.c, test/report.inc REPORT_BENCHMARK_CSV: two
# warm-up calls, then one timed). On the ESP32 the optimised kernels are Espressif's hand-written LX6
# assembly (*_ae32.S); they are assembled here as they are, through firmware/calibration/
# xtensa_lx6_prelude.S, and called by our harness (firmware/calibration/esp_dsp_bench.c) with the
# published arguments. The rows with compiler option 1 (CONFIG_COMPILER_OPTIMIZATION_PERF, the test
# app's sdkconfig.defaults) are the cells; which kernel and size a row is, is read from its title.
DSP_KERNELS=(
    dotprod/float/dsps_dotprod_f32_ae32.S dotprod/float/dsps_dotprode_f32_ae32.S
    dotprod/fixed/dsps_dotprod_s16_ae32.S fir/float/dsps_fir_f32_ae32.S fir/float/dsps_fird_f32_ae32.S
    fft/float/dsps_fft2r_fc32_ae32_.S fft/float/dsps_fft4r_fc32_ae32_.S fft/fixed/dsps_fft2r_sc16_ae32.S
    iir/biquad/dsps_biquad_f32_ae32.S matrix/mul/float/dspm_mult_f32_ae32.S
    matrix/mul/fixed/dspm_mult_s16_ae32.S matrix/mul/float/dspm_mult_3x3x1_f32_ae32.S
    matrix/mul/float/dspm_mult_3x3x3_f32_ae32.S matrix/mul/float/dspm_mult_4x4x1_f32_ae32.S
    matrix/mul/float/dspm_mult_4x4x4_f32_ae32.S
)
# On the ESP32-S3 ESP-IDF maps most kernels to their PIE versions (*_aes3.S, with
# CONFIG_IDF_TARGET_ESP32S3: the "#if ..._aes3_enabled" chains of the modules' include headers); six
# stay ae32 there (dsps_dotprode_f32, dsps_dotprod_s16, dsps_biquad_f32 and the 3x3x1, 3x3x3, 4x4x1
# products). The PIE kernels are assembled through firmware/calibration/xtensa_pie_prelude.S (raw
# PIE words with the field layouts of cores/src/xtensa/pie.rs), with ESP-DSP's platform headers
# reading an ESP32-S3 sdkconfig.h (firmware/calibration/esp_dsp_include_s3), and the harness is built
# with -DESP_DSP_AES3 to call them (and the image dot products, PIE only).
DSP_KERNELS_S3=(
    dotprod/float/dsps_dotprod_f32_aes3.S fir/float/dsps_fir_f32_aes3.S fir/float/dsps_fird_f32_aes3.S
    fft/float/dsps_fft2r_fc32_aes3_.S fft/float/dsps_fft4r_fc32_aes3_.S fft/fixed/dsps_fft2r_sc16_aes3.S
    matrix/mul/float/dspm_mult_f32_aes3.S matrix/mul/fixed/dspm_mult_s16_aes3.S
    dotprod/fixed/dspi_dotprod_s8_aes3.S dotprod/fixed/dspi_dotprod_off_s8_aes3.S
    dotprod/fixed/dspi_dotprod_s16_aes3.S dotprod/fixed/dspi_dotprod_off_s16_aes3.S
)
# One row per chip: label, board (and its linker script), the CSV's section name and chip id, the
# harness variant (ae32: bench.o with the ae32 kernels; aes3: bench_s3.o with the ae32 and aes3
# kernels). Both run at ESP-IDF's default CPU clock, 160 MHz (Kconfig
# CONFIG_ESP_DEFAULT_CPU_FREQ_MHZ; the test app does not change it); code and data are in internal
# SRAM, so the counts do not depend on it.
DSP_SUITES=(
    "esp-dsp-esp32|esp32|Esp32|1|ae32"
    "esp-dsp-esp32s3|esp32s3|Esp32s3|3|aes3"
)
DSP_SET=(--set core.clock_hz=160000000)

esp_dsp_build() {   # <dir>: the prelude check and the harness as objects, the kernels assembled
    local dir=$1 root=$SRC/esp-dsp xt=$FW/xtensa cal=$FW/calibration xcc=xtensa-lx106-elf-gcc
    local cflags=(-O2 -g -std=gnu11 -Wall -Wextra -ffreestanding -fno-builtin -ffp-contract=off
                  -ffunction-sections -fdata-sections -isystem "$xt/libc/include")
    local asflags=("-Wa,-I$cal" "-Wa,-I$xt")
    # GCC's windowed-ABI assembly through the prelude, as firmware/build.sh builds windowed programs.
    windowed_obj() { # <C source> <object> [flags...]
        "$xcc" "${cflags[@]}" "${@:3}" -mabi=windowed -S -o "$2.s" "$1" &&
        { echo '.include "xtensa_lx6_prelude.S"'; cat "$2.s"; } >"$2.S" &&
        "$xcc" -c "${asflags[@]}" -o "$2" "$2.S"
    }
    # ESP-DSP's include folders as its CMakeLists.txt lists them, plus our stand-ins for the
    # ESP-IDF headers its platform headers read (sdkconfig.h, xtensa/config/core-isa.h).
    local incs=(-I "$cal/esp_dsp_include") d f b
    while read -r d; do incs+=(-I "$root/$d"); done < <(python3 - "$root/CMakeLists.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for name in ("include_dirs", "priv_include_dirs"):
    block = re.search(r"set\(%s\s+(.*?)\)" % name, text, re.S)
    for d in re.findall(r'"([^"]+)"', block.group(1) if block else ""):
        print(d)
PY
    )
    rm -rf "$dir" && mkdir -p "$dir/lib" "$dir/kernels" "$dir/kernels_s3" || return 1
    for f in libc softfloat decimal math; do windowed_obj "$xt/libc/$f.c" "$dir/lib/$f.o" || return 1; done
    xtensa-lx106-elf-ar rcs "$dir/lib/libtg.a" "$dir"/lib/*.o &&
    "$xcc" -c "-Wa,-I$xt" -o "$dir/start.o" "$xt/start_windowed.S" &&
    windowed_obj "$cal/lx6_prelude_check.c" "$dir/check.o" &&
    windowed_obj "$cal/esp_dsp_bench.c" "$dir/bench.o" &&
    windowed_obj "$cal/esp_dsp_bench.c" "$dir/bench_s3.o" -DESP_DSP_AES3 &&
    windowed_obj "$cal/pie_prelude_main.c" "$dir/pie_main.o" &&
    "$xcc" -c "${asflags[@]}" -o "$dir/pie_check.o" "$cal/pie_prelude_check.S" &&
    "$xcc" -c "${asflags[@]}" -o "$dir/timer.o" "$cal/esp_dsp_timer.S" || return 1
    for f in "${DSP_KERNELS[@]}"; do
        b=$(basename "$f" .S)
        { echo '.include "xtensa_lx6_prelude.S"'; echo "#include \"$root/modules/$f\""; } >"$dir/kernels/$b.S"
        "$xcc" -c "${incs[@]}" "${asflags[@]}" -o "$dir/kernels/$b.o" "$dir/kernels/$b.S" || return 1
    done
    # The PIE kernels, with the ESP32-S3 sdkconfig.h found first (it turns their #if on).
    for f in "${DSP_KERNELS_S3[@]}"; do
        b=$(basename "$f" .S)
        { echo '.include "xtensa_pie_prelude.S"'; echo "#include \"$root/modules/$f\""; } >"$dir/kernels_s3/$b.S"
        "$xcc" -c -I "$cal/esp_dsp_include_s3" "${incs[@]}" "${asflags[@]}" -o "$dir/kernels_s3/$b.o" \
            "$dir/kernels_s3/$b.S" || return 1
        # A kernel whose #if stayed off assembles to nothing: that is a build error here.
        xtensa-lx106-elf-nm "$dir/kernels_s3/$b.o" | grep -q " T ${b%_}" ||
            { echo "$b: no code (its _aes3_enabled switch is off)"; return 1; }
    done
}

esp_dsp_cell_rows() {   # <label> <board> <chip> <chip id> <variant> <run log>: cells.tsv rows
    python3 - "$SRC/esp-dsp/docs/esp_bm_results.csv" "$@" "$(xtensa-lx106-elf-as --version | head -1)" <<'PY'
import re, sys
csv, label, board, chip_name, chip_id, variant, log, tool = sys.argv[1:]
prelude = "xtensa_lx6_prelude.S" + (" and xtensa_pie_prelude.S" if variant == "aes3" else "")
# The CSV: a chip name line opens a section; rows are "title, optimised, ANSI C, compiler option,
# chip id". A row is named by its kernel (the title's first word) and size (its first number).
published, chip = {}, None
for line in open(csv):
    line = line.strip()
    if not line or line.startswith("#") or line.startswith("**"):
        continue
    fields = [f.strip() for f in line.split(",")]
    if len(fields) == 1:
        chip = fields[0]
        continue
    title, optimised, _ansi, option, row_chip = fields
    if chip == chip_name and row_chip == chip_id and option == "1":
        kernel = title.split()[0].rstrip("-")   # "dspi_dotprod_s8/u8- dotproduct ..."
        size = re.search(r"\d+", title[len(kernel):]).group(0)
        published[(kernel, size)] = int(optimised)
simulated = {}
for line in open(log):
    m = re.match(r"dsp (\S+) (\d+) (\d+)$", line.strip())
    if m:
        simulated[(m.group(1), m.group(2))] = int(m.group(3))
missing = sorted(set(simulated) - set(published))
if missing or not simulated:
    sys.exit(f"{label}: no published figure for {missing or 'any kernel'}")
for (kernel, size), cycles in sorted(simulated.items()):
    print(f"{label}\t{kernel} {size}\t{board}\t{published[(kernel, size)]}\t{cycles}\t{tool} + {prelude}")
PY
}

esp_dsp_suites() {
    local row label board chip chip_id variant wanted=0
    for row in "${DSP_SUITES[@]}"; do want "${row%%|*}" && wanted=1; done
    ((wanted)) || return 0
    local csv=$SRC/esp-dsp/docs/esp_bm_results.csv dir=$OUT/esp-dsp xt=$FW/xtensa
    [[ -f $csv ]] || { echo "skipped esp-dsp: no $csv" >&2; return 0; }
    command -v xtensa-lx106-elf-gcc >/dev/null ||
        { echo "skipped esp-dsp: no xtensa-lx106-elf-gcc (apt install gcc-xtensa-lx106)" >&2; return 0; }
    echo "building esp-dsp from $SRC/esp-dsp" >&2
    mkdir -p "$dir"
    esp_dsp_build "$dir" >"$OUT/esp-dsp.build.log" 2>&1 ||
        { echo "esp-dsp: build failed ($OUT/esp-dsp.build.log)" >&2; FAILED=1; return 0; }
    for row in "${DSP_SUITES[@]}"; do
        IFS='|' read -r label board chip chip_id variant <<<"$row"
        want "$label" || continue
        echo "running $label" >&2
        local out=$dir/$board link=(-nostdlib -L "$xt" -T "$xt/$board.ld" -Wl,--gc-sections "$dir/start.o")
        local objs=("$dir/bench.o" "$dir/timer.o" "$dir"/kernels/*.o)
        [[ $variant == aes3 ]] && objs=("$dir/bench_s3.o" "$dir/timer.o" "$dir"/kernels/*.o "$dir"/kernels_s3/*.o)
        mkdir -p "$out"
        {
            xtensa-lx106-elf-gcc "${link[@]}" "$dir/check.o" -L "$dir/lib" -ltg -o "$out/lx6_prelude_check.elf" &&
            xtensa-lx106-elf-gcc "${link[@]}" -Wl,-Map="$out/esp_dsp_bench.map" "${objs[@]}" \
                -L "$dir/lib" -ltg -o "$out/esp_dsp_bench.elf" &&
            if [[ $variant == aes3 ]]; then
                xtensa-lx106-elf-gcc "${link[@]}" "$dir/pie_main.o" "$dir/pie_check.o" -L "$dir/lib" -ltg \
                    -o "$out/pie_prelude_check.elf"
            fi
        } >"$out/link.log" 2>&1 || { echo "$label: link failed ($out/link.log)" >&2; FAILED=1; continue; }
        # Every macro of the prelude first, on this core: a wrong encoding must not reach the table.
        "$SIM" run "$out/lx6_prelude_check.elf" --board "$board" --summary none >"$out/check.log" 2>&1 ||
            { echo "$label: the prelude check failed ($out/check.log)" >&2; FAILED=1; continue; }
        # The PIE prelude: every macro executed once; the ISS's disassembly of each word, in order,
        # must be the text of the instance that emitted it (firmware/calibration/pie_prelude_check.S).
        if [[ $variant == aes3 ]] && ! {
            "$SIM" run "$out/pie_prelude_check.elf" --board "$board" --summary none --trace-instructions \
                >"$out/pie_check.log" 2>"$out/pie_check.trace" &&
            python3 - "$FW/calibration/pie_prelude_check.S" "$out/pie_check.trace" >>"$out/pie_check.log" <<'PY'
import re, sys
want = [m.group(1).strip() for m in re.finditer(r"PIE-CHECK: (.*?) \*/", open(sys.argv[1]).read())]
got = []
for line in open(sys.argv[2]):
    m = re.match(r"insn\s+\d+\s+\S+\s+\S+\s+(.*?)\s+a0=", line)
    if m and re.match(r"(ee\.|ld\.qr|st\.qr|mv\.qr|rur\.|wur\.|sext )", m.group(1)):
        got.append(" ".join(m.group(1).split()))
bad = [(w, g) for w, g in zip(want, got) if w != g]
for w, g in bad:
    print(f"FAILED {w}: the ISS decodes {g}")
if len(got) != len(want):
    print(f"FAILED {len(want)} instances, {len(got)} PIE words executed")
print(f"pie prelude checks {len(want)} {'FAILED' if bad or len(got) != len(want) else 'ok'}")
sys.exit(1 if bad or len(got) != len(want) else 0)
PY
        }; then
            echo "$label: the PIE prelude check failed ($out/pie_check.log)" >&2; FAILED=1; continue
        fi
        # The harness exits 1 when a kernel's result disagrees with C (wrong code is not timed).
        "$SIM" run "$out/esp_dsp_bench.elf" --board "$board" "${DSP_SET[@]}" --summary none \
            >"$out/run.log" 2>&1 || { echo "$label: the benchmark failed ($out/run.log)" >&2; FAILED=1; continue; }
        esp_dsp_cell_rows "$label" "$board" "$chip" "$chip_id" "$variant" "$out/run.log" >>"$CELLS" || FAILED=1
    done
}

esp_dsp_suites

# ------------------------------------------------------------------ CoreMark on the RP2040, STM32F4 and STM32H7
# EEMBC CoreMark (github.com/eembc/coremark) prints Iterations/Sec; a published score at a stated
# clock is clock / score cycles per iteration (every iteration does the same work: core_main.c
# iterate() runs the same list, matrix and state calls each time). Our port
# (firmware/calibration/coremark/core_portme.c) counts core cycles from start_time() to stop_time(),
# the points where the published ports read their timer, and the run must print CoreMark's own
# "Correct operation validated" and the crcfinal of its iteration count.
# One row per published score: label | board | linker script | compiler flags | iterations | the
# simulated clock | --set overrides | published Iterations/Sec | the clock it was measured at |
# crcfinal CoreMark prints for that iteration count (a performance run's known CRCs).
COREMARK_SUITES=(
    # KafCoppelia/pico-coremark README.md: Pico (RP2040) at 125 MHz, GCC 11.2.1, pico-sdk Release
    # (-O3), pico_set_binary_type(no_flash): code and data in SRAM; 3000 iterations.
    "coremark-rp2040-sram|rp2040|calibration/rp2040_sram.ld|-mcpu=cortex-m0plus -mthumb -O3 -DNDEBUG -ffunction-sections -fdata-sections -DCOREMARK_SYSTICK|3000|125000000||236.653082|125000000|0xcc42"
    # manitou48's comment on protik09/CoreMark-RP2040 issue #1 (2021-04-06): 249.807440 it/s single-core
    # "in RAM, UART and no USB"; his fork manitou48/CoreMark-RP2040 CMakeLists.txt (18bc95d):
    # pico_set_binary_type(copy_to_ram), stdio on UART, the SDK's default build (Release, -O3) and
    # clock (125 MHz: ASSUMPTION, the comment does not state it); compiler not stated.
    "coremark-rp2040-copy-to-ram|rp2040|calibration/rp2040_sram.ld|-mcpu=cortex-m0plus -mthumb -O3 -DNDEBUG -ffunction-sections -fdata-sections -DCOREMARK_SYSTICK|3000|125000000||249.807440|125000000|0xcc42"
    # PaulStoffregen/CoreMark pull request #15 (ferret-guy, 2021-12-10): Raspberry Pi Pico, arduino-pico,
    # 125 MHz, -Os (the core's standard setting), GCC 10.3.0, 3000 iterations: 227.96 it/s. arduino-pico
    # runs code from the QSPI flash through the XIP cache (its default memory map), boot2 at SCK =
    # clk_sys / 2: the rp2040 board's defaults (firmware/boards/rp2040.ld, code in XIP flash).
    "coremark-rp2040-xip-flash|rp2040|boards/rp2040.ld|-mcpu=cortex-m0plus -mthumb -Os -ffunction-sections -fdata-sections -DCOREMARK_SYSTICK|3000|125000000||227.96|125000000|0xcc42"
    # XIVN1987/MCUCode coremark/README.md (STM32F405 at 168 MHz, code in flash, 6000 iterations) and
    # coremark/STM32F405/STM32F405.uvprojx: Keil MDK ARMCC 5.06u7, -O3 -Otime (Optim 4, oTime 1), data
    # and stack in SRAM1. (The README's second run, "-O2", is not a cell: ARMCC's -O2 optimises for
    # space unless -Otime is given, and the project file records only the -O3 -Otime setting.) Flash
    # at 168 MHz: 5 wait states, prefetch and both ART caches on (ST's system_stm32f4xx.c
    # SetSysClock; RM0090 §3.5.1 Table 10): the board's defaults.
    "coremark-f405-flash-armcc-O3|stm32f407vg|boards/stm32f407vg.ld|-mcpu=cortex-m4 -mthumb -mfloat-abi=soft -O3|6000|168000000||436.681223|168000000|0xa14c"
    # hacklabos/CoremarkPlatform MCUs/STM32F446RE: README.md 261.551874 it/s, 3000 iterations, GCC 8.2.1;
    # Makefile: -mcpu=cortex-m4 -mthumb -Og (no FPU flags: soft float), newlib; core_portme.c
    # SystemClock_Config: HSE 8 MHz / 4 x 180 / 2 = 180 MHz, FLASH_LATENCY_5; HAL_Init sets prefetch
    # and both ART caches (STM32Cube HAL defaults): the stm32f446re board's defaults. Stack in SRAM.
    "coremark-f446-flash-gcc-Og|stm32f446re|boards/stm32f446re.ld|-mcpu=cortex-m4 -mthumb -mfloat-abi=soft -Og -ffunction-sections -fdata-sections|3000|180000000||261.551874|180000000|0xcc42"
    # The same repository's MCUs/STM32F427VI: README.md 258.331181 it/s, 3000 iterations, GCC 5.4.1,
    # the same Makefile flags (-Og); 180 MHz in the repository's README table. The F427 (RM0090) has
    # the F446's ART and 5 wait states at 180 MHz: simulated on the stm32f446re.
    "coremark-f427-flash-gcc-Og|stm32f446re|boards/stm32f446re.ld|-mcpu=cortex-m4 -mthumb -mfloat-abi=soft -Og -ffunction-sections -fdata-sections|3000|180000000||258.331181|180000000|0xcc42"
    # STM32CubeH7 STM32H735G-DK demonstration readme (CoreMark sub-demo): ~2777 at 550 MHz, code in
    # flash bank 1 behind the L1 caches, RW data in DTCM, IAR EWARM 7.80 (binary only, flags not
    # given). Simulated on the stm32h753 at its 480 MHz with its flash wait states: cache-warm
    # CoreMark fits the 16 KiB L1 I-cache, so the cycles per iteration barely depend on either.
    "coremark-h735-flash-iar|stm32h753|boards/stm32h753.ld|-mcpu=cortex-m7 -mthumb -mfloat-abi=soft -O3|2000|480000000||2777|550000000|0x4983"
    # FrankBoesing/CoreMark README.md and platformio.ini [env:Teensy4]: Teensy 4.x (i.MX RT1062
    # Cortex-M7) 2400.19 with -O2 (Teensyduino GCC); the Teensy 4 default clock, 600 MHz, and its
    # linker script's placement, code in ITCM and data in DTCM (README does not restate them).
    "coremark-teensy4-itcm|stm32h753|calibration/stm32h753_itcm.ld|-mcpu=cortex-m7 -mthumb -mfloat-abi=soft -O2|2000|480000000||2400.19|600000000|0x4983"
)

coremark_cell() {   # <label|board|ld|cflags|iterations|clock|sets|score|score clock|crcfinal>
    local label board ld cflags iters clock sets score sclock crc
    IFS='|' read -r label board ld cflags iters clock sets score sclock crc <<<"$1"
    local root=$SRC/coremark dir=$OUT/coremark/$label cf set=()
    read -r -a cf <<<"$cflags"
    [[ -n $sets ]] && read -r -a set <<<"$sets"
    mkdir -p "$dir"
    local common=("${cf[@]}" -g -I "$FW/calibration/coremark" -I "$root" --specs=nano.specs
                  "-DITERATIONS=$iters" "-DCLOCK_HZ=${clock}u")
    {
        arm-none-eabi-gcc "${cf[@]}" -c "$FW/common/startup.S" -o "$dir/startup.o" &&
        arm-none-eabi-gcc "${common[@]}" -Wl,--gc-sections -nostartfiles -static -Wl,--no-warn-rwx-segments \
            -T "$FW/$ld" -L "$FW/common" "$dir/startup.o" "$FW/common/syscalls.c" \
            "$FW/calibration/coremark/core_portme.c" "$root"/core_{list_join,main,matrix,state,util}.c \
            -o "$dir/coremark.elf"
    } >"$dir/build.log" 2>&1 || { echo "$label: build failed ($dir/build.log)" >&2; return 1; }
    local rc=0
    "$SIM" run "$dir/coremark.elf" --board "$board" --set "core.clock_hz=$clock" "${set[@]}" --summary none \
        --max-cycles 8000000000 >"$dir/run.log" 2>&1 || rc=$?
    ((rc == 0)) || { echo "$label: exit code $rc ($dir/run.log)" >&2; return 1; }
    # CoreMark's checks: the list, matrix and state CRCs of a performance run (an "ERROR!" line names
    # any that differs) and crcfinal, which depends on the iteration count. Its one other error, "Must
    # execute for at least 10 secs", is a rule for publishing a score: these runs are shorter.
    if grep '^ERROR!' "$dir/run.log" | grep -vq 'Must execute for at least 10 secs' ||
        ! grep -qi "crcfinal *: *$crc\$" "$dir/run.log"; then
        echo "$label: CoreMark's result check failed (want crcfinal $crc; $dir/run.log)" >&2; return 1
    fi
    local cycles
    cycles=$(sed -n 's/^coremark cycles \([0-9]*\) iterations .*$/\1/p' "$dir/run.log")
    [[ -n $cycles ]] || { echo "$label: no cycle figure ($dir/run.log)" >&2; return 1; }
    python3 - "$label" "$board" "$score" "$sclock" "$cycles" "$iters" "$(arm-none-eabi-gcc --version | head -1)" \
        >>"$CELLS" <<'PY'
import sys
label, board, score, sclock, cycles, iters, tool = sys.argv[1:]
published = round(int(sclock) / float(score))
print(f"{label}\tcoremark (cycles per iteration)\t{board}\t{published}\t{round(int(cycles) / int(iters))}\t{tool}")
PY
}

coremark_suite() {
    local row wanted=0
    for row in "${COREMARK_SUITES[@]}"; do want "${row%%|*}" && wanted=1; done
    ((wanted)) || return 0
    [[ -f $SRC/coremark/core_main.c ]] || { echo "skipped coremark: no $SRC/coremark/core_main.c" >&2; return 0; }
    command -v arm-none-eabi-gcc >/dev/null ||
        { echo "skipped coremark: no arm-none-eabi-gcc (apt install gcc-arm-none-eabi libnewlib-arm-none-eabi)" >&2; return 0; }
    echo "building and running coremark from $SRC/coremark" >&2
    local running=0
    for row in "${COREMARK_SUITES[@]}"; do
        want "${row%%|*}" || continue
        coremark_cell "$row" &
        if ((++running >= JOBS)); then wait -n || FAILED=1; ((running--)); fi
    done
    while ((running-- > 0)); do wait -n || FAILED=1; done
}

coremark_suite

# CoreMark on the ESP32 with its code in flash. pfeerick/CoreMark Results/esp32-240mhz.md: an ESP32
# module at 240 MHz, Arduino (arduino-esp32, GCC 5.2.0, flags not printed: arduino-esp32 builds
# sketches with -Os, ASSUMPTION), 350.12 it/s over 6000 iterations. Arduino keeps code (and the L32R
# literals beside it) in flash, read through the cache, read-only data in flash (DROM), the stack in
# DRAM. Built here with Debian's LX106 GCC in the windowed ABI through the LX6 prelude (as the ESP-DSP
# harness), CoreMark's code and literals renamed into .flash.text and its constants into
# .flash.rodata (firmware/xtensa/esp32.ld maps them to the IROM and DROM windows).
CM_ESP32="coremark-esp32-flash|2000|240000000|350.12|0x4983"
coremark_esp32_cell() {
    local label iters clock score crc
    IFS='|' read -r label iters clock score crc <<<"$CM_ESP32"
    want "$label" || return 0
    [[ -f $SRC/coremark/core_main.c ]] || { echo "skipped $label: no $SRC/coremark/core_main.c" >&2; return 0; }
    command -v xtensa-lx106-elf-gcc >/dev/null ||
        { echo "skipped $label: no xtensa-lx106-elf-gcc (apt install gcc-xtensa-lx106)" >&2; return 0; }
    echo "building and running $label" >&2
    local dir=$OUT/coremark/$label xt=$FW/xtensa cal=$FW/calibration xcc=xtensa-lx106-elf-gcc f
    rm -rf "$dir" && mkdir -p "$dir/lib"
    local cflags=(-g -std=gnu11 -ffreestanding -fno-builtin -mtext-section-literals -isystem "$xt/libc/include")
    local asflags=("-Wa,-I$cal" "-Wa,-I$xt" "-Wa,--text-section-literals")
    local cm=(-Os -I "$cal/coremark" -I "$SRC/coremark" "-DITERATIONS=$iters" "-DCLOCK_HZ=${clock}u" -DCOREMARK_CCOUNT)
    wobj() { # <C source> <object> <flags...>: GCC's windowed-ABI assembly through the prelude
        "$xcc" "${cflags[@]}" "${@:3}" -mabi=windowed -S -o "$2.s" "$1" &&
        { echo '.include "xtensa_lx6_prelude.S"'; cat "$2.s"; } >"$2.S" &&
        "$xcc" -c "${asflags[@]}" -o "$2" "$2.S"
    }
    (
        for f in libc softfloat decimal math; do wobj "$xt/libc/$f.c" "$dir/lib/$f.o" -O2 || exit 1; done
        xtensa-lx106-elf-ar rcs "$dir/lib/libtg.a" "$dir"/lib/*.o &&
        "$xcc" -c "-Wa,-I$xt" -o "$dir/start.o" "$xt/start_windowed.S" &&
        wobj "$cal/coremark/core_portme.c" "$dir/core_portme.o" "${cm[@]}" || exit 1
        for f in core_list_join core_main core_matrix core_state core_util; do
            wobj "$SRC/coremark/$f.c" "$dir/$f.o" "${cm[@]}" &&
            xtensa-lx106-elf-objcopy --rename-section .text=.flash.text \
                --rename-section .rodata=.flash.rodata "$dir/$f.o" || exit 1
        done
        "$xcc" -nostdlib -L "$xt" -T "$xt/esp32.ld" -Wl,--gc-sections "$dir/start.o" "$dir"/core_*.o \
            -L "$dir/lib" -ltg -o "$dir/coremark.elf"
    ) >"$dir/build.log" 2>&1 || { echo "$label: build failed ($dir/build.log)" >&2; FAILED=1; return 0; }
    local rc=0
    "$SIM" run "$dir/coremark.elf" --board esp32 --set "core.clock_hz=$clock" --summary none \
        >"$dir/run.log" 2>&1 || rc=$?
    ((rc == 0)) || { echo "$label: exit code $rc ($dir/run.log)" >&2; FAILED=1; return 0; }
    if grep '^ERROR!' "$dir/run.log" | grep -vq 'Must execute for at least 10 secs' ||
        ! grep -qi "crcfinal *: *$crc\$" "$dir/run.log"; then
        echo "$label: CoreMark's result check failed (want crcfinal $crc; $dir/run.log)" >&2; FAILED=1; return 0
    fi
    local cycles
    cycles=$(sed -n 's/^coremark cycles \([0-9]*\) iterations .*$/\1/p' "$dir/run.log")
    [[ -n $cycles ]] || { echo "$label: no cycle figure ($dir/run.log)" >&2; FAILED=1; return 0; }
    python3 - "$label" "$score" "$clock" "$cycles" "$iters" "$("$xcc" --version | head -1)" >>"$CELLS" <<'PY'
import sys
label, score, clock, cycles, iters, tool = sys.argv[1:]
print(f"{label}\tcoremark (cycles per iteration)\tesp32\t{round(int(clock) / float(score))}\t{round(int(cycles) / int(iters))}\t{tool} (windowed, prelude)")
PY
}

coremark_esp32_cell

# ------------------------------------------------------------------ the table
python3 - "$CELLS" <<'EOF'
import re, statistics, sys
EMBENCH = "16 MHz HSI, 0 WS, ART and prefetch off; code in flash, data in SRAM"
ESP_DSP = "160 MHz; code in IRAM, data in DRAM; one call after two warm-up calls"
SOURCES = {
    "embench-2.0": ("Embench-IoT 2.0 baseline-data/speed.json (STM32F4-Discovery, GCC 14.1.0, newlib 4.3)", EMBENCH),
    "embench-2.0-gcc13": ("Embench-IoT commit 3ef636f baseline-data/speed.json (STM32F4-Discovery, GCC 13.2)", EMBENCH),
    "embench-1.0": ("Embench-IoT 1.0 baseline-data/speed.json (STM32F4-Discovery, GCC 9.2.0, newlib-nano 3.3.0)", EMBENCH),
    "esp-dsp-esp32": ("ESP-DSP docs/esp_bm_results.csv, Esp32 rows, compiler option 1 (commit 972c4e9)", ESP_DSP),
    "esp-dsp-esp32s3": ("ESP-DSP docs/esp_bm_results.csv, Esp32s3 rows (PIE aes3 kernels and the six ae32 ones), compiler option 1 (commit 972c4e9)", ESP_DSP),
    "coremark-rp2040-sram": ("KafCoppelia/pico-coremark README.md (commit 62024ed): 236.653082 it/s, GCC 11.2.1 -O3",
                             "125 MHz; code and data in SRAM (no_flash); 3000 iterations"),
    "coremark-f405-flash-armcc-O3": ("XIVN1987/MCUCode coremark/README.md (commit 723c17d), STM32F405: 436.681223 it/s, Keil ARMCC 5.06u7 -O3 -Otime",
                                     "168 MHz, 5 WS, prefetch and ART on; code in flash, data in SRAM; 6000 iterations"),
    "coremark-esp32-flash": ("pfeerick/CoreMark Results/esp32-240mhz.md (commit baa3d35): 350.12 it/s, Arduino, GCC 5.2.0",
                             "240 MHz; code and literals in flash through the cache, stack in DRAM; 2000 iterations"),
    "coremark-rp2040-copy-to-ram": ("protik09/CoreMark-RP2040 issue #1, manitou48's comment (2021-04-06): 249.807440 it/s; build manitou48/CoreMark-RP2040 CMakeLists.txt (commit 18bc95d)",
                                    "125 MHz (SDK default, assumed); code and data in SRAM (copy_to_ram); UART stdio"),
    "coremark-rp2040-xip-flash": ("PaulStoffregen/CoreMark pull request #15 (2021-12-10): 227.96 it/s, arduino-pico, GCC 10.3.0 -Os",
                                  "125 MHz; code in QSPI flash through the 16 KiB XIP cache, data in SRAM; 3000 iterations"),
    "coremark-f446-flash-gcc-Og": ("hacklabos/CoremarkPlatform MCUs/STM32F446RE/README.md (commit d4b3f98): 261.551874 it/s, GCC 8.2.1 -Og",
                                   "180 MHz, 5 WS, prefetch and ART on; code in flash, data in SRAM; 3000 iterations"),
    "coremark-f427-flash-gcc-Og": ("hacklabos/CoremarkPlatform MCUs/STM32F427VI/README.md (commit 776128b): 258.331181 it/s, GCC 5.4.1 -Og",
                                   "180 MHz, 5 WS, prefetch and ART on; code in flash, data in SRAM; 3000 iterations"),
    "coremark-h735-flash-iar": ("STM32CubeH7 Projects/STM32H735G-DK Demonstrations readme (CoreMark): ~2777 at 550 MHz, IAR EWARM 7.80",
                                "code in flash behind the L1 caches, data in DTCM; simulated at 480 MHz, 2000 iterations"),
    "coremark-teensy4-itcm": ("FrankBoesing/CoreMark README.md (commit 0cc0f98), Teensy 4: 2400.19 at 600 MHz, GCC -O2",
                              "code in ITCM, data in DTCM; simulated at 480 MHz, 2000 iterations"),
}
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
# Natural order within a suite: "dsps_fft2r_fc32 64" before "dsps_fft2r_fc32 128".
rows.sort(key=lambda r: (r[0], [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", r[1])]))
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

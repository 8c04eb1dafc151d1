#!/usr/bin/env bash
# tigris-sim test and example firmware: build everything into firmware/build/.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Usage: firmware/build.sh [--qemu] [-j N]
#   --qemu   also build mps2-an386 variants that open the semihosting console
#            with SYS_OPEN(":tt") (QEMU has no pre-opened handles 1/2), run them
#            with qemu-system-arm and compare their output with the host output
#   -j N     parallel jobs (default: number of CPUs)
#
# Outputs (see firmware/README.md):
#   build/<board>/<program>.elf   (+ .map)   firmware for each board
#   build/host/<program>          the portable programs built for the host
#   build/host/<program>.out      their stdout = expected console output
#   build/host/<program>.rc       their exit status
#   ../examples/mps2-an386-demo.elf   the quick-start examples (DWARF stripped,
#   ../examples/esp32s3-demo.elf      symbols kept); rewritten only if changed
#   ../examples/esp32s3-tigris.elf    (the TiGrIS 1D tiled reference model, windowed)
set -euo pipefail

FW_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$FW_DIR")
BUILD="$FW_DIR/build"
EXAMPLE="$ROOT/examples/mps2-an386-demo.elf"
CROSS=${CROSS_PREFIX:-arm-none-eabi-}
CC="${CROSS}gcc"
OBJCOPY="${CROSS}objcopy"
HOSTCC=${HOSTCC:-gcc}
JOBS=$(nproc 2>/dev/null || echo 2)
RUN_QEMU=0

while (($#)); do
    case "$1" in
        --qemu) RUN_QEMU=1 ;;
        -j) JOBS=$2; shift ;;
        -j*) JOBS=${1#-j} ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done

die() { echo "build.sh: error: $*" >&2; exit 1; }

# ------------------------------------------------------------------ toolchain
if ! command -v "$CC" >/dev/null 2>&1; then
    die "the cross compiler '$CC' was not found.
  On Debian/Ubuntu install it with:
      sudo apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi
  (or put another arm-none-eabi toolchain on PATH, or set CROSS_PREFIX)."
fi
if ! echo '#include <stdio.h>' | "$CC" -mcpu=cortex-m4 -mthumb -x c -E - >/dev/null 2>&1; then
    die "'$CC' has no C library headers.
  On Debian/Ubuntu install newlib with:  sudo apt-get install libnewlib-arm-none-eabi"
fi
command -v "$OBJCOPY" >/dev/null 2>&1 || die "'$OBJCOPY' not found (it comes with binutils-arm-none-eabi)"
command -v "$HOSTCC" >/dev/null 2>&1 || die "no host C compiler '$HOSTCC' (sudo apt-get install gcc)"

# ------------------------------------------------------------------ configuration
BOARDS=(mps2-an386 mps2-an500 stm32f446re stm32h753 nrf52840 rp2040 rp2350 atsam3x8e)
PORTABLE=(sort crc32 matmul recursion strings_float demo exit_code)
TIMING_BOARDS=(mps2-an386 mps2-an500 stm32f446re rp2040)
CONSOLE_BOARDS=(mps2-an386 stm32f446re)
RTT_BOARDS=(mps2-an386 stm32f446re rp2040 stm32h753)
IRQ_BOARDS=(mps2-an386 stm32f446re rp2040)
# Every fault kind taken by the firmware's own handlers, on an M3, M4, M7, M0+ and M33.
FAULT_KINDS_BOARDS=(mps2-an386 stm32h753 rp2040 rp2350 atsam3x8e)
FPU_DP_BOARDS=(stm32h753 mps2-an500)
FAULT_BOARDS=(mps2-an386)
FAULTS=(fault_bad_address fault_undefined fault_stack_overflow fault_unhandled_irq
        fault_endless_loop fault_busy_loop fault_branches fault_task_switch)
# Memory microbenchmarks (membench/membench.c, see README.md); the Xtensa boards are in
# XT_MEMBENCH_BOARDS below. volatile keeps every access; these flags also keep GCC from turning
# loops into library calls.
MEMBENCH_BOARDS=(mps2-an386 stm32f446re stm32h753 rp2040 rp2350)
MEMBENCH_FLAGS=(-fno-builtin -fno-tree-loop-distribute-patterns)
# clocks/clock_tree.c: the vendor's clock-tree bring-up, then the console UART, on every Cortex-M
# board. EXTRA_BOARDS get only their runtime and this program.
EXTRA_BOARDS=(stm32f407vg stm32f411re stm32u585 atsamd51p19a nrf52833)
CLOCK_BOARDS=("${BOARDS[@]}" "${EXTRA_BOARDS[@]}")

cpu_flags() {
    case "$1" in
        mps2-an386|stm32f446re|nrf52840|stm32f407vg|stm32f411re|atsamd51p19a|nrf52833)
            echo "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -DCORE_CORTEX_M4" ;;
        mps2-an500|stm32h753)
            # Double-precision FPU, as real M7 projects (and the TiGrIS benchmarks) build.
            echo "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard -DCORE_CORTEX_M7" ;;
        rp2040)
            echo "-mcpu=cortex-m0plus -mfloat-abi=soft -DCORE_CORTEX_M0PLUS" ;;
        atsam3x8e)
            echo "-mcpu=cortex-m3 -mfloat-abi=soft -DCORE_CORTEX_M3" ;;
        rp2350|stm32u585)
            echo "-mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard -DCORE_CORTEX_M33" ;;
        *) die "unknown board $1" ;;
    esac
}

board_define() { local b=${1^^}; echo "-DBOARD_${b//-/_}"; }

# Paths inside debug info are relative to the repository root, so the ELFs
# do not depend on where the repository is checked out: the checkout itself (the compilation
# directory) becomes `.`, paths under it relative (the last matching map wins); the
# -fdebug-prefix-map forms reach the assembler too (.S files), which -ffile-prefix-map does not.
PREFIX_MAP=("-ffile-prefix-map=$ROOT=." "-ffile-prefix-map=$ROOT/="
            "-fdebug-prefix-map=$ROOT=." "-fdebug-prefix-map=$ROOT/=")
COMMON_FLAGS=(-mthumb -O2 -g -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration
              -ffunction-sections -fdata-sections -ffp-contract=off
              "${PREFIX_MAP[@]}" --specs=nano.specs
              -I "$FW_DIR/common")
LINK_FLAGS=(-nostartfiles -u _printf_float -Wl,--gc-sections -Wl,--no-warn-rwx-segments
            -L "$FW_DIR/common")
HOST_FLAGS=(-O2 -std=c11 -Wall -Wextra -ffp-contract=off)

# ------------------------------------------------------------------ job pool
# Each job runs in the background with its own log; its exit status goes to
# a file, so failures are collected after all jobs have finished.
JOBDIR="$BUILD/.jobs"
job_seq=0
job() {   # job <label> <command> [args...]
    local label=$1; shift
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    job_seq=$((job_seq + 1))
    local base="$JOBDIR/$(printf '%04d' "$job_seq")"
    echo "$label" >"$base.label"
    ( set +e; ( set -e; "$@" ) >"$base.log" 2>&1; echo $? >"$base.status" ) &
}
wait_jobs() {   # wait for all jobs; print the logs of failed ones and stop
    wait || true
    local failed=0 st
    for st in "$JOBDIR"/*.status; do
        [[ -e $st ]] || continue
        if [[ $(cat "$st") != 0 ]]; then
            failed=1
            echo "---- FAILED: $(cat "${st%.status}.label")" >&2
            cat "${st%.status}.log" >&2
        elif [[ -s ${st%.status}.log ]]; then
            cat "${st%.status}.log"
        fi
    done
    ((failed == 0)) || die "build failed"
    rm -f "$JOBDIR"/*
}

# ------------------------------------------------------------------ build steps
# common runtime objects per board: startup.o, startup_zero_irq5.o, syscalls.o
build_runtime() {   # <board> <outdir> [extra flags...]
    local b=$1 out=$2; shift 2
    local cflags=($(cpu_flags "$b") $(board_define "$b") "${COMMON_FLAGS[@]}" "$@")
    mkdir -p "$out"
    "$CC" "${cflags[@]}" -c "$FW_DIR/common/startup.S" -o "$out/startup.o"
    "$CC" "${cflags[@]}" -DZERO_IRQ5_VECTOR -c "$FW_DIR/common/startup.S" -o "$out/startup_zero_irq5.o"
    "$CC" "${cflags[@]}" -c "$FW_DIR/common/syscalls.c" -o "$out/syscalls.o"
}

link_elf() {   # <board> <objdir> <elf> <startup object> <sources...>
    link_elf_ld "$1" "$FW_DIR/boards/$1.ld" "${@:2}"
}

link_elf_ld() {   # <board> <linker script> <objdir> <elf> <startup object> <sources...>
    local b=$1 ld=$2 objdir=$3 elf=$4 startup=$5; shift 5
    "$CC" $(cpu_flags "$b") $(board_define "$b") "${COMMON_FLAGS[@]}" "${LINK_FLAGS[@]}" \
        -T "$ld" -Wl,-Map="${elf%.elf}.map" \
        "$objdir/$startup" "$objdir/syscalls.o" "$@" -lm -o "$elf"
}

build_host() {   # <program> [<source> [extra flags...]]: programs/<program>.c unless a source is given
    local p=$1 src=${2:-$FW_DIR/programs/$1.c} out="$BUILD/host"
    "$HOSTCC" "${HOST_FLAGS[@]}" "${@:3}" "$src" -o "$out/$p" -lm
    local rc=0
    "$out/$p" >"$out/$p.out" || rc=$?
    echo "$rc" >"$out/$p.rc"
}

# ------------------------------------------------------------------ go
case "$BUILD" in */firmware/build) ;; *) die "unexpected build directory $BUILD" ;; esac
rm -rf "$BUILD"
mkdir -p "$JOBDIR" "$BUILD/host"
start=$SECONDS

for b in "${CLOCK_BOARDS[@]}"; do
    job "runtime $b" build_runtime "$b" "$BUILD/obj/$b"
done
for p in "${PORTABLE[@]}"; do
    job "host $p" build_host "$p"
done
job "host double_fp" build_host double_fp "$FW_DIR/fpu/double_fp.c" -frounding-math
wait_jobs

for b in "${BOARDS[@]}"; do
    mkdir -p "$BUILD/$b"
    for p in "${PORTABLE[@]}"; do
        job "$b $p" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/$p.elf" startup.o "$FW_DIR/programs/$p.c"
    done
done
for b in "${BOARDS[@]}"; do
    job "$b bench_long" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/bench_long.elf" startup.o \
        "$FW_DIR/programs/bench_long.c"
done
for b in "${TIMING_BOARDS[@]}"; do
    srcs=("$FW_DIR/timing/timing.c" "$FW_DIR/timing/bench.S")
    [[ $b == rp2040 ]] || srcs+=("$FW_DIR/timing/bench_div.S" "$FW_DIR/timing/bench_pipe.S")
    [[ $b == stm32f446re ]] && srcs+=("$FW_DIR/timing/flash_fetch.S")
    job "$b timing" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/timing.elf" startup.o "${srcs[@]}"
done
for b in "${CONSOLE_BOARDS[@]}"; do
    for p in console_uart console_itm semihost_files semihost_limits; do
        job "$b $p" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/$p.elf" startup.o "$FW_DIR/console/$p.c"
    done
done
for b in "${CLOCK_BOARDS[@]}"; do
    mkdir -p "$BUILD/$b"
    job "$b clock_tree" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/clock_tree.elf" startup.o "$FW_DIR/clocks/clock_tree.c"
done
for b in "${RTT_BOARDS[@]}"; do
    job "$b console_rtt" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/console_rtt.elf" startup.o \
        "$FW_DIR/console/console_rtt.c" "$FW_DIR/common/rtt.c"
    job "$b console_defmt" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/console_defmt.elf" startup.o \
        "$FW_DIR/console/console_defmt.c" "$FW_DIR/console/defmt_table.S" "$FW_DIR/common/rtt.c"
done
for b in "${IRQ_BOARDS[@]}"; do
    for p in systick svc pendsv idle; do
        job "$b $p" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/$p.elf" startup.o "$FW_DIR/interrupts/$p.c"
    done
done
job "mps2-an386 storm" link_elf mps2-an386 "$BUILD/obj/mps2-an386" "$BUILD/mps2-an386/storm.elf" startup.o \
    "$FW_DIR/interrupts/storm.c"
# Double precision on the FPv5-D16 of the Cortex-M7 (fpu/double_fp.c; expected output = the host's).
for b in "${FPU_DP_BOARDS[@]}"; do
    job "$b double_fp" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/double_fp.elf" startup.o -frounding-math \
        "$FW_DIR/fpu/double_fp.c"
done
# Tensor views' test kernel (programs/gemm_tiled.c): its C matrix goes to the board's `.psram`.
job "mps2-an386 gemm_tiled" link_elf mps2-an386 "$BUILD/obj/mps2-an386" "$BUILD/mps2-an386/gemm_tiled.elf" startup.o \
    "$FW_DIR/programs/gemm_tiled.c"
job "rp2040 rp2040_rom" link_elf rp2040 "$BUILD/obj/rp2040" "$BUILD/rp2040/rp2040_rom.elf" startup.o \
    "$FW_DIR/startup/rp2040_rom.c"
job "mps2-an386 entry_return" link_elf mps2-an386 "$BUILD/obj/mps2-an386" "$BUILD/mps2-an386/entry_return.elf" startup.o -Wl,--undefined=answer \
    "$FW_DIR/startup/entry_return.c"
for b in "${FAULT_KINDS_BOARDS[@]}"; do
    mkdir -p "$BUILD/$b"
    job "$b fault_kinds" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/fault_kinds.elf" startup.o "$FW_DIR/faults/fault_kinds.c"
done
for b in "${MEMBENCH_BOARDS[@]}"; do
    job "$b membench" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/membench.elf" startup.o \
        "${MEMBENCH_FLAGS[@]}" "$FW_DIR/membench/membench.c"
done
for b in "${FAULT_BOARDS[@]}"; do
    for p in "${FAULTS[@]}"; do
        st=startup.o
        [[ $p == fault_unhandled_irq ]] && st=startup_zero_irq5.o
        job "$b $p" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/$p.elf" "$st" "$FW_DIR/faults/$p.c"
    done
done
wait_jobs

# A vector table found by no name: exit_code with `.isr_vector` renamed and the ELF entry at the
# table (address 0), as some vendor images come (the loader falls back to VTOR's reset value, 0).
"$OBJCOPY" --rename-section .isr_vector=.text.boot --set-start 0 "$BUILD/mps2-an386/exit_code.elf" \
    "$BUILD/mps2-an386/exit_code_unnamed_vectors.elf"

# ------------------------------------------------------------------ example
# The committed quick-start ELF: DWARF removed to keep it small, symbol table
# kept (the profiler names functions from it).  Written only when it changed.
"$OBJCOPY" --strip-debug "$BUILD/mps2-an386/demo.elf" "$BUILD/mps2-an386-demo.elf"
size=$(stat -c %s "$BUILD/mps2-an386-demo.elf")
((size < 200 * 1024)) || echo "build.sh: warning: example ELF is $size bytes (limit 200 KiB)" >&2
mkdir -p "$(dirname "$EXAMPLE")"
if ! cmp -s "$BUILD/mps2-an386-demo.elf" "$EXAMPLE"; then
    cp "$BUILD/mps2-an386-demo.elf" "$EXAMPLE"
    echo "updated ${EXAMPLE#$ROOT/} ($size bytes)"
fi

n_elf=$(find "$BUILD" -name '*.elf' -path "$BUILD/*/*" | wc -l)
echo "built $n_elf ELF files and ${#PORTABLE[@]} host programs in $((SECONDS - start)) s -> ${BUILD#$ROOT/}/"

# ------------------------------------------------------------------ optional QEMU check
# QEMU is a second functional reference.  It has no pre-opened semihosting
# handles, so these variants open ":tt" (-DSEMIHOST_OPEN_TT).  QEMU models
# none of the boards' timing and no DWT/ITM; only outputs are compared.
# Each run: <QEMU machine> <board whose CPU flags are used> <linker script>
#   mps2-an386    Cortex-M4F  as built for mps2-an386
#   mps2-an500    Cortex-M7   as built for mps2-an500
#   netduinoplus2 STM32F405 (Cortex-M4F, flash 0x08000000, SRAM 0x20000000):
#                 the stm32f446re memory map fits it
#   mps2-an385    Cortex-M3 running code built for rp2040 (ARMv6-M Thumb-1,
#                 soft float newlib) with the mps2-an386 memory map
#   mps2-an505    Cortex-M33 running code built for rp2350 (FPv5-SP) with
#                 the AN505 secure memory map written below
qemu_run() {   # <machine> <elf> <stdout file> <expected stdout> <expected rc>
    local m=$1 elf=$2 out=$3 want=$4 want_rc=$5 rc=0
    timeout 60 qemu-system-arm -M "$m" -nographic -monitor none -serial null \
        -semihosting-config enable=on,target=native -kernel "$elf" >"$out" 2>"${out%.out}.err" || rc=$?
    if cmp -s "$out" "$want" && [[ $rc == "$want_rc" ]]; then
        echo "qemu $m $(basename "$elf" .elf): output and exit code $rc match"
    else
        echo "qemu $m $(basename "$elf" .elf): MISMATCH (exit $rc, expected $want_rc)"
        diff "$want" "$out" | head -20 || true
        return 1
    fi
}

if ((RUN_QEMU)); then
    command -v qemu-system-arm >/dev/null 2>&1 ||
        die "qemu-system-arm not found (sudo apt-get install qemu-system-arm)"
    Q="$BUILD/qemu"
    mkdir -p "$Q"
    # Cortex-M33 on QEMU's mps2-an505 (QEMU hw/arm/mps2-tz.c; Arm AN505):
    # SSRAM1 secure alias at 0x10000000 (4 MiB), SSRAM2 secure alias at
    # 0x38000000 (2 MiB); the CPU boots in secure state from 0x10000000.
    cat >"$Q/qemu-mps2-an505.ld" <<'LD'
MEMORY
{
    SSRAM1_S (rx)  : ORIGIN = 0x10000000, LENGTH = 4M
    SSRAM2_S (rwx) : ORIGIN = 0x38000000, LENGTH = 2M
}
REGION_ALIAS("CODE", SSRAM1_S);
REGION_ALIAS("RAM", SSRAM2_S);
INCLUDE sections.ld
LD
    QEMU_RUNS=("mps2-an386 mps2-an386 $FW_DIR/boards/mps2-an386.ld"
               "mps2-an500 mps2-an500 $FW_DIR/boards/mps2-an500.ld"
               "netduinoplus2 stm32f446re $FW_DIR/boards/stm32f446re.ld"
               "mps2-an385 rp2040 $FW_DIR/boards/mps2-an386.ld"
               "mps2-an505 rp2350 $Q/qemu-mps2-an505.ld")
    for run in "${QEMU_RUNS[@]}"; do
        read -r m b ld <<<"$run"
        job "qemu runtime $m" build_runtime "$b" "$Q/$m/obj" -DSEMIHOST_OPEN_TT
    done
    wait_jobs
    for run in "${QEMU_RUNS[@]}"; do
        read -r m b ld <<<"$run"
        for p in "${PORTABLE[@]}"; do
            job "qemu link $m $p" link_elf_ld "$b" "$ld" "$Q/$m/obj" "$Q/$m/$p.elf" startup.o "$FW_DIR/programs/$p.c"
        done
        if [[ $m == mps2-an386 ]]; then
            for p in svc pendsv systick; do
                job "qemu link $m $p" link_elf_ld "$b" "$ld" "$Q/$m/obj" "$Q/$m/$p.elf" startup.o "$FW_DIR/interrupts/$p.c"
            done
        fi
    done
    wait_jobs
    for run in "${QEMU_RUNS[@]}"; do
        read -r m b ld <<<"$run"
        for p in "${PORTABLE[@]}"; do
            job "qemu run $m $p" qemu_run "$m" "$Q/$m/$p.elf" "$Q/$m/$p.out" \
                "$BUILD/host/$p.out" "$(cat "$BUILD/host/$p.rc")"
        done
    done
    # Interrupt programs: outputs the README documents (QEMU has no DWT, so
    # systick's cycle count reads 0 there).
    printf '%s\n' "svc: number=5 r0=0x1234 returned=0x1235 ipsr=11 calls=1" \
        "svc: number=42 r0=0x0007 returned=0x0008 ipsr=11 calls=2" >"$Q/svc.expected"
    printf '%s\n' "pendsv: round 1 handler_ran=1 ipsr=14" \
        "pendsv: round 2 handler_ran=2 ipsr=14" >"$Q/pendsv.expected"
    printf '%s\n' "systick: ticks=10 ipsr=15" "systick: cyccnt=0" >"$Q/systick.expected"
    for p in svc pendsv systick; do
        job "qemu run mps2-an386 $p" qemu_run mps2-an386 "$Q/mps2-an386/$p.elf" \
            "$Q/mps2-an386/$p.out" "$Q/$p.expected" 0
    done
    wait_jobs
fi

# ------------------------------------------------------------------ Xtensa (ESP32-S3, ESP32, ESP8266)
# Debian's gcc-xtensa-lx106 has no C library here and its libgcc lacks most soft-float helpers (and is
# call0 code), so every program links against firmware/xtensa/libc instead (printf with floating point,
# string and stdlib functions, soft float, libm; output and exit over SIMCALL), built once per ABI into
# build/xtensa-libc/<abi>/libtg.a. No -lgcc: a helper missing from libtg fails the link instead of
# pulling call0 code into windowed firmware.
# Every board gets call0-ABI builds (<program>.elf); esp32 and esp32s3 also get windowed-ABI builds
# (<program>-windowed.elf), made by assembling GCC's -mabi=windowed output with windowed_prelude.S
# (see firmware/xtensa/README.md). XT_CHECKS are Xtensa-only portable checks (firmware/xtensa/checks/),
# also built for the host like the portable programs. Skipped with a note when the cross compiler is missing.
XT_CC=${XT_CROSS_PREFIX:-xtensa-lx106-elf-}gcc
XT_AR=${XT_CROSS_PREFIX:-xtensa-lx106-elf-}ar
XT_OBJCOPY=${XT_CROSS_PREFIX:-xtensa-lx106-elf-}objcopy
XT_DIR="$FW_DIR/xtensa"
XT_BOARDS=(esp32s3 esp32 esp8266)
XT_WINDOWED_BOARDS=(esp32s3 esp32)
XT_MEMBENCH_BOARDS=(esp32s3 esp32 esp8266)
XT_PROGRAMS=(sort crc32 recursion demo exit_code matmul strings_float bench_long)
XT_CHECKS=(softfloat_check)
XT_FAULTS=(fault_illegal fault_bad_address fault_deep)
# Device programs built for every Xtensa board like the programs (the others need their board's
# registers: see xt_timer_alarm and the like below).
XT_DEVICE_PROGRAMS=(idle)
XT_LIBC=(libc softfloat decimal math)
XT_EXAMPLE="$ROOT/examples/esp32s3-demo.elf"
XT_CFLAGS=(-O2 -g -std=gnu11 -Wall -Wextra -ffreestanding -fno-builtin -ffp-contract=off
           -ffunction-sections -fdata-sections "${PREFIX_MAP[@]}" -isystem "$XT_DIR/libc/include")
XT_LIBDIR="$BUILD/xtensa-libc"

XT_LDFLAGS=()

xt_example() {   # <elf> <example>: the ELF without DWARF into examples/, rewritten only if changed
    local stripped="$BUILD/$(basename "$2")"
    "$XT_OBJCOPY" --strip-debug "$1" "$stripped"
    if ! cmp -s "$stripped" "$2"; then
        cp "$stripped" "$2"
        echo "updated ${2#$ROOT/} ($(stat -c %s "$2") bytes)"
    fi
}

xt_rom_printf() {   # <elf>: ESP32-S3 program calling ets_printf at its ROM address (ESP-IDF esp32s3.rom.ld)
    XT_CFLAGS+=(-mlongcalls)
    XT_LDFLAGS=(-Wl,--defsym=ets_printf=0x400005d0)
    xt_windowed esp32s3 rom_printf "$1"
}

xt_source() {   # <program, check, device test or fault name>: its C file
    if [[ -e $FW_DIR/programs/$1.c ]]; then echo "$FW_DIR/programs/$1.c"
    elif [[ -e $XT_DIR/checks/$1.c ]]; then echo "$XT_DIR/checks/$1.c"
    elif [[ -e $XT_DIR/devices/$1.c ]]; then echo "$XT_DIR/devices/$1.c"
    else echo "$XT_DIR/faults/$1.c"; fi
}

xt_uart_irq() {   # <board> <elf>: UART0 transmit interrupts, taken through the kernel vector
    XT_CFLAGS+=("$(board_define "$1")")
    xt_windowed "$1" uart_irq "$2" -DKERNEL_HANDLER=uart_level1_interrupt
}

xt_watchdog() {   # <board> <elf>: the timer group's watchdog stages
    XT_CFLAGS+=("$(board_define "$1")")
    xt_windowed "$1" watchdog "$2"
}

xt_timer_alarm() {   # <board> <elf>: timer-group alarm interrupts, taken through the kernel vector
    XT_CFLAGS+=("$(board_define "$1")")
    xt_windowed "$1" timer_alarm "$2" -DKERNEL_HANDLER=tg_level1_interrupt
}

xt_host_check() {   # <check>: build/host/<check>(.out, .rc), as build_host does for programs/
    local p=$1 out="$BUILD/host" rc=0
    "$HOSTCC" "${HOST_FLAGS[@]}" "$XT_DIR/checks/$p.c" -o "$out/$p" -lm
    "$out/$p" >"$out/$p.out" || rc=$?
    echo "$rc" >"$out/$p.rc"
}

xt_windowed_obj() {   # <C source> <object>: GCC's windowed-ABI assembly with the prelude's macros
    local src=$1 obj=$2 s="${2%.o}.s"
    "$XT_CC" "${XT_CFLAGS[@]}" -mabi=windowed -S -o "$s" "$src"
    { echo '.include "windowed_prelude.S"'; cat "$s"; } >"${s%.s}.S"
    "$XT_CC" -c "-Wa,-I$XT_DIR" -o "$obj" "${s%.s}.S"
    rm -f "$s" "${s%.s}.S"
}

xt_libc() {   # <call0|windowed>: build/xtensa-libc/<abi>/libtg.a
    local abi=$1 out="$XT_LIBDIR/$1" objs=() f
    mkdir -p "$out"
    for f in "${XT_LIBC[@]}"; do
        if [[ $abi == call0 ]]; then
            "$XT_CC" "${XT_CFLAGS[@]}" -c -o "$out/$f.o" "$XT_DIR/libc/$f.c"
        else
            xt_windowed_obj "$XT_DIR/libc/$f.c" "$out/$f.o"
        fi
        objs+=("$out/$f.o")
    done
    rm -f "$out/libtg.a"
    "$XT_AR" rcs "$out/libtg.a" "${objs[@]}"
}

xt_call0() {   # <board> <program> <elf>
    "$XT_CC" "${XT_CFLAGS[@]}" -nostdlib -L "$XT_DIR" -T "$XT_DIR/$1.ld" -Wl,-Map="${3%.elf}.map" \
        -Wl,--gc-sections "$XT_DIR/start_call0.S" "$(xt_source "$2")" -L "$XT_LIBDIR/call0" -ltg -o "$3"
}

xt_membench() {   # <board>: build/<board>/membench.elf (call0), with -DBOARD_<BOARD> as on Cortex-M;
    # -mno-serialize-volatile: no MEMW before each volatile access, so the kernels are plain loads/stores
    local b=$1 elf="$BUILD/$1/membench.elf"
    "$XT_CC" "${XT_CFLAGS[@]}" "${MEMBENCH_FLAGS[@]}" -mno-serialize-volatile "$(board_define "$b")" \
        -nostdlib -L "$XT_DIR" \
        -T "$XT_DIR/$b.ld" -Wl,-Map="${elf%.elf}.map" -Wl,--gc-sections "$XT_DIR/start_call0.S" \
        "$FW_DIR/membench/membench.c" -L "$XT_LIBDIR/call0" -ltg -o "$elf"
}

xt_litbench() {   # <board>: build/<board>/litbench.elf (call0): literals.S's loop in IRAM and in flash
    local b=$1 elf="$BUILD/$1/litbench.elf"
    "$XT_CC" "${XT_CFLAGS[@]}" -nostdlib -L "$XT_DIR" -T "$XT_DIR/$b.ld" -Wl,-Map="${elf%.elf}.map" \
        -Wl,--gc-sections "$XT_DIR/start_call0.S" "$FW_DIR/literals/litbench.c" \
        "$FW_DIR/literals/literals.S" -L "$XT_LIBDIR/call0" -ltg -o "$elf"
}

xt_windowed() {   # <board> <program> <elf> [extra start-file flags...]
    local b=$1 p=$2 elf=$3; shift 3
    local tmp="${elf%.elf}.objs"
    mkdir -p "$tmp"
    xt_windowed_obj "$(xt_source "$p")" "$tmp/$p.o"
    "$XT_CC" -c "-Wa,-I$XT_DIR" "$@" -o "$tmp/start.o" "$XT_DIR/start_windowed.S"
    "$XT_CC" -nostdlib -L "$XT_DIR" -T "$XT_DIR/$b.ld" -Wl,-Map="${elf%.elf}.map" "${XT_LDFLAGS[@]}" \
        -Wl,--gc-sections "$tmp/start.o" "$tmp/$p.o" -L "$XT_LIBDIR/windowed" -ltg -o "$elf"
    rm -rf "$tmp"
}

xt_prelude_check() {   # <board>: build/<board>/lx6_prelude_check.elf, the check of the ESP-DSP
    # prelude's macros (firmware/calibration), built through that prelude as scripts/accuracy.sh does
    local b=$1 cal="$FW_DIR/calibration" elf="$BUILD/$1/lx6_prelude_check.elf"
    local tmp="${elf%.elf}.objs"
    mkdir -p "$tmp"
    "$XT_CC" "${XT_CFLAGS[@]}" -mabi=windowed -S -o "$tmp/check.s" "$cal/lx6_prelude_check.c"
    { echo '.include "xtensa_lx6_prelude.S"'; cat "$tmp/check.s"; } >"$tmp/check.S"
    "$XT_CC" -c "-Wa,-I$cal" "-Wa,-I$XT_DIR" -o "$tmp/check.o" "$tmp/check.S"
    "$XT_CC" -c "-Wa,-I$XT_DIR" -o "$tmp/start.o" "$XT_DIR/start_windowed.S"
    "$XT_CC" -nostdlib -L "$XT_DIR" -T "$XT_DIR/$b.ld" "${XT_LDFLAGS[@]}" -Wl,--gc-sections \
        "$tmp/start.o" "$tmp/check.o" -L "$XT_LIBDIR/windowed" -ltg -o "$elf"
    rm -rf "$tmp"
}

xt_pie_prelude_check() {   # build/esp32s3/pie_prelude_check.elf: one instance of every macro of the
    # ESP-DSP PIE prelude (firmware/calibration/xtensa_pie_prelude.S), as scripts/accuracy.sh builds it
    local cal="$FW_DIR/calibration" elf="$BUILD/esp32s3/pie_prelude_check.elf"
    local tmp="${elf%.elf}.objs"
    mkdir -p "$tmp"
    "$XT_CC" "${XT_CFLAGS[@]}" -mabi=windowed -S -o "$tmp/main.s" "$cal/pie_prelude_main.c"
    { echo '.include "xtensa_lx6_prelude.S"'; cat "$tmp/main.s"; } >"$tmp/main.S"
    "$XT_CC" -c "-Wa,-I$cal" "-Wa,-I$XT_DIR" -o "$tmp/main.o" "$tmp/main.S"
    "$XT_CC" -c "-Wa,-I$cal" "-Wa,-I$XT_DIR" -o "$tmp/check.o" "$cal/pie_prelude_check.S"
    "$XT_CC" -c "-Wa,-I$XT_DIR" -o "$tmp/start.o" "$XT_DIR/start_windowed.S"
    "$XT_CC" -nostdlib -L "$XT_DIR" -T "$XT_DIR/esp32s3.ld" "${XT_LDFLAGS[@]}" -Wl,--gc-sections \
        "$tmp/start.o" "$tmp/main.o" "$tmp/check.o" -L "$XT_LIBDIR/windowed" -ltg -o "$elf"
    rm -rf "$tmp"
}

if command -v "$XT_CC" >/dev/null 2>&1; then
    job "xtensa libc (call0)" xt_libc call0
    job "xtensa libc (windowed)" xt_libc windowed
    for p in "${XT_CHECKS[@]}"; do
        job "host $p" xt_host_check "$p"
    done
    wait_jobs
    for b in "${XT_BOARDS[@]}"; do
        mkdir -p "$BUILD/$b"
        for p in "${XT_PROGRAMS[@]}" "${XT_CHECKS[@]}" "${XT_FAULTS[@]}" "${XT_DEVICE_PROGRAMS[@]}"; do
            job "$b $p (call0)" xt_call0 "$b" "$p" "$BUILD/$b/$p.elf"
        done
    done
    for b in "${XT_WINDOWED_BOARDS[@]}"; do
        for p in "${XT_PROGRAMS[@]}" "${XT_CHECKS[@]}" "${XT_FAULTS[@]}" "${XT_DEVICE_PROGRAMS[@]}"; do
            job "$b $p (windowed)" xt_windowed "$b" "$p" "$BUILD/$b/$p-windowed.elf"
        done
        job "$b fault_window (windowed)" xt_windowed "$b" fault_window "$BUILD/$b/fault_window-windowed.elf" -DNO_VECBASE
        job "$b lx6_prelude_check (windowed)" xt_prelude_check "$b"
    done
    job "esp32s3 pie_prelude_check (windowed)" xt_pie_prelude_check
    job "esp32s3 gemm_tiled (windowed)" xt_windowed esp32s3 gemm_tiled "$BUILD/esp32s3/gemm_tiled-windowed.elf"
    job "esp32s3 rom_printf (windowed)" xt_rom_printf "$BUILD/esp32s3/rom_printf-windowed.elf"
    for b in "${XT_WINDOWED_BOARDS[@]}"; do
        job "$b timer_alarm (windowed)" xt_timer_alarm "$b" "$BUILD/$b/timer_alarm-windowed.elf"
        job "$b watchdog (windowed)" xt_watchdog "$b" "$BUILD/$b/watchdog-windowed.elf"
        job "$b uart_irq (windowed)" xt_uart_irq "$b" "$BUILD/$b/uart_irq-windowed.elf"
    done
    for b in "${XT_MEMBENCH_BOARDS[@]}"; do
        job "$b membench (call0)" xt_membench "$b"
    done
    for b in "${XT_WINDOWED_BOARDS[@]}"; do
        job "$b litbench (call0)" xt_litbench "$b"
    done
    wait_jobs
    xt_example "$BUILD/esp32s3/demo-windowed.elf" "$XT_EXAMPLE"
    echo "built Xtensa firmware for ${XT_BOARDS[*]} -> ${BUILD#$ROOT/}/<board>/"
else
    echo "build.sh: note: $XT_CC not found; Xtensa firmware skipped (sudo apt-get install gcc-xtensa-lx106)" >&2
fi

# ------------------------------------------------------------------ TiGrIS reference firmware
# firmware/tigris/ (see its README.md): our own small TiGrIS-compatible runtime running one plan per
# mode. make_plans.py (python3, standard library) writes the plans into build/tigris/ as .tgrs files
# and as C headers (g_tigris_plan[]); the .tgrs files are also kept in firmware/tigris/plans/
# (rewritten only when their bytes change) for tests that read plans without Python. The runtime and
# kernels do not depend on the plan: they are compiled once per target into build/tigris/obj/<target>/,
# main.c once per mode.
# Per mode: build/host/tigris_<mode> (+ .out, .rc, and .events: every trace event, one per line),
# build/{stm32h753,stm32f446re,mps2-an386}/tigris_<mode>.elf, build/esp32s3/tigris_<mode>.elf (call0) and
# build/esp32s3/tigris_<mode>-windowed.elf. A host run that disagrees with make_plans.py's own run of
# the model, or whose trace breaks the counters, fails the build.
TG_DIR="$FW_DIR/tigris"
TG_GEN="$BUILD/tigris"
TG_MODES=(normal tiled chain chain_lb)
TG_V1_MODES=(normal tiled chain)   # the modes a schema-1 plan can say (make_plans.py SCHEMA1_MODES)
TG_CM_BOARDS=(stm32h753 stm32f446re mps2-an386)
TG_LIB=(tigris_rt tigris_kernels)

tg_mode_flags() {   # <mode>: include paths and the plan header
    echo "-I$TG_DIR -I$TG_GEN -DTIGRIS_PLAN_HEADER=\"tigris_$1_plan.h\""
}

tg_flavour() {   # [notrace|v1]: the runtime flavour's defines (firmware/tigris/README.md)
    case ${1:-} in
        notrace) echo -DTIGRIS_NO_TRACE ;;
        v1) echo -DTIGRIS_SCHEMA_1 ;;
    esac
}

tg_objs() {   # <target> [notrace|v1]: the runtime and kernel objects (+ windowed start files)
    local t=$1 out="$TG_GEN/obj/$1${2:+-$2}" f
    local flavour=($(tg_flavour "${2:-}"))
    local XT_CFLAGS=("${XT_CFLAGS[@]}" -DBOARD_ESP32S3 "${flavour[@]}")   # Xtensa; seen by xt_windowed_obj
    mkdir -p "$out"
    for f in "${TG_LIB[@]}"; do
        case "$t" in
            host) "$HOSTCC" "${HOST_FLAGS[@]}" -DHOST -c "$TG_DIR/$f.c" -o "$out/$f.o" ;;
            esp32s3-call0) "$XT_CC" "${XT_CFLAGS[@]}" -c "$TG_DIR/$f.c" -o "$out/$f.o" ;;
            esp32s3-windowed) xt_windowed_obj "$TG_DIR/$f.c" "$out/$f.o" ;;
            *)  # shellcheck disable=SC2046
                "$CC" $(cpu_flags "$t") $(board_define "$t") "${COMMON_FLAGS[@]}" "${flavour[@]}" \
                    -c "$TG_DIR/$f.c" -o "$out/$f.o" ;;
        esac
    done
    if [[ $t == esp32s3-windowed ]]; then
        "$XT_CC" -c "-Wa,-I$XT_DIR" -o "$out/start.o" "$XT_DIR/start_windowed.S"
        "$XT_CC" -c -DIDF_ENTRY "-Wa,-I$XT_DIR" -o "$out/start_idf.o" "$XT_DIR/start_windowed.S"
    fi
}

tg_lib_objs() {   # <target>: the object paths
    local f
    for f in "${TG_LIB[@]}"; do echo "$TG_GEN/obj/$1/$f.o"; done
}

tg_host() {   # <mode>: build/host/tigris_<mode>(.out, .rc, .events); non-zero exit fails the build
    local p="tigris_$1" out="$BUILD/host" rc=0
    # shellcheck disable=SC2046
    "$HOSTCC" "${HOST_FLAGS[@]}" -DHOST $(tg_mode_flags "$1") "$TG_DIR/main.c" $(tg_lib_objs host) \
        -o "$out/$p"
    TIGRIS_EVENTS=1 "$out/$p" >"$out/$p.out" 2>"$out/$p.events" || rc=$?
    echo "$rc" >"$out/$p.rc"
    ((rc == 0)) || { cat "$out/$p.out"; echo "$p: host run failed with exit code $rc" >&2; return 1; }
}

tg_xt_call0() {   # <mode> [notrace|v1]: build/esp32s3/tigris_<mode>[-notrace|-v1].elf
    local elf="$BUILD/esp32s3/tigris_$1${2:+-$2}.elf" plan=$1${2:+_$2}
    [[ ${2:-} == notrace ]] && plan=$1
    # shellcheck disable=SC2046
    "$XT_CC" "${XT_CFLAGS[@]}" -DBOARD_ESP32S3 $(tg_flavour "${2:-}") $(tg_mode_flags "$plan") -nostdlib \
        -L "$XT_DIR" -T "$XT_DIR/esp32s3.ld" -Wl,-Map="${elf%.elf}.map" -Wl,--gc-sections \
        "$XT_DIR/start_call0.S" "$TG_DIR/main.c" $(tg_lib_objs "esp32s3-call0${2:+-$2}") \
        -L "$XT_LIBDIR/call0" -ltg -o "$elf"
}

tg_xt_windowed() {   # <mode>: build/esp32s3/tigris_<mode>-windowed.elf
    local elf="$BUILD/esp32s3/tigris_$1-windowed.elf" lib="$TG_GEN/obj/esp32s3-windowed"
    # shellcheck disable=SC2046
    local XT_CFLAGS=("${XT_CFLAGS[@]}" -DBOARD_ESP32S3 $(tg_mode_flags "$1"))   # seen by xt_windowed_obj
    xt_windowed_obj "$TG_DIR/main.c" "$lib/main_$1.o"
    # shellcheck disable=SC2046
    "$XT_CC" -nostdlib -L "$XT_DIR" -T "$XT_DIR/esp32s3.ld" -Wl,-Map="${elf%.elf}.map" \
        -Wl,--gc-sections "$lib/start.o" "$lib/main_$1.o" $(tg_lib_objs esp32s3-windowed) \
        -L "$XT_LIBDIR/windowed" -ltg -o "$elf"
}

tg_xt_idf() {   # <mode>: build/esp32s3/tigris_<mode>-idf.elf, the windowed build in ESP-IDF's layout
    local elf="$BUILD/esp32s3/tigris_$1-idf.elf" lib="$TG_GEN/obj/esp32s3-windowed"
    # shellcheck disable=SC2046
    "$XT_CC" -nostdlib -L "$XT_DIR" -T "$XT_DIR/esp32s3-idf.ld" -Wl,-Map="${elf%.elf}.map" \
        -Wl,--gc-sections -Wl,--defsym=ets_printf=0x400005d0 "$lib/start_idf.o" "$lib/main_$1.o" \
        $(tg_lib_objs esp32s3-windowed) -L "$XT_LIBDIR/windowed" -ltg -o "$elf"
}

if command -v python3 >/dev/null 2>&1; then
    tg_start=$SECONDS
    tg_targets=(host "${TG_CM_BOARDS[@]}")
    tg_xt=0
    if command -v "$XT_CC" >/dev/null 2>&1; then
        tg_xt=1
        tg_targets+=(esp32s3-call0 esp32s3-windowed)
    fi
    job "tigris plans" python3 "$TG_DIR/make_plans.py" --out "$TG_GEN"
    for t in "${tg_targets[@]}"; do
        job "tigris runtime ($t)" tg_objs "$t"
    done
    for t in "${TG_CM_BOARDS[@]}" $( ((tg_xt)) && echo esp32s3-call0); do   # without the trace API
        job "tigris runtime ($t, no trace)" tg_objs "$t" notrace
        job "tigris runtime ($t, schema 1)" tg_objs "$t" v1
    done
    wait_jobs
    mkdir -p "$TG_DIR/plans"
    for m in "${TG_MODES[@]}"; do
        if ! cmp -s "$TG_GEN/tigris_$m.tgrs" "$TG_DIR/plans/tigris_$m.tgrs"; then
            cp "$TG_GEN/tigris_$m.tgrs" "$TG_DIR/plans/tigris_$m.tgrs"
            echo "updated ${TG_DIR#$ROOT/}/plans/tigris_$m.tgrs"
        fi
    done
    tg_n=0
    for m in "${TG_MODES[@]}"; do
        job "host tigris_$m" tg_host "$m"
        for b in "${TG_CM_BOARDS[@]}"; do
            # shellcheck disable=SC2046
            job "$b tigris_$m" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/tigris_$m.elf" startup.o \
                $(tg_mode_flags "$m") "$TG_DIR/main.c" $(tg_lib_objs "$b")
            # shellcheck disable=SC2046
            job "$b tigris_$m (no trace)" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/tigris_$m-notrace.elf" \
                startup.o -DTIGRIS_NO_TRACE $(tg_mode_flags "$m") "$TG_DIR/main.c" $(tg_lib_objs "$b-notrace")
            tg_n=$((tg_n + 2))
        done
        if ((tg_xt)); then
            job "esp32s3 tigris_$m (call0)" tg_xt_call0 "$m"
            job "esp32s3 tigris_$m (call0, no trace)" tg_xt_call0 "$m" notrace
            job "esp32s3 tigris_$m (windowed)" tg_xt_windowed "$m"
            tg_n=$((tg_n + 3))
        fi
        [[ " ${TG_V1_MODES[*]} " == *" $m "* ]] || continue
        for b in "${TG_CM_BOARDS[@]}"; do
            # shellcheck disable=SC2046
            job "$b tigris_$m (schema 1)" link_elf "$b" "$BUILD/obj/$b" "$BUILD/$b/tigris_$m-v1.elf" \
                startup.o -DTIGRIS_SCHEMA_1 $(tg_mode_flags "${m}_v1") "$TG_DIR/main.c" $(tg_lib_objs "$b-v1")
            tg_n=$((tg_n + 1))
        done
        if ((tg_xt)); then
            job "esp32s3 tigris_$m (call0, schema 1)" tg_xt_call0 "$m" v1
            tg_n=$((tg_n + 1))
        fi
    done
    wait_jobs
    if ((tg_xt)); then
        for m in "${TG_MODES[@]}"; do   # after the windowed builds: they share main_<mode>.o
            job "esp32s3 tigris_$m (windowed, ESP-IDF layout)" tg_xt_idf "$m"
            tg_n=$((tg_n + 1))
        done
        wait_jobs
    fi
    if [ "$tg_xt" = 1 ]; then
        xt_example "$BUILD/esp32s3/tigris_tiled-windowed.elf" "$ROOT/examples/esp32s3-tigris.elf"
    fi
    echo "built $tg_n TiGrIS reference ELF files and ${#TG_MODES[@]} host runs in $((SECONDS - tg_start)) s"
else
    echo "build.sh: note: python3 not found; TiGrIS reference firmware (firmware/tigris) skipped" >&2
fi

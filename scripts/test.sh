#!/usr/bin/env bash
# The whole test suite: install the toolchains, build the test firmware, run every test, and close
# with one line that counts them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh cmake libclang-dev pkg-config \
    gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-xtensa-lx106 binutils-xtensa-lx106 gdb-multiarch
bash firmware/build.sh
# The ESP chips' mask-ROM ELFs, from the espflash crate on crates.io (not shipped here).
bash scripts/fetch-roms.sh
# The TiGrIS compiler (and onnx) that sim/tests/plan.rs compares the plan reader with, and
# esp-coredump, whose loader sim/tests/esp_fixtures.rs checks the ESP-IDF core dumps with, and
# esptool, which builds the flash images it boots (scripts/esp_flash_image.py); pinned.
python3 -m pip install --quiet --disable-pip-version-check tigris-ml==0.12.1 onnx==1.23.2 esp-coredump==1.17.2 esptool==5.6.0
# tigris-ml 0.3.1, the last release that writes plan schema 1 (the public tigris-runtime's), in its own
# directory so that it does not replace 0.12.1; sim/tests/plan.rs runs it with PYTHONPATH set there.
# --no-deps: its dependencies (onnx, numpy, click, lz4, pyyaml, rich) are those installed for 0.12.1,
# plus the two it alone needs, pinned.
python3 -m pip install --quiet --disable-pip-version-check pyyaml==6.0.3 rich==15.0.0
python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
    --target .deps/tigris-ml-0.3.1 tigris-ml==0.3.1
# Guard rails: formatting and lints fail the suite (said and skipped where the toolchain lacks the
# rustfmt or clippy component).
if cargo fmt --version >/dev/null 2>&1; then
    cargo fmt --all -- --check
else
    echo "skipped cargo fmt --check: rustfmt is not installed"
fi
if cargo clippy --version >/dev/null 2>&1; then
    cargo clippy --workspace --all-targets --quiet -- -D warnings
else
    echo "skipped cargo clippy: clippy is not installed"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --workspace 2>&1 | tee "$log" || status=$?
passed=$(grep -o '[0-9]* passed' "$log" | awk '{s+=$1} END {print s+0}')
failed=$(grep -o '[0-9]* failed' "$log" | awk '{s+=$1} END {print s+0}')
echo "tests: $passed passed, $failed failed"
exit "$status"

#!/usr/bin/env bash
# The whole test suite: install the toolchains, build the test firmware, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh cmake libclang-dev pkg-config \
    gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-xtensa-lx106 binutils-xtensa-lx106
bash firmware/build.sh
cargo test --workspace

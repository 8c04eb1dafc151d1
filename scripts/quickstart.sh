#!/usr/bin/env bash
# Quick start: install what the build needs, build tigris-sim (release) and run the shipped example
# firmware on the default board. Extra arguments go to `tigris-sim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
# The unicorn-engine crate builds its C code with cmake and generates bindings with libclang.
bash scripts/install-deps.sh cmake libclang-dev pkg-config
cargo build --release --quiet --bin tigris-sim
exec ./target/release/tigris-sim run examples/esp32s3-tigris.elf "$@"

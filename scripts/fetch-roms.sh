#!/usr/bin/env bash
# Put the Espressif chips' mask-ROM ELFs where tigris-sim finds them: they ship inside the `espflash`
# crate on crates.io (resources/roms/), which `cargo fetch` unpacks into the cargo registry
# ($CARGO_HOME/registry/src/*/espflash-*/). They are Espressif's binaries: never copied into the
# repository. Nothing is built.
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/target/rom-fetch"
mkdir -p "$dir/src"
cat > "$dir/Cargo.toml" <<'TOML'
[package]
name = "rom-fetch"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
espflash = { version = "4", default-features = false }

[workspace]
TOML
echo 'fn main() {}' > "$dir/src/main.rs"
cargo fetch --quiet --manifest-path "$dir/Cargo.toml"
ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/espflash-*/resources/roms/esp32s3_rev0_rom.elf >/dev/null

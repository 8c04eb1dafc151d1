#!/usr/bin/env python3
"""Make a flash image that an ESP chip boots from its mask ROM, as an ESP-IDF project flashes it:
the second-stage bootloader, a partition table with one factory app (ESP-IDF's default "Single
factory app, no OTA" layout), and the app converted by `esptool elf2image`, merged by
`esptool merge-bin` into one file from flash offset 0.

    scripts/esp_flash_image.py esp32s3 app.elf flash.bin [--bootloader FILE]

Without --bootloader, the ESP-IDF bootloader that the `espflash` crate ships is used (found in
$CARGO_HOME/registry/src/*/espflash-*/resources/bootloaders/, newest version first). Exit code 3
when esptool or the bootloader is missing, so that tests can say they skipped.
"""

import argparse
import glob
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

# Where the ROM finds the bootloader (ESP-IDF Programming Guide, "Bootloader": offset 0x0 on the
# ESP32-S3, 0x1000 on the ESP32) and ESP-IDF's default partition table and app offsets.
BOOTLOADER_OFFSET = {"esp32s3": 0x0, "esp32": 0x1000}
PARTITION_TABLE_OFFSET = 0x8000
APP_OFFSET = 0x10000

# ESP-IDF partition table format (gen_esp32part.py's binary layout): 32-byte entries, magic 0x50AA,
# type, subtype, offset, size, 16-byte label, flags; then an MD5 entry (magic 0xEBEB, 14 bytes of
# 0xFF, the MD5 of the entries before it); the rest of the 0xC00-byte table is 0xFF.
PARTITIONS = [
    (1, 2, 0x9000, 0x6000, b"nvs"),
    (1, 1, 0xF000, 0x1000, b"phy_init"),
    (0, 0, APP_OFFSET, 0x100000, b"factory"),
]


def partition_table():
    entries = b"".join(
        struct.pack("<HBBII16sI", 0x50AA, t, st, off, size, label, 0)
        for t, st, off, size, label in PARTITIONS
    )
    table = entries + b"\xeb\xeb" + b"\xff" * 14 + hashlib.md5(entries).digest()
    return table + b"\xff" * (0xC00 - len(table))


def espflash_bootloader(chip):
    home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    found = glob.glob(os.path.join(home, "registry/src/*/espflash-*/resources/bootloaders", f"{chip}-bootloader.bin"))

    def version(path):
        m = re.search(r"espflash-([0-9.]+)", path)
        return [int(x) for x in m.group(1).split(".") if x] if m else []

    return max(found, key=version) if found else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("chip", choices=sorted(BOOTLOADER_OFFSET))
    ap.add_argument("app")
    ap.add_argument("out")
    ap.add_argument("--bootloader")
    args = ap.parse_args()
    if subprocess.run([sys.executable, "-c", "import esptool"], capture_output=True).returncode != 0:
        print("esptool is not installed (python3 -m pip install esptool)", file=sys.stderr)
        return 3
    bootloader = args.bootloader or espflash_bootloader(args.chip)
    if not bootloader or not os.path.isfile(bootloader):
        print(f"no {args.chip} bootloader: pass --bootloader FILE or fetch the espflash crate (scripts/fetch-roms.sh)", file=sys.stderr)
        return 3
    with tempfile.TemporaryDirectory() as tmp:
        app_bin = os.path.join(tmp, "app.bin")
        table = os.path.join(tmp, "partitions.bin")
        with open(table, "wb") as f:
            f.write(partition_table())
        esptool = [sys.executable, "-m", "esptool", "--chip", args.chip]
        for cmd in (
            esptool + ["elf2image", "-o", app_bin, args.app],
            esptool + ["merge-bin", "-o", args.out,
                       hex(BOOTLOADER_OFFSET[args.chip]), bootloader,
                       hex(PARTITION_TABLE_OFFSET), table,
                       hex(APP_OFFSET), app_bin],
        ):
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                print(f"{' '.join(cmd)} failed:\n{done.stdout}{done.stderr}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

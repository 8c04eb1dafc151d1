#!/usr/bin/env python3
"""Load an ESP-IDF UART core dump with the PyPI `esp-coredump` package and print its tasks.

usage: esp_coredump_tasks.py CONSOLE_LOG APP_ELF

CONSOLE_LOG holds the text between the `CORE DUMP START` and `CORE DUMP END` lines (the lines
themselves may be included). esp-coredump's loader checks the dump's checksum and the app's SHA-256
and turns it into an ELF core file; this prints one line per task from that core file:

    task <tcb> <name> pc=<pc> sp=<a1>

then `crashed <tcb>`, `exccause <n>`, `excvaddr <addr>` and `epc1 <pc>` from the dump's extra-info
note, and `panic <text>` from its panic-details note.
Exit status 0 when the loader accepted the dump, 1 (with its error) when it refused it.
"""
import struct
import sys
import tempfile

from esp_coredump.corefile.elf import ESPCoreDumpElfFile
from esp_coredump.corefile.loader import ESPCoreDumpFileLoader
from esp_coredump.corefile.xtensa import PrStatus


# Offset of pcTaskName in ESP-IDF FreeRTOS's TCB (pxTopOfStack, xStateListItem, xEventListItem,
# uxPriority, pxStack, then the name; ESP-IDF FreeRTOS tasks.c, tskTaskControlBlock).
TCB_NAME = 0x34


def dump_text(path):
    lines = [l.strip() for l in open(path, encoding="utf-8", errors="replace")]
    starts = [i for i, l in enumerate(lines) if "CORE DUMP START" in l]
    if starts:
        lines = lines[starts[0] + 1 :]
        ends = [i for i, l in enumerate(lines) if "CORE DUMP END" in l]
        lines = lines[: ends[0]] if ends else lines
    return "\n".join(l for l in lines if l) + "\n"


def main():
    log, elf = sys.argv[1], sys.argv[2]
    with tempfile.NamedTemporaryFile("w", suffix=".b64", delete=False) as f:
        f.write(dump_text(log))
    loader = ESPCoreDumpFileLoader(f.name, True)
    try:
        loader.create_corefile(exe_name=elf)
    except Exception as e:  # the loader's own refusal, named
        print(f"esp-coredump refused the dump: {e}")
        return 1
    core = ESPCoreDumpElfFile(loader.core_elf_file)

    def memory(addr, size):
        for seg in core.load_segments:
            if seg.addr <= addr and addr + size <= seg.addr + len(seg.data):
                return seg.data[addr - seg.addr : addr - seg.addr + size]
        return b""

    for seg in core.note_segments:
        for note in seg.note_secs:
            if note.name == b"CORE" and note.type == 1:
                head = PrStatus.parse(note.desc)
                regs = note.desc[PrStatus.sizeof() :]
                pc = struct.unpack_from("<I", regs, 0)[0]
                # xtensa_gregset: pc, ps, lbeg, lend, lcount, sar, windowstart, windowbase,
                # 56 reserved words, then a0..a63.
                a1 = struct.unpack_from("<I", regs, 4 * (64 + 1))[0]
                tcb = head.pr_pid
                name = memory(tcb + TCB_NAME, 16).split(b"\0")[0].decode(errors="replace")
                print(f"task 0x{tcb:08x} {name or '?'} pc=0x{pc:08x} sp=0x{a1:08x}")
            elif note.name == b"ESP_EXTRA_INFO":
                words = struct.unpack_from(f"<{len(note.desc) // 4}I", note.desc)
                print(f"crashed 0x{words[0]:08x}")
                # (special register number, value) pairs: EXCCAUSE is SR 232, EXCVADDR 238, EPC1 177.
                pairs = dict(zip(words[1::2], words[2::2]))
                print(f"exccause {pairs.get(232, 0)}")
                print(f"excvaddr 0x{pairs.get(238, 0):08x}")
                print(f"epc1 0x{pairs.get(177, 0):08x}")
            elif note.name == b"ESP_PANIC_DETAILS":
                print("panic " + note.desc.split(b"\0")[0].decode(errors="replace").strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())

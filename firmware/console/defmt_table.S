/*
 * The defmt table of console_defmt.c, as defmt's macros and linker script lay it out: one byte
 * per interned string in the non-allocated `.defmt` section, each symbol named by its JSON
 * description (defmt-decoder `elf2table/symbol.rs`: package, tag, data, disambiguator,
 * crate_name), so that the symbol's address is the string's index on the wire; plus the
 * `_defmt_version_ = 4` and `_defmt_encoding_ = rzcobs` marker symbols. `defmt_ids` gives the C
 * code the indices (the linker resolves them).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
    .syntax unified

    .section .defmt,"",%progbits
"{\"package\":\"tigris-firmware\",\"tag\":\"defmt_println\",\"data\":\"console_defmt: hello from defmt over RTT\",\"disambiguator\":\"1\",\"crate_name\":\"console_defmt\"}":
    .byte 0
    .section .defmt,"",%progbits
"{\"package\":\"tigris-firmware\",\"tag\":\"defmt_info\",\"data\":\"crc32 of {=u32} bytes is {=u32:#x}\",\"disambiguator\":\"2\",\"crate_name\":\"console_defmt\"}":
    .byte 0
    .section .defmt,"",%progbits
"{\"package\":\"tigris-firmware\",\"tag\":\"defmt_warn\",\"data\":\"{=i32} below zero, {=u8} of {=u16}, ratio {=f32}\",\"disambiguator\":\"3\",\"crate_name\":\"console_defmt\"}":
    .byte 0
    .section .defmt,"",%progbits
"{\"package\":\"tigris-firmware\",\"tag\":\"defmt_error\",\"data\":\"runs: {=u32} {=u32:#x} {=u32:#x}\",\"disambiguator\":\"4\",\"crate_name\":\"console_defmt\"}":
    .byte 0

    .globl "_defmt_version_ = 4"
    .set "_defmt_version_ = 4", 1
    .globl "_defmt_encoding_ = rzcobs"
    .set "_defmt_encoding_ = rzcobs", 1

    .section .rodata.defmt_ids,"a",%progbits
    .balign 4
    .globl defmt_ids
defmt_ids:
    .word "{\"package\":\"tigris-firmware\",\"tag\":\"defmt_println\",\"data\":\"console_defmt: hello from defmt over RTT\",\"disambiguator\":\"1\",\"crate_name\":\"console_defmt\"}"
    .word "{\"package\":\"tigris-firmware\",\"tag\":\"defmt_info\",\"data\":\"crc32 of {=u32} bytes is {=u32:#x}\",\"disambiguator\":\"2\",\"crate_name\":\"console_defmt\"}"
    .word "{\"package\":\"tigris-firmware\",\"tag\":\"defmt_warn\",\"data\":\"{=i32} below zero, {=u8} of {=u16}, ratio {=f32}\",\"disambiguator\":\"3\",\"crate_name\":\"console_defmt\"}"
    .word "{\"package\":\"tigris-firmware\",\"tag\":\"defmt_error\",\"data\":\"runs: {=u32} {=u32:#x} {=u32:#x}\",\"disambiguator\":\"4\",\"crate_name\":\"console_defmt\"}"

/* Entry for call0-ABI test firmware: stack, call run_all, BREAK 1,15 with the result in a2. */
    .section .text.start, "ax"
    .global _start
    .type   _start, @function
    .literal_position
    .align 4
_start:
    movi    a1, _stack_top
    call0   run_all
    break   1, 15
    .size   _start, . - _start

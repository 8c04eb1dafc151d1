/* A level-1 interrupt handler for the device programs (tigris-sim, GPL-2.0-or-later), entered from
 * the kernel exception vector (start_windowed.S -DKERNEL_HANDLER=name; PS.UM = 0, EXCM = 0). It
 * saves a2-a4 (a2 then points at the save area), counts the interrupt in irq_count (the new count
 * in a4), runs the program's body and returns. The body calls nothing: EXCM is set, so a window
 * exception cannot be taken. */
#include <stdint.h>

#define REG(a) (*(volatile uint32_t *)(a))
#define STR(x) #x
#define XSTR(x) STR(x)

volatile uint32_t irq_count;
uint32_t irq_saved[3];

#define LEVEL1_HANDLER(name, body)                                                                 \
    __asm__("    .section .text." #name ", \"ax\"\n"                                              \
            "    .global " #name "\n"                                                             \
            "    .type   " #name ", @function\n"                                                  \
            "    .literal_position\n"                                                             \
            "    .align 4\n" #name ":\n"                                                          \
            "    wsr     a2, excsave1\n"                                                          \
            "    movi    a2, irq_saved\n"                                                         \
            "    s32i    a3, a2, 0\n"                                                             \
            "    s32i    a4, a2, 4\n"                                                             \
            "    movi    a3, irq_count\n"                                                         \
            "    l32i    a4, a3, 0\n"                                                             \
            "    addi    a4, a4, 1\n"                                                             \
            "    s32i    a4, a3, 0\n" body "    memw\n"                                           \
            "    l32i    a3, a2, 0\n"                                                             \
            "    l32i    a4, a2, 4\n"                                                             \
            "    rsr     a2, excsave1\n"                                                          \
            "    rfe\n"                                                                           \
            "    .size   " #name ", . - " #name "\n")

/* Enable CPU interrupt `line` and sleep in WAITI until `wanted` interrupts were counted. */
static inline uint32_t sleep_until_interrupts(uint32_t line, uint32_t wanted)
{
    uint32_t enable = 1u << line;
    __asm__ volatile("wsr %0, intenable\n rsync" : : "r"(enable));
    while (irq_count < wanted)
        __asm__ volatile("waiti 0");
    return irq_count;
}

/* The ESP32 core options ESP-DSP's platform headers test (ESP-IDF
 * components/xtensa/esp32/include/xtensa/config/core-isa.h: XCHAL_HAVE_FP, XCHAL_HAVE_LOOPS,
 * XCHAL_HAVE_MAC16 are 1 on the LX6 of the ESP32). */
#define XCHAL_HAVE_FP 1
#define XCHAL_HAVE_LOOPS 1
#define XCHAL_HAVE_MAC16 1

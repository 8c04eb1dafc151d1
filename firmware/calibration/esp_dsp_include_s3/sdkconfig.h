/* The ESP-IDF configuration ESP-DSP's platform headers read, for the ESP32-S3 build of its benchmark
 * (test_app/sdkconfig.defaults: CONFIG_COMPILER_OPTIMIZATION_PERF; the target: ESP32-S3, which
 * turns on the *_aes3_enabled switches). Searched before ../esp_dsp_include, whose core-isa.h
 * (FP, loops, MAC16: all present on the LX7 of the ESP32-S3 too) it shares. */
#define CONFIG_IDF_TARGET_ESP32S3 1
#define CONFIG_COMPILER_OPTIMIZATION_PERF 1
#define CONFIG_DSP_OPTIMIZED 1

/* The ESP-IDF configuration ESP-DSP's platform headers read, for the ESP32 build of its benchmark
 * (test_app/sdkconfig.defaults: CONFIG_COMPILER_OPTIMIZATION_PERF; the target: ESP32). */
#define CONFIG_IDF_TARGET_ESP32 1
#define CONFIG_COMPILER_OPTIMIZATION_PERF 1
#define CONFIG_DSP_OPTIMIZED 1

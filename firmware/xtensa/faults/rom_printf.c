/* ROM console test (tigris-sim, GPL-2.0-or-later): ets_printf at its ROM address (linked with
 * --defsym), which the simulator emulates (docs/esp-idf.md). */
int ets_printf(const char *fmt, ...);

int main(void)
{
    ets_printf("rom_printf: %d %u 0x%08x [%5s|%-4d|%c] %s\n", -42, 7u, 0xBEEFu, "ab", 3, 'Z', "done");
    ets_printf("rom_printf: many %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8);
    return 0;
}

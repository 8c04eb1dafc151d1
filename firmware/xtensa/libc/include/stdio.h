/* Minimal stdio for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later): output only, over SIMCALL. */
#ifndef TIGRIS_XT_STDIO_H
#define TIGRIS_XT_STDIO_H
#include <stdarg.h>
#include <stddef.h>
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int putchar(int c);
int puts(const char *s);
#endif

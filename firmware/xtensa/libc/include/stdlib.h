/* Minimal stdlib.h for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later). */
#ifndef TIGRIS_XT_STDLIB_H
#define TIGRIS_XT_STDLIB_H
#include <stddef.h>
void exit(int code) __attribute__((noreturn));
int abs(int v);
long labs(long v);
long strtol(const char *s, char **end, int base);
unsigned long strtoul(const char *s, char **end, int base);
int atoi(const char *s);
long atol(const char *s);
double strtod(const char *s, char **end);
float strtof(const char *s, char **end);
double atof(const char *s);
void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
#endif

/* Minimal stdlib.h for the Xtensa test firmware (tigris-sim, GPL-2.0-or-later). */
#ifndef TIGRIS_XT_STDLIB_H
#define TIGRIS_XT_STDLIB_H
#include <stddef.h>
void exit(int code) __attribute__((noreturn));
int abs(int v);
#endif

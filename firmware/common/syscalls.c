/*
 * tigris-sim test firmware: newlib system calls over ARM semihosting.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * stdout/stderr: SYS_WRITE (0x05) with the block {handle, buffer, length}
 *   on handle 1 (stdout) or 2 (stderr).  The simulator treats these as the
 *   console.  (Real debug probes and QEMU have no pre-opened handles; build
 *   with -DSEMIHOST_OPEN_TT to obtain the console handle with
 *   SYS_OPEN(":tt", "w") instead - only build.sh --qemu does that.)
 * exit:   SYS_EXIT_EXTENDED (0x20) with the block
 *   {ADP_Stopped_ApplicationExit (0x20026), exit code}.
 * heap:   _sbrk hands out memory between the end of .bss (__heap_start) and
 *   __heap_limit (the bottom of the stack reserve, see the linker scripts),
 *   and never past the current stack pointer.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "semihost.h"

#undef errno
extern int errno;

extern char __heap_start[];
extern char __heap_limit[];

#ifdef SEMIHOST_OPEN_TT
static uint32_t console_handle(int fd)
{
    static int32_t tt = -1;
    (void)fd;
    if (tt < 0) {
        static const char name[] = ":tt";
        uint32_t block[3] = { (uint32_t)(uintptr_t)name, 4u /* "w" */, 3u };
        tt = (int32_t)semihost_call(SYS_OPEN, block);
    }
    return (uint32_t)tt;
}
#else
static uint32_t console_handle(int fd) { return (uint32_t)fd; }
#endif

int _write(int fd, const char *buf, int len)
{
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    if (len <= 0)
        return 0;
    uint32_t block[3] = { console_handle(fd), (uint32_t)(uintptr_t)buf, (uint32_t)len };
    /* SYS_WRITE returns the number of bytes NOT written. */
    uint32_t left = semihost_call(SYS_WRITE, block);
    if (left > (uint32_t)len)
        left = (uint32_t)len;
    return len - (int)left;
}

void semihost_exit(int code)
{
    uint32_t block[2] = { ADP_Stopped_ApplicationExit, (uint32_t)code };
    for (;;)
        semihost_call(SYS_EXIT_EXTENDED, block);
}

void _exit(int code)
{
    semihost_exit(code);
}

void *_sbrk(ptrdiff_t incr)
{
    static char *brk = __heap_start;
    char *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    char *limit = __heap_limit < sp ? __heap_limit : sp;
    if ((incr >= 0 && (size_t)(limit - brk) < (size_t)incr) ||
        (incr < 0 && (size_t)(brk - __heap_start) < (size_t)-incr)) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *old = brk;
    brk += incr;
    return old;
}

int _read(int fd, char *buf, int len)
{
    (void)fd; (void)buf; (void)len;
    return 0;                   /* no console input: always end of file */
}

int _close(int fd)
{
    (void)fd;
    errno = EBADF;
    return -1;
}

int _fstat(int fd, struct stat *st)
{
    (void)fd;
    st->st_mode = S_IFCHR;      /* a character device: line-buffered stdio */
    return 0;
}

int _isatty(int fd)
{
    return fd >= 0 && fd <= 2;
}

int _lseek(int fd, int off, int whence)
{
    (void)fd; (void)off; (void)whence;
    errno = ESPIPE;
    return -1;
}

int _kill(int pid, int sig)
{
    (void)pid; (void)sig;
    errno = EINVAL;
    return -1;
}

int _getpid(void)
{
    return 1;
}

/* __libc_init_array calls these; there is nothing to run. */
void _init(void) {}
void _fini(void) {}

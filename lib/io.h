/* io.h — system-call helpers every layer uses: whole transfers that retry
 * EINTR and short reads and writes, the monotonic clock, and children
 * watched through pidfds. */
#ifndef TC_IO_H
#define TC_IO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* Return bytes moved (read: fewer only at EOF) or -errno. Async-signal-safe. */
ssize_t io_read_all(int fd, void *buf, size_t len);
ssize_t io_write_all(int fd, const void *buf, size_t len);

/* CLOCK_MONOTONIC in milliseconds. Async-signal-safe. */
int64_t io_now_ms(void);

/* A signal through a pidfd (0 or -errno). A child's pidfd comes from its
 * clone (sbx_fork_pidfd): pidfd_open is missing where CLONE_PIDFD is not. */
int io_pidfd_kill(int pidfd, int sig);

/* Reaps the child behind pidfd: 1 when it has ended (*si, and *ru unless
 * NULL, filled), 0 when it still runs (only when !block), -errno. Retries
 * EINTR. */
int io_pidfd_reap(int pidfd, bool block, siginfo_t *si, struct rusage *ru);

/* What execve's ENOENT meant for path (relative to dirfd): -1 when no
 * regular file is there (it is missing); 1 when one is that starts with
 * "#!", the interpreter its line names copied to interp (at most n - 1
 * bytes, the file's own text: show it before printing it); 0 when one is
 * without it, a program whose loader (ELF interpreter) is missing. */
int io_exec_missing(int dirfd, const char *path, char *interp, size_t n);

/* Where execvp would find prog (a name without '/') in path (a PATH
 * value): 0 with the first entry's file that is a regular, executable one
 * copied to full (n bytes); EACCES when only files that are not
 * executable are there; ENOENT when none is; -1 when a relative entry
 * (looked up from the cwd) comes before any: it cannot be told from here. */
int io_path_find(const char *path, const char *prog, char *full, size_t n);

#endif

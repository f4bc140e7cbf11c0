/* io.h — system-call helpers every layer uses: whole transfers that retry
 * EINTR and short reads and writes, and the monotonic clock. */
#ifndef TC_IO_H
#define TC_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Return bytes moved (read: fewer only at EOF) or -errno. Async-signal-safe. */
ssize_t io_read_all(int fd, void *buf, size_t len);
ssize_t io_write_all(int fd, const void *buf, size_t len);

/* CLOCK_MONOTONIC in milliseconds. Async-signal-safe. */
int64_t io_now_ms(void);

#endif

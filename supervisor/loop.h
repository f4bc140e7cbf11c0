/* loop.h — the supervisor's one event loop: epoll over file descriptors,
 * monotonic timers, and signals (signalfd). Single-threaded; callbacks run
 * from loop_run_once() only. In the spirit of redis' ae.c: small and
 * explicit.
 *
 * Invariants: at most one registration per fd; a callback may add or
 * remove any registration or timer, including its own, and may free the
 * data of a removed one (the loop does not touch a removed entry's data
 * after its removal).
 */
#ifndef TC_LOOP_H
#define TC_LOOP_H

#include <stdbool.h>
#include <stdint.h>

struct loop;
struct loop_timer;

typedef void (*loop_fd_fn)(struct loop *l, int fd, uint32_t events, void *data);
typedef void (*loop_timer_fn)(struct loop *l, void *data);
typedef void (*loop_signal_fn)(struct loop *l, int signo, void *data);

/* Returns a new loop, or NULL (errno set). */
struct loop *loop_new(void);
/* Frees the loop; pending timers are dropped without being called. */
void loop_free(struct loop *l);

/* Watches fd for events (EPOLLIN, EPOLLOUT ...). 0 or -errno. */
int loop_add_fd(struct loop *l, int fd, uint32_t events, loop_fd_fn fn, void *data);
int loop_mod_fd(struct loop *l, int fd, uint32_t events);
/* Stops watching fd (call before closing it). No-op when not watched. */
void loop_del_fd(struct loop *l, int fd);

/* Calls fn once at CLOCK_MONOTONIC time when_ms. Returns a handle valid
 * until the timer fires or is deleted, or NULL when out of memory. */
struct loop_timer *loop_add_timer(struct loop *l, int64_t when_ms, loop_timer_fn fn, void *data);
/* Cancels a timer that has not fired. NULL is a no-op. */
void loop_del_timer(struct loop *l, struct loop_timer *t);

/* Blocks sigs and delivers them through a signalfd to fn. 0 or -errno. */
int loop_add_signals(struct loop *l, const int *sigs, int n, loop_signal_fn fn, void *data);

/* Waits up to timeout_ms (-1: until the next timer or event) and runs the
 * callbacks that are due. Returns the number of callbacks run, or -errno. */
int loop_run_once(struct loop *l, int timeout_ms);

/* For a caller that waits with poll(2) on more than the loop (toolcage
 * exec): the loop's own fd, readable when a watched fd has events, and
 * the milliseconds until its next timer (-1: none). Then
 * loop_run_once(l, 0) runs what is due. */
int loop_fd(const struct loop *l);
int loop_next_timer_ms(const struct loop *l);

/* Makes loop_stopped() true; loop_run callers check it. */
void loop_stop(struct loop *l);
bool loop_stopped(const struct loop *l);

#endif

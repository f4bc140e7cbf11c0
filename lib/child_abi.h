/* child_abi.h — what a confined child and the programs it starts agree on:
 * the numbers of its descriptors, the size of its result and its exit
 * statuses when it never ran its job.
 *
 * The sandbox places the descriptors and exits with these statuses, the
 * supervisor's builtin harness writes the result and reads the statuses,
 * the built-in tools keep them from what they exec, `toolcage exec` passes
 * them on. One definition, here, because every one of those layers may use
 * lib/ and none of them may use another's header.
 */
#ifndef TC_CHILD_ABI_H
#define TC_CHILD_ABI_H

/* The child's descriptors: 0-2 as usual, then the result pipe when the job
 * asked for one (kept free otherwise); the sandbox's own channels (status,
 * job, Landlock ruleset, lifeline) come after it, close-on-exec. */
enum {
	CHILD_FD_STDIN = 0,
	CHILD_FD_STDOUT = 1,
	CHILD_FD_STDERR = 2,
	CHILD_FD_RESULT = 3, /* a builtin's result (close-on-exec there), or a
	                        * manifest tool's channel (its program's fd 3) */
	CHILD_FD_FIRST_FREE = 4,
	/* Handed connections: where a builtin's profile sends its network
	 * through toolcage but no network namespace can be made, the child
	 * gets CHILD_HANDED_MAX connected stream sockets at CHILD_FD_HANDED
	 * and up (close-on-exec), each the client end of a connection to
	 * toolcage's HTTP proxy, and can make no socket of its own. */
	CHILD_FD_HANDED = 4,
};

/* Connections handed to one call: the most http_fetch opens (its first
 * hop and each redirect it follows, one connection each). */
#define CHILD_HANDED_MAX 6
/* Set (to "1") in the environment of a child given handed connections. */
#define CHILD_HANDED_ENV "TOOLCAGE_HANDED_CONNECTIONS"

/* Bytes of a result the supervisor keeps from CHILD_FD_RESULT: more is an
 * error, and the child is killed (16 MiB). */
#define CHILD_RESULT_MAX (16u << 20)

/* A child's exit status when it did not finish its job itself. The first
 * three follow the shell (and env(1), timeout(1)): 127 no such program, 126
 * found but not runnable, 125 the runner itself failed. */
enum {
	CHILD_EXIT_HARNESS = 70,   /* the builtin's harness failed (sysexits' EX_SOFTWARE) */
	CHILD_EXIT_SETUP = 125,    /* a sandbox step failed, or the supervisor is gone */
	CHILD_EXIT_NOEXEC = 126,   /* execve failed: the program cannot run */
	CHILD_EXIT_NOTFOUND = 127, /* execve failed: no such program */
};

#endif

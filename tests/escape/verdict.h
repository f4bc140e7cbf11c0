/* verdict.h — shared helpers for the hostile programs of the escape suite.
 *
 * Every program in tests/escape/ tries one attack (chosen by argv[1] when a
 * file holds a small family) and prints exactly one line on stdout, last:
 *
 *     VERDICT <blocked|escaped|error> <attack-name> <short detail>
 *
 *   blocked  the attack failed as it must; the detail says how (EPERM, ...)
 *   escaped  the attack got through: a security failure (or, for the few
 *            "must work" checks the runner marks allowed, the expected result)
 *   error    the test itself could not run: a defect in the test
 *
 * A program killed by seccomp prints nothing; tests/escape/run.sh decides
 * whether a kill is an acceptable answer for that attack. Helpers here are
 * header-only (static) so each program stays one plain .c file built with
 * `cc -std=gnu11 -O1 -g -Wall` and no extra library.
 */
#ifndef TC_ESCAPE_VERDICT_H
#define TC_ESCAPE_VERDICT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>

/* The errno's name ("EPERM"), never a translated message: the runner and the
 * docs compare names. */
static inline const char *errname(int e)
{
	const char *n = strerrorname_np(e);
	static char buf[24];
	if (n)
		return n;
	snprintf(buf, sizeof buf, "errno%d", e);
	return buf;
}

/* Print the verdict line and exit. The detail is squeezed onto one line:
 * any control character becomes '_', so the runner's parser stays simple. */
__attribute__((format(printf, 3, 4), noreturn)) static void verdict(const char *what,
                                                                    const char *attack,
                                                                    const char *fmt, ...)
{
	char detail[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	for (char *p = detail; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '_';
	fflush(stdout);
	printf("\nVERDICT %s %s %s\n", what, attack, detail[0] ? detail : "-");
	fflush(stdout);
	_exit(0);
}

#define BLOCKED(a, ...) verdict("blocked", (a), __VA_ARGS__)
#define ESCAPED(a, ...) verdict("escaped", (a), __VA_ARGS__)
#define TESTERR(a, ...) verdict("error", (a), __VA_ARGS__)

/* The common shape: a call that must fail. rc < 0 (with errno) is blocked,
 * anything else got through. */
#define EXPECT_FAIL(a, rc, what)                                                                   \
	do {                                                                                       \
		long rc_ = (long)(rc);                                                             \
		if (rc_ < 0)                                                                       \
			BLOCKED((a), "%s: %s", (what), errname(errno));                            \
		ESCAPED((a), "%s succeeded (returned %ld)", (what), rc_);                          \
	} while (0)

/* Name this process (comm) so the runner can find leftovers from outside by
 * scanning /proc/[pid]/comm; TASK_COMM_LEN is 16 including the NUL. */
static inline void set_marker(const char *marker)
{
	if (marker && *marker)
		prctl(PR_SET_NAME, (unsigned long)marker, 0, 0, 0);
}

/* Parse a decimal argument, or report a test error. */
static inline long arg_long(const char *attack, const char *s)
{
	char *end;
	long v;

	if (!s)
		TESTERR(attack, "missing numeric argument");
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s)
		TESTERR(attack, "bad numeric argument '%s'", s);
	return v;
}

static inline const char *arg_str(const char *attack, int argc, char **argv, int i)
{
	if (i >= argc)
		TESTERR(attack, "missing argument %d", i);
	return argv[i];
}

/* Dispatch table for a family program: argv[1] names the attack. */
struct attack {
	const char *name;
	void (*run)(const char *name, int argc, char **argv); /* never returns */
};

static inline int run_attack(const struct attack *t, size_t n, int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "";
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0) {
			t[i].run(name, argc, argv);
			TESTERR(name, "attack returned without a verdict");
		}
	fprintf(stderr, "usage: %s ATTACK [ARG...]; attacks:", argv[0]);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", t[i].name);
	fprintf(stderr, "\n");
	TESTERR(name[0] ? name : "unknown", "unknown attack");
}

#define ATTACKS(table) run_attack((table), sizeof(table) / sizeof((table)[0]), argc, argv)

/* Dispatch for programs called as `PROG OP LABEL ARG...`, where the runner
 * picks the label printed in the verdict (one operation, many targets):
 * each operation sees argv[1] = LABEL, argv[2...] = its arguments. */
static inline int run_labeled(const struct attack *t, size_t n, int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s OP LABEL [ARG...]\n", argv[0]);
		TESTERR("usage", "missing operation or label");
	}
	const char *op = argv[1];
	argv[1] = argv[2];
	for (int i = 2; i + 1 < argc; i++)
		argv[i] = argv[i + 1];
	argc--;
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, op) == 0) {
			t[i].run(argv[1], argc, argv);
			TESTERR(argv[1], "operation returned without a verdict");
		}
	TESTERR(argv[1], "unknown operation %s", op);
}

#define LABELED(table) run_labeled((table), sizeof(table) / sizeof((table)[0]), argc, argv)

#endif

/* priv.c — privileges: no_new_privs, capabilities, securebits, setuid.
 *
 *   priv nnp              prctl(PR_GET_NO_NEW_PRIVS) must be 1
 *   priv caps             /proc/self/status: CapInh/Prm/Eff/Bnd/Amb all 0,
 *                         NoNewPrivs 1, Seccomp 2 (filter mode)
 *   priv securebits       SECBIT_NOROOT and its lock set, so an exec as
 *                         uid 0 grants no capabilities even if a bounding
 *                         set were left
 *   priv setuid_exec [BIN]
 *                         exec a setuid-root binary (default /bin/mount,
 *                         which lists mounts) with stdout on a full pipe so
 *                         it blocks while still running with whatever it
 *                         gained; read its /proc/PID/status: a euid other
 *                         than our uid, or any effective capability, is an
 *                         escape (no_new_privs must make setuid a no-op)
 *   priv plant_setuid DIR MARK [HOW]
 *                         create DIR/tc-escape-suid-MARK and chmod it 06755:
 *                         a setuid file left in a workspace the host can
 *                         see is a privilege gain for whoever runs it there
 *                         (removed again at once). HOW is the way the bits
 *                         are asked for: chmod (the default); fchmodat2
 *                         (syscall 452, Linux 6.6, newer than libseccomp
 *                         2.5's table, so a filter naming chmod calls alone
 *                         misses it); create (the bits in open's O_CREAT
 *                         mode, no chmod at all)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/securebits.h>
#include "verdict.h"

/* Copy the value of "Key:" from a /proc status file into out. */
static int status_field(const char *path, const char *key, char *out, size_t outlen)
{
	char line[256];
	size_t kl = strlen(key);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int found = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
			char *v = line + kl + 1;
			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = 0;
			snprintf(out, outlen, "%s", v);
			found = 0;
			break;
		}
	fclose(f);
	return found;
}

static void nnp(const char *a, int argc, char **argv)
{
	int r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (r == 1)
		BLOCKED(a, "no_new_privs is set");
	ESCAPED(a, "no_new_privs is %d (%s)", r, r < 0 ? errname(errno) : "not set");
}

static void caps(const char *a, int argc, char **argv)
{
	static const char *const zero[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
	char bad[300] = "", v[128];
	size_t used = 0;
	for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) {
		if (status_field("/proc/self/status", zero[i], v, sizeof v) < 0)
			TESTERR(a, "no %s in /proc/self/status", zero[i]);
		if (strspn(v, "0") != strlen(v))
			used += snprintf(bad + used, sizeof bad - used, " %s=%s", zero[i], v);
	}
	if (status_field("/proc/self/status", "NoNewPrivs", v, sizeof v) < 0 || strcmp(v, "1"))
		used += snprintf(bad + used, sizeof bad - used, " NoNewPrivs=%s", v);
	if (status_field("/proc/self/status", "Seccomp", v, sizeof v) < 0 || strcmp(v, "2"))
		used += snprintf(bad + used, sizeof bad - used, " Seccomp=%s", v);
	if (used)
		ESCAPED(a, "privileges left:%s", bad);
	BLOCKED(a, "all capability sets 0, NoNewPrivs 1, Seccomp 2");
}

static void securebits(const char *a, int argc, char **argv)
{
	int b = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (b < 0)
		BLOCKED(a, "PR_GET_SECUREBITS: %s", errname(errno));
	int need = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED;
	if ((b & need) == need)
		BLOCKED(a, "securebits 0x%x: noroot set and locked", b);
	ESCAPED(a, "securebits 0x%x: noroot not set and locked (defense in depth)", b);
}

static void setuid_exec(const char *a, int argc, char **argv)
{
	const char *bin = argc > 2 ? argv[2] : "/bin/mount";
	struct stat st;
	int p[2];

	if (stat(bin, &st) < 0)
		BLOCKED(a, "stat %s: %s (no setuid binary visible)", bin, errname(errno));
	if (!(st.st_mode & S_ISUID))
		BLOCKED(a, "%s is not setuid in this view (mode %o)", bin, st.st_mode & 07777);
	if (pipe2(p, O_CLOEXEC) < 0)
		TESTERR(a, "pipe: %s", errname(errno));
	/* Fill the pipe so the target blocks on its first write. */
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	static char junk[4096];
	while (write(p[1], junk, sizeof junk) > 0)
		;
	while (write(p[1], junk, 1) > 0)
		;
	fcntl(p[1], F_SETFL, 0);

	uid_t uid = getuid();
	pid_t c = fork();
	if (c < 0)
		TESTERR(a, "fork: %s", errname(errno));
	if (c == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execl(bin, bin, (char *)NULL);
		_exit(127);
	}
	char path[64], name[64] = "", state[64] = "", uids[128] = "", capeff[64] = "";
	snprintf(path, sizeof path, "/proc/%d/status", (int)c);
	for (int i = 0; i < 300; i++) { /* up to 3 s */
		usleep(10000);
		if (status_field(path, "Name", name, sizeof name) < 0)
			break;
		status_field(path, "State", state, sizeof state);
		if (state[0] == 'Z')
			break;
		/* Exec done (name changed) and blocked in the pipe write. */
		const char *base = strrchr(bin, '/') ? strrchr(bin, '/') + 1 : bin;
		if (strncmp(name, base, 15) == 0 && state[0] == 'S') {
			status_field(path, "Uid", uids, sizeof uids);
			status_field(path, "CapEff", capeff, sizeof capeff);
			break;
		}
	}
	kill(c, SIGKILL);
	int ws = 0;
	waitpid(c, &ws, 0);
	if (!uids[0]) {
		if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
			BLOCKED(a, "exec %s failed", bin);
		TESTERR(a, "could not observe %s while it ran (name '%s', state '%s')", bin, name,
		        state);
	}
	unsigned r = 0, e = 0;
	sscanf(uids, "%u %u", &r, &e);
	if (e != uid)
		ESCAPED(a, "%s ran with euid %u (ours %u)", bin, e, (unsigned)uid);
	if (strspn(capeff, "0") != strlen(capeff))
		ESCAPED(a, "%s ran with CapEff %s", bin, capeff);
	BLOCKED(a, "%s kept euid %u, CapEff 0", bin, e);
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* the same number on every architecture */
#endif

static void plant_setuid(const char *a, int argc, char **argv)
{
	const char *dir = arg_str(a, argc, argv, 2);
	const char *mark = arg_str(a, argc, argv, 3);
	const char *how = argc > 4 ? argv[4] : "chmod";
	bool create = !strcmp(how, "create"), at2 = !strcmp(how, "fchmodat2");
	if (!create && !at2 && strcmp(how, "chmod"))
		TESTERR(a, "unknown way '%s' (chmod, fchmodat2, create)", how);
	char path[512];
	struct stat st;
	snprintf(path, sizeof path, "%s/tc-escape-suid-%s", dir, mark);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, create ? 06755 : 0755);
	if (fd < 0)
		BLOCKED(a, "create %s: %s", path, errname(errno));
	close(fd);
	int rc = create ? 0 :
	        at2     ? (int)syscall(SYS_fchmodat2, AT_FDCWD, path, 06755, 0) :
	                  chmod(path, 06755);
	int e = errno;
	int got = stat(path, &st) == 0 ? (int)(st.st_mode & 06000) : 0;
	unlink(path);
	if (rc == 0 && got)
		ESCAPED(a, "planted a set%sid file owned by uid %u in %s (%s)",
		        (got & 04000) ? "u" : "g", (unsigned)st.st_uid, dir, how);
	if (create)
		BLOCKED(a, "open(O_CREAT, 06755) made the file without its set-id bits");
	if (rc < 0)
		BLOCKED(a, "%s 06755: %s", how, errname(e));
	BLOCKED(a, "%s accepted but the set-id bits did not stick", how);
}

int main(int argc, char **argv)
{
	static const struct attack t[] = {
		{ "nnp", nnp },
		{ "caps", caps },
		{ "securebits", securebits },
		{ "setuid_exec", setuid_exec },
		{ "plant_setuid", plant_setuid },
	};
	ATTACKS(t);
}

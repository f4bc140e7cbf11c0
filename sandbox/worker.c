/* worker.c — the worker's side (see zygote.c): a clean image of this
 * program that forks a jail's children on request and reaps them.
 *
 * It takes over before main (a constructor: any program linked with the
 * sandbox can be its own worker, with no call to make), reads the jail the
 * supervisor compiled, makes what all its children share (child.c:
 * child_enter_view), then loops: a request on the control socket brings a
 * child's descriptors, and the worker forks the child (child.c, from step
 * 1) as the supervisor's child (CLONE_PARENT: the supervisor reaps it and
 * its death kills it directly) and sends its pidfd back on the child's
 * status socket. It never sees a job: the child reads its own from the job
 * socket. So a child carries nothing but the jail and its own descriptors,
 * and a later call's child nothing of an earlier call.
 *
 * It is not dumpable (what a child starts cannot read it), it has its own
 * session without a terminal, and it dies with the supervisor. Control
 * socket EOF: it ends.
 *
 * Its code is copied into each child by the clone, not faulted in by the
 * child (see struct image_code).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "io.h"

enum { Z_CTL = 3, Z_BLOB = 4, Z_LIFELINE = 5, Z_JAIL = 6 };
#define BLOB_MAX (16u << 20)

bool worker_shares_view(const struct sbx_jail *j)
{
	unsigned shared = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWUTS;
	return (j->clone_ns & CLONE_NEWNS) && j->private_tmp && !(j->optional_ns & shared);
}

/* ---- the jail as bytes ------------------------------------------------ */

struct packer {
	char *buf;
	size_t len, cap;
	bool bad;
};

static void put(struct packer *p, const void *d, size_t n)
{
	if (p->bad || !n)
		return;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 4096;
		while (cap < p->len + n)
			cap *= 2;
		char *b = realloc(p->buf, cap);
		if (!b) {
			p->bad = true;
			return;
		}
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, d, n);
	p->len += n;
}

static void put_u32(struct packer *p, uint32_t v)
{
	put(p, &v, sizeof v);
}

static void put_str(struct packer *p, const char *s)
{
	put_u32(p, s ? (uint32_t)strlen(s) : UINT32_MAX);
	if (s)
		put(p, s, strlen(s));
}

static void put_strv(struct packer *p, char *const *v)
{
	uint32_t n = 0;
	while (v && v[n])
		n++;
	put_u32(p, v ? n : UINT32_MAX);
	for (uint32_t i = 0; i < n; i++)
		put_str(p, v[i]);
}

/* The jail by value, then what its pointers reach; its descriptors go in
 * *fds (workspace, /dev/null, the Landlock rules, then the directories the
 * hidden globs were matched in: mask_check), borrowed. What only the
 * supervisor uses (the watches' paths, what it saw of the protected
 * paths, the spare, the worker) is left out. */
int jail_pack(const struct sbx_jail *j, char **buf, size_t *len, int **fds, int *nfds)
{
	struct packer p = { 0 };
	put(&p, j, sizeof *j);
	put_str(&p, j->name);
	put_str(&p, j->workspace);
	put(&p, j->bpf, (size_t)j->bpf_len * sizeof *j->bpf);
	for (int i = 0; i < 2; i++)
		put(&p, j->part_bpf[i], (size_t)j->part_len[i] * sizeof *j->bpf);
	put(&p, j->rule_access, (size_t)j->n_rules * sizeof *j->rule_access);
	put(&p, j->ports, j->n_ports * sizeof *j->ports);
	put_strv(&p, j->rw_paths);
	for (int i = 0; i < j->n_masks; i++) {
		put_str(&p, j->masks[i].path);
		put(&p, &j->masks[i].dir, sizeof j->masks[i].dir);
	}
	put_strv(&p, j->envp);
	put_strv(&p, j->hidden);
	put_strv(&p, j->ll_roots);
	put(&p, j->ll_root_access, (size_t)j->n_ll_roots * sizeof *j->ll_root_access);
	put_strv(&p, j->prot_pins);
	put_strv(&p, j->prot_ro);
	for (int i = 0; i < j->n_mt; i++) {
		put_str(&p, j->mt[i].path);
		put_str(&p, j->mt[i].target);
		put_u32(&p, j->mt[i].flags);
	}
	put(&p, j->watch, (size_t)j->n_watch * sizeof *j->watch);
	int n_wfd = 0;
	for (int i = 0; i < j->n_watch; i++)
		n_wfd += j->watch[i].fd >= 0;
	*fds = malloc(sizeof(int) * (size_t)(2 + j->n_rules + n_wfd));
	if (p.bad || !*fds) {
		free(p.buf);
		free(*fds);
		*fds = NULL;
		return -ENOMEM;
	}
	(*fds)[0] = j->workspace_fd;
	(*fds)[1] = j->devnull_fd;
	for (int i = 0; i < j->n_rules; i++)
		(*fds)[2 + i] = j->rule_fds[i];
	*nfds = 2 + j->n_rules;
	for (int i = 0; i < j->n_watch; i++)
		if (j->watch[i].fd >= 0)
			(*fds)[(*nfds)++] = j->watch[i].fd;
	*buf = p.buf;
	*len = p.len;
	return 0;
}

struct unpacker {
	const char *p, *end;
	bool bad;
};

static void *take(struct unpacker *u, size_t n)
{
	if (u->bad || (size_t)(u->end - u->p) < n) {
		u->bad = true;
		return NULL;
	}
	void *d = malloc(n ? n : 1);
	if (!d) {
		u->bad = true;
		return NULL;
	}
	memcpy(d, u->p, n);
	u->p += n;
	return d;
}

static uint32_t take_u32(struct unpacker *u)
{
	uint32_t v = 0, *d = take(u, sizeof v);
	if (d)
		v = *d;
	free(d);
	return v;
}

static char *take_str(struct unpacker *u)
{
	uint32_t n = take_u32(u);
	if (n == UINT32_MAX || u->bad)
		return NULL;
	if ((size_t)(u->end - u->p) < n) {
		u->bad = true;
		return NULL;
	}
	char *s = strndup(u->p, n);
	if (!s || strlen(s) != n) { /* no NUL inside */
		free(s);
		u->bad = true;
		return NULL;
	}
	u->p += n;
	return s;
}

static char **take_strv(struct unpacker *u)
{
	uint32_t n = take_u32(u);
	if (n == UINT32_MAX || u->bad || n > 4096)
		return NULL;
	char **v = calloc((size_t)n + 1, sizeof *v);
	if (!v) {
		u->bad = true;
		return NULL;
	}
	for (uint32_t i = 0; i < n && !u->bad; i++)
		v[i] = take_str(u);
	return v;
}

int jail_unpack(const char *buf, size_t len, const int *fds, int nfds, struct sbx_jail **out)
{
	struct unpacker u = { .p = buf, .end = buf + len };
	struct sbx_jail *j = take(&u, sizeof *j);
	if (!j)
		return -EPROTO;
	if (j->n_rules < 0 || j->n_masks < 0 || j->n_rules + 2 > nfds || j->n_ports > 65536 ||
	    j->n_watch < 0 || j->n_watch > 4096 || j->n_ll_roots < 0 || j->n_ll_roots > 4096 ||
	    j->n_mt < 0 || j->n_mt > SBX_MAX_MOUNT_TREE) {
		free(j);
		return -EPROTO;
	}
	j->name = take_str(&u);
	j->workspace = take_str(&u);
	j->bpf = take(&u, (size_t)j->bpf_len * sizeof *j->bpf);
	for (int i = 0; i < 2; i++)
		j->part_bpf[i] = take(&u, (size_t)j->part_len[i] * sizeof *j->bpf);
	j->filter_spec = NULL;
	j->part_held = false;
	j->rule_access = take(&u, (size_t)j->n_rules * sizeof *j->rule_access);
	j->ports = take(&u, j->n_ports * sizeof *j->ports);
	j->rw_paths = take_strv(&u);
	j->masks = calloc((size_t)j->n_masks + 1, sizeof *j->masks);
	for (int i = 0; i < j->n_masks && j->masks && !u.bad; i++) {
		j->masks[i].path = take_str(&u);
		bool *d = take(&u, sizeof(bool));
		j->masks[i].dir = d && *d;
		free(d);
	}
	char **env = take_strv(&u);
	j->envp = env;
	/* The globs and the dirs granted entry by entry: its view holds
	 * overlays, or replicas, of those (landlock_replicate). */
	j->hidden = take_strv(&u);
	j->ll_roots = take_strv(&u);
	j->ll_root_access = take(&u, (size_t)j->n_ll_roots * sizeof *j->ll_root_access);
	size_t nr = 0;
	while (j->ll_roots && j->ll_roots[nr])
		nr++;
	if (nr != (size_t)j->n_ll_roots || (j->n_ll_roots && !j->ll_root_access))
		u.bad = true;
	j->prot_pins = take_strv(&u);
	j->prot_ro = take_strv(&u);
	j->prot_seen = NULL;
	if ((j->n_prot_pins && !j->prot_pins) || (j->n_prot_ro && !j->prot_ro))
		u.bad = true;
	j->mt = calloc((size_t)j->n_mt + 1, sizeof *j->mt);
	for (int i = 0; i < j->n_mt && j->mt && !u.bad; i++) {
		j->mt[i].path = take_str(&u);
		j->mt[i].target = take_str(&u);
		j->mt[i].flags = take_u32(&u);
		if (!j->mt[i].path)
			u.bad = true;
	}
	j->path = NULL;
	for (char **e = env; e && *e; e++)
		if (!strncmp(*e, "PATH=", 5))
			j->path = *e + 5;
	/* The watches as the supervisor saw them, each on the directory it
	 * saw (its descriptor), the descriptors after the rules'. */
	j->watch = calloc((size_t)j->n_watch + 1, sizeof *j->watch);
	int wfd = 2 + j->n_rules;
	for (int i = 0; i < j->n_watch && j->watch && !u.bad; i++) {
		struct mask_watch *w = take(&u, sizeof *w);
		if (w) {
			j->watch[i] = *w;
			j->watch[i].path = NULL;
			if (w->fd >= 0)
				j->watch[i].fd = wfd < nfds ? fds[wfd++] : -1;
		}
		free(w);
	}
	if (!j->watch || wfd != nfds)
		u.bad = true;
	j->spare = NULL;
	j->spare_epfd = -1;
	j->keep_spare = false;
	j->zygote = NULL;
	j->in_worker = true;
	j->ll_view = NULL; /* the supervisor's plan: landlock_replicate makes its own */
	j->rule_fds = malloc(sizeof(int) * (size_t)(j->n_rules + 1));
	if (u.bad || !j->name || !j->workspace || !j->bpf || !j->envp || !j->masks ||
	    !j->rule_fds || !j->mt)
		return -EPROTO; /* the worker exits: nothing to free */
	j->cap_rules = j->n_rules;
	j->workspace_fd = fds[0];
	j->devnull_fd = fds[1];
	for (int i = 0; i < j->n_rules; i++)
		j->rule_fds[i] = fds[2 + i];
	*out = j;
	return 0;
}

/* ---- the program's code, copied at each clone ------------------------ */

/* A clone copies no page-table entries of a file mapping that holds no
 * anonymous page: a worker's child faults in each 64 KiB window of the
 * program's code and read-only data it runs (~25 faults of a read_file
 * call's ~38), and on a paravirtualized VM a fault is dear. A mapping that
 * holds one has every present entry copied, into page tables the child
 * has not used yet. So the worker gives each read-only segment of the
 * program one anonymous page (a byte written back with its own value
 * through /proc/self/mem, as a debugger sets a breakpoint: no mapping is
 * ever writable, and the content does not change), and from its second
 * child on maps the segments ahead (MADV_POPULATE_READ, Linux 5.14): a
 * clone then copies ~700 entries and the child faults only on what it
 * writes. Where either is refused (no /proc, proc_mem.force_override=never)
 * children fault their code in, as before. Only the program image (the
 * whole program when static, the default): a dynamic build's libraries
 * fault as before.
 *
 * Better still, where the static program is linked with its segments on
 * 2 MiB boundaries (the Makefile's CLI_HUGE): each large read-only segment
 * becomes a copy in anonymous huge pages (code_to_huge_pages), which a
 * clone copies as one entry per 2 MiB and a child touches as one page. On
 * a VM that shadows page tables, the first touch of each 4 KiB page in a
 * new address space costs ~5 us even when its entry is present: a child
 * reading 4 MiB of 4 KiB pages spent ~4.3 ms, of huge pages ~35 us.
 * docs/performance.md has the figures. */
struct image_code {
	uintptr_t lo[8], hi[8];
	int prot[8];
	int n;
};

static int find_image(struct dl_phdr_info *o, size_t size, void *data)
{
	(void)size;
	struct image_code *c = data;
	uintptr_t self = (uintptr_t)find_image, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	int n = 0;
	bool ours = false;
	for (int i = 0; i < o->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &o->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t at = o->dlpi_addr + ph->p_vaddr;
		ours |= self >= at && self - at < ph->p_memsz;
		if ((ph->p_flags & PF_W) || !ph->p_memsz || n == 8)
			continue;
		c->lo[n] = at & ~(pg - 1);
		c->hi[n] = (at + ph->p_memsz + pg - 1) & ~(pg - 1);
		c->prot[n++] = PROT_READ | (ph->p_flags & PF_X ? PROT_EXEC : 0);
	}
	if (ours)
		c->n = n;
	return ours;
}

/* At the start, while the worker is still dumpable (its /proc/self/mem
 * is its own user's): the anonymous page of each segment. */
static void image_code_find(struct image_code *c)
{
	c->n = 0;
	dl_iterate_phdr(find_image, c);
	int mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	for (int i = 0; i < c->n; i++) {
		char b = *(volatile const char *)c->lo[i];
		if (mem < 0 || pwrite(mem, &b, 1, (off_t)c->lo[i]) != 1)
			c->n = 0;
	}
	if (mem >= 0)
		close(mem);
}

#define HUGE_PAGE (2ul << 20)
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA           0x53564d41 /* Linux 5.17 */
#define PR_SET_VMA_ANON_NAME 0
#endif

/* [at, at + len) mapped with no access, if nothing was there: true when
 * it was (an older kernel than 4.17 takes the address as a hint, and may
 * map it elsewhere: undone). What is held is let go by the mremap that
 * moves the copy over it. */
static bool hold_free(void *at, size_t len)
{
	void *p =
	        mmap(at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != at && p != MAP_FAILED)
		munmap(p, len);
	return p == at;
}

/* The segment [lo, end) replaced, at the same address and with the same
 * bytes and protection, by a copy in anonymous huge pages: true when it
 * was. Only a segment that starts on a 2 MiB boundary and fills a
 * quarter of one at least (a smaller one would not repay the 2 MiB); the
 * rest of its last huge page, up to the boundary, must be free (held
 * first with MAP_FIXED_NOREPLACE, so nothing of ours is mapped over) and
 * reads as zeros. The copy is made aside, then moved over the segment
 * in one mremap: the code running it reads the same bytes before and
 * after. Where the kernel gives no huge page (THP off), the copy is an
 * anonymous one in 4 KiB pages, which a clone copies entry by entry as
 * image_code_map's would. */
static bool code_to_huge_pages(uintptr_t lo, uintptr_t end, int prot)
{
	uintptr_t hi = (end + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	size_t len = hi - lo;
	if ((lo & (HUGE_PAGE - 1)) || end - lo < HUGE_PAGE / 4)
		return false;
	if (hi > end && !hold_free((void *)end, hi - end))
		return false;
	char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	                 -1, 0);
	if (raw == MAP_FAILED)
		return false;
	char *at = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1));
	if (at > raw)
		munmap(raw, (size_t)(at - raw));
	munmap(at + len, (size_t)(raw + HUGE_PAGE - at));
	(void)madvise(at, len, MADV_HUGEPAGE);
	memcpy(at, (const void *)lo, end - lo);
	(void)madvise(at, len, MADV_COLLAPSE); /* where the fault got none */
	if (mprotect(at, len, prot) < 0 ||
	    mremap(at, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) != (void *)lo) {
		munmap(at, len);
		return false;
	}
	(void)prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, lo, len,
	            (unsigned long)(prot & PROT_EXEC ? "toolcage code" : "toolcage rodata"));
	return true;
}

/* Before the second child: a one-shot call (toolcage call) has one
 * child, which would not repay copying or mapping 3 MiB. */
static void image_code_map(struct image_code *c)
{
	for (int i = 0; i < c->n; i++)
		if (!code_to_huge_pages(c->lo[i], c->hi[i], c->prot[i]))
			(void)madvise((void *)c->lo[i], c->hi[i] - c->lo[i], MADV_POPULATE_READ);
}

/* ---- the worker ------------------------------------------------------- */

struct worker {
	struct sbx_jail *jail;
	struct image_code code;
	int forked;
	bool view_failed;            /* a step of child_enter_view failed: */
	struct child_report failure; /* each child asked for gets it */
	bool retiring;
};

static void report(int fd, const struct child_report *r, int pass_fd)
{
	(void)io_send_fds(fd, r, sizeof *r, &pass_fd, pass_fd >= 0 ? 1 : 0);
}

/* The request's descriptors (and the child's pidfd) once the child has
 * its own: recvmsg gave them the lowest free numbers, so they are mostly
 * runs of consecutive numbers, each closed by one close_range (~6 system
 * calls fewer per child). Sorts fds. */
static void close_fds(int *fds, int n)
{
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && fds[k - 1] > fds[k]; k--) {
			int t = fds[k];
			fds[k] = fds[k - 1];
			fds[k - 1] = t;
		}
	for (int i = 0; i < n;) {
		int k = i + 1;
		while (k < n && fds[k] == fds[k - 1] + 1)
			k++;
		if (k - i == 1 || syscall(SYS_close_range, fds[i], fds[k - 1], 0) < 0)
			for (int m = i; m < k; m++)
				close(fds[m]);
		i = k;
	}
}

/* fds: as struct zygote_request says (n in all). The child is the
 * supervisor's (CLONE_PARENT): it dies with the supervisor (PDEATHSIG, and
 * the supervisor's lifeline, which we hold for it), and the supervisor
 * reaps it; we only send its pidfd and forget it. */
static void fork_child(struct worker *w, const struct zygote_request *req, int *fds, int n)
{
	struct child_plan plan = {
		.jail = w->jail,
		.stdin_fd = fds[0],
		.stdout_fd = fds[1],
		.stderr_fd = fds[2],
		.result_fd = fds[3],
		.status_fd = fds[4],
		.job_fd = fds[5],
		.lifeline_fd = Z_LIFELINE,
		.lifeline_wr = -1,
		.view_wr = -1,
		.cgroup_fds = { -1, -1, -1, -1 },
		.signals_default = true,
	};
	struct cgroup_join cj = { .clone_fd = -1, .v2_fd = -1, .fds = { -1, -1, -1 } };
	int at = ZYGOTE_FIXED_FDS;
	for (uint32_t i = 0; i < req->n_cgroup_fds; i++)
		plan.cgroup_fds[i] = cj.fds[i] = fds[at++];
	if (req->cgroup_v2 & ZYGOTE_CG_CLONE)
		cj.clone_fd = fds[at++];
	if (req->cgroup_v2 & ZYGOTE_CG_PROCS)
		cj.v2_fd = fds[at++];
	if (req->handed)
		plan.handed_fds = fds + at;
	int pidfd = -1;
	if (w->forked++ == 1)
		image_code_map(&w->code);
	if (w->view_failed) {
		report(fds[4], &w->failure, -1);
	} else {
		pid_t pid = spawn_clone(w->jail, &plan, false, CLONE_PARENT, &pidfd, &cj);
		if (pid < 0)
			report(fds[4],
			       &(struct child_report){
			               .kind = REPORT_STEP, .step = STEP_CLONE, .err = errno },
			       -1);
		else
			report(fds[4],
			       &(struct child_report){ .kind = REPORT_STARTED,
			                               .pid = pid,
			                               .clone_ns = jail_ns(w->jail) },
			       pidfd);
	}
	if (pidfd >= 0)
		fds[n++] = pidfd; /* room: take_request's array has one more */
	close_fds(fds, n);
}

static void take_request(struct worker *w)
{
	struct zygote_request req;
	int fds[ZYGOTE_MAX_FDS + 1], n = 0; /* + the child's pidfd (fork_child) */
	ssize_t len = io_recv_fds(Z_CTL, &req, sizeof req, fds, ZYGOTE_MAX_FDS, &n, 0);
	if (len == 0 || (len < 0 && len != -EMSGSIZE && len != -EINTR)) {
		w->retiring = true; /* the supervisor is done with us */
		return;
	}
	if (len != (ssize_t)sizeof req || req.magic != ZYGOTE_MAGIC ||
	    req.n_cgroup_fds > SBX_CGROUP_FDS || (req.cgroup_v2 & ~3u) || req.handed > 1 ||
	    req.home > 1 ||
	    n !=
	            ZYGOTE_FIXED_FDS + (int)req.n_cgroup_fds + !!(req.cgroup_v2 & ZYGOTE_CG_CLONE) +
	                    !!(req.cgroup_v2 & ZYGOTE_CG_PROCS) +
	                    (req.handed ? CHILD_HANDED_MAX : 0)) {
		for (int i = 0; i < n; i++)
			close(fds[i]);
		return;
	}
	home_follow(w->jail, req.home);
	fork_child(w, &req, fds, n);
}

static int read_blob(struct sbx_jail **jail)
{
	struct stat st;
	if (fstat(Z_BLOB, &st) < 0 || st.st_size <= 0 || (uint64_t)st.st_size > BLOB_MAX)
		return -EPROTO;
	char *buf = malloc((size_t)st.st_size);
	if (!buf || io_read_all(Z_BLOB, buf, (size_t)st.st_size) != st.st_size)
		return -EPROTO;
	close(Z_BLOB);
	int fds[2 + 4096], nfds = 0;
	for (int fd = Z_JAIL; nfds < (int)(sizeof fds / sizeof fds[0]); fd++, nfds++) {
		struct stat fst;
		if (fstat(fd, &fst) < 0)
			break;
		fds[nfds] = fd;
	}
	int rc = jail_unpack(buf, (size_t)st.st_size, fds, nfds, jail);
	free(buf);
	return rc;
}

/* The worker's part of the seccomp filter, loaded once for all its
 * children (seccomp.c): each child then loads the child's part alone, a
 * third of the whole. The worker makes none of the calls its part
 * refuses. Where it cannot be loaded, each child loads the whole. */
static void hold_filter(struct sbx_jail *j)
{
	if (!j->part_len[0] || !j->part_len[1])
		return;
	/* The core limit every child keeps: the part refuses a change of it
	 * (seccomp.c: add_core_limit_rules), the child's own included. */
	for (int i = 0; i < j->n_rlimits; i++)
		if (j->rlimits[i].resource == RLIMIT_CORE &&
		    setrlimit(RLIMIT_CORE, &j->rlimits[i].lim) < 0)
			return;
	struct sock_fprog prog = { .len = j->part_len[0], .filter = j->part_bpf[0] };
	j->part_held = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == 0;
}

_Noreturn void worker_main(int lifeline)
{
	struct worker w = { 0 };
	image_code_find(&w.code);
	/* Nothing of ours for what a child starts to read. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_NAME, (unsigned long)"tc-worker", 0, 0, 0);
	struct pollfd lp = { .fd = lifeline, .events = POLLIN };
	if (poll(&lp, 1, 0) > 0 && (lp.revents & (POLLHUP | POLLERR)))
		_exit(CHILD_EXIT_SETUP); /* the supervisor died before our PDEATHSIG was armed */
	if (read_blob(&w.jail) < 0)
		_exit(CHILD_EXIT_SETUP);
	home_keep(w.jail); /* its children inherit it (home.c) */
	/* What its children share, made once: see child_enter_view. Not
	 * where a namespace it would enter is optional (a refusal would be
	 * the kernel's answer for each child, handled at each clone). */
	struct sbx_jail *j = w.jail;
	if (worker_shares_view(j) && child_enter_view(j, &w.failure) < 0)
		w.view_failed = true;
	/* Without a view of its own, each child makes its mounts, and the
	 * dirs that hold hidden paths need the rules made entry by entry
	 * (where the supervisor planned an overlay instead). */
	struct sbx_error lerr;
	if (!j->view_ready && !w.view_failed && landlock_expand(j, &lerr) < 0) {
		w.failure = (struct child_report){ .kind = REPORT_STEP,
			                           .step = STEP_LANDLOCK_RULES,
			                           .err = lerr.errnum };
		w.view_failed = true;
	}
	/* A uid change there (root without CAP_SYS_ADMIN) cleared PDEATHSIG. */
	if (j->root_userns) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (poll(&lp, 1, 0) > 0 && (lp.revents & (POLLHUP | POLLERR)))
			_exit(CHILD_EXIT_SETUP);
	}
	/* What the supervisor ignored is ignored after the exec too: every
	 * disposition goes back to the default once, here, with an empty
	 * mask, so that a child has nothing to reset (~60 sigactions fewer
	 * per child). SIGPIPE too: everything the worker sends goes with
	 * MSG_NOSIGNAL (io_send_fds). */
	child_reset_signals();
	hold_filter(j);
	struct pollfd pf[2] = { { .fd = Z_CTL, .events = POLLIN },
		                { .fd = lifeline, .events = POLLIN } };
	while (!w.retiring) {
		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[1].revents)
			_exit(CHILD_EXIT_SETUP); /* the supervisor is gone */
		if (pf[0].revents)
			take_request(&w);
	}
	_exit(0);
}

/* Takes over before main when this process was started as a worker
 * (zygote.c): glibc passes a constructor the program's arguments. */
__attribute__((constructor)) static void worker_enter(int argc, char **argv)
{
	if (argc == 2 && argv && argv[1] && !strcmp(argv[1], WORKER_ARG))
		worker_main(Z_LIFELINE);
}

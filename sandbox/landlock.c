/* landlock.c — builds a jail's Landlock ruleset once, in the parent; a child
 * only calls landlock_restrict_self() on it (child.c).
 *
 * Debian 12's <linux/landlock.h> stops at ABI 2, so the structures and
 * constants up to ABI 6 are defined here (values from the kernel's uapi
 * header, Documentation/userspace-api/landlock.rst).
 *
 * Landlock only adds access, it cannot carve a hole out of a granted tree.
 * To hide a secret inside a readable system dir (/etc/shadow is readable by
 * its owner, root, even without capabilities) a child with a mount
 * namespace shows the dir as a view of its own, granted whole (view.c:
 * planned here, made by the worker or the child), or, where none can be
 * made, gets the secret covered by a mount (mask.c) and the dir granted
 * entry by entry, skipping the hidden ones (see add_tree): a mount covers a
 * name, and the host can take it off (renaming a new /etc/shadow over the
 * old one, as passwd does, detaches every mount on the old one, in every
 * namespace), while a rule names an inode, so the new file has none.
 * Without a mount namespace, the rules alone. Which paths are hidden, or
 * hold hidden ones: hidden.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net; /* ABI 4 */
	uint64_t scoped;             /* ABI 6 */
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH      1
#define LL_RULE_NET_PORT          2

#define FS_EXECUTE          (1ULL << 0)
#define FS_WRITE_FILE       (1ULL << 1)
#define FS_READ_FILE        (1ULL << 2)
#define FS_READ_DIR         (1ULL << 3)
#define FS_REMOVE_DIR       (1ULL << 4)
#define FS_REMOVE_FILE      (1ULL << 5)
#define FS_MAKE_CHAR        (1ULL << 6)
#define FS_MAKE_DIR         (1ULL << 7)
#define FS_MAKE_REG         (1ULL << 8)
#define FS_MAKE_SOCK        (1ULL << 9)
#define FS_MAKE_FIFO        (1ULL << 10)
#define FS_MAKE_BLOCK       (1ULL << 11)
#define FS_MAKE_SYM         (1ULL << 12)
#define FS_REFER            (1ULL << 13) /* ABI 2 */
#define FS_TRUNCATE         (1ULL << 14) /* ABI 3 */
#define FS_IOCTL_DEV        (1ULL << 15) /* ABI 5 */
#define NET_BIND_TCP        (1ULL << 0)  /* ABI 4 */
#define NET_CONNECT_TCP     (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL        (1ULL << 1)

#define FS_READ      (FS_READ_FILE | FS_READ_DIR)
#define FS_FILE_ONLY (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define FS_WRITE                                                                                   \
	(FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_DIR | FS_MAKE_REG |              \
	 FS_MAKE_SYM | FS_MAKE_FIFO | FS_MAKE_SOCK | FS_REFER | FS_TRUNCATE)

/* Devices every program may open: reads and writes, no ioctls. */
static const char *const dev_files[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL,
};

int landlock_abi(void)
{
	static int abi = -1;
	if (abi < 0) {
		long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
		abi = v < 0 ? 0 : (int)v;
	}
	return abi;
}

/* Keeps fd (taken) as a rule for the children to add. is_dir: 1 yes, 0 no,
 * -1 unknown (then fstat tells, unless the rights are all files' rights,
 * which a file and a directory keep alike). */
static int add_fd_rule_typed(struct ll_ctx *c, int fd, int is_dir, uint64_t access,
                             const char *path)
{
	struct sbx_jail *j = c->j;
	struct stat st;
	if (is_dir < 0 && !(access & ~FS_FILE_ONLY))
		is_dir = 0;
	if (is_dir < 0) {
		if (fstat(fd, &st) < 0) {
			close(fd);
			return sbx_err(c->err, errno, "landlock: stat %s", path);
		}
		is_dir = S_ISDIR(st.st_mode);
	}
	if (!is_dir)
		access &= FS_FILE_ONLY;
	access &= c->handled;
	if (!access) {
		close(fd);
		return 0;
	}
	int rc = jail_fds_room(j, path, c->err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	if (j->n_rules == j->cap_rules) {
		int cap = j->cap_rules ? j->cap_rules * 2 : 64;
		int *fds = realloc(j->rule_fds, (size_t)cap * sizeof *fds);
		if (fds)
			j->rule_fds = fds;
		uint64_t *acc = fds ? realloc(j->rule_access, (size_t)cap * sizeof *acc) : NULL;
		if (!acc) {
			close(fd);
			return sbx_err(c->err, ENOMEM, "landlock rules");
		}
		j->rule_access = acc;
		j->cap_rules = cap;
	}
	j->rule_fds[j->n_rules] = fd;
	j->rule_access[j->n_rules++] = access;
	return 0;
}

static int add_fd_rule(struct ll_ctx *c, int fd, uint64_t access, const char *path)
{
	return add_fd_rule_typed(c, fd, -1, access, path);
}

/* A path that does not exist (no /lib32 here) grants nothing. Rights that
 * are all files' rights need no type (the devices); otherwise most paths
 * are directories: opened as one, the open says so and no fstat is needed
 * (one system call fewer each); anything else is opened again and its
 * type read from the descriptor, as before. */
static int add_path(struct ll_ctx *c, const char *path, uint64_t access)
{
	bool any_type = !(access & ~FS_FILE_ONLY);
	int fd = open(path, O_PATH | O_CLOEXEC | (any_type ? 0 : O_DIRECTORY));
	if (fd >= 0 && !any_type)
		return add_fd_rule_typed(c, fd, 1, access, path);
	if (fd < 0 && errno == ENOTDIR && !any_type)
		fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ?
		        0 :
		        sbx_err(c->err, errno, "landlock: open %s", path);
	return add_fd_rule(c, fd, access, path);
}

static int add_tree(struct ll_ctx *c, const char *path, uint64_t access, int depth);

/* A link is granted as its target: the target must not be, or hold, a
 * hidden path either. fd is the link opened (followed): the kernel names
 * what it reached, one call where realpath(3) takes one per component;
 * realpath where /proc is not there to ask (or names an unlinked file). */
static bool link_leads_to_hidden(struct ll_ctx *c, int fd, const char *path)
{
	char real[PATH_MAX];
	if (fd_path(fd, real))
		return hidden_relation(c, real) != 0;
	return !realpath(path, real) || hidden_relation(c, real) != 0;
}

/* A dir holding hidden paths, to be granted entry by entry at the end. */
static int add_root(struct ll_ctx *c, const char *path, uint64_t access)
{
	struct sbx_jail *j = c->j;
	char **roots = realloc(j->ll_roots, (size_t)(j->n_ll_roots + 2) * sizeof *roots);
	if (roots)
		j->ll_roots = roots;
	uint64_t *acc = roots ?
	        realloc(j->ll_root_access, (size_t)(j->n_ll_roots + 1) * sizeof *acc) :
	        NULL;
	if (acc)
		j->ll_root_access = acc;
	char *p = acc ? strdup(path) : NULL;
	if (!p)
		return sbx_err(c->err, ENOMEM, "landlock rules");
	j->ll_root_access[j->n_ll_roots] = access;
	j->ll_roots[j->n_ll_roots++] = p;
	j->ll_roots[j->n_ll_roots] = NULL;
	return 0;
}

/* Grants a directory holding hidden paths entry by entry. Entries are
 * opened relative to the directory and typed by d_type: this runs for every
 * jail (every `toolcage exec`), over ~150 entries of /etc. */
static int add_dir_entries(struct ll_ctx *c, const char *path, uint64_t access, int depth)
{
	/* The dir itself gets no rule: any right on it would be inherited by
	 * the hidden entries too (even listing would name what a hidden
	 * directory holds). So it cannot be listed; its other entries can be
	 * opened by name. Where masks cover the hidden paths, it may be
	 * listed: a masked directory lists empty, a masked file lists as a
	 * name, and no rule lets either be read. */
	int rc = c->masked && (access & FS_READ_DIR) ? add_path(c, path, FS_READ_DIR) : 0;
	int dfd = rc ? -1 : open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return rc ?
		        rc :
		        (errno == ENOENT ? 0 : sbx_err(c->err, errno, "landlock: list %s", path));
	}
	struct dirent *e;
	char child[PATH_MAX];
	while (rc == 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(child, sizeof child, "%s/%s", strcmp(path, "/") ? path : "",
		                     e->d_name) >= sizeof child)
			continue;
		int rel = hidden_relation(c, child);
		if (rel == 1)
			continue;
		if (rel == 2 || e->d_type == DT_UNKNOWN) {
			rc = add_tree(c, child, access, depth + 1);
			continue;
		}
		int fd = openat(dfd, e->d_name, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue; /* dangling link, or gone meanwhile: grants nothing */
		if (e->d_type == DT_LNK && link_leads_to_hidden(c, fd, child)) {
			close(fd);
			continue;
		}
		rc = add_fd_rule_typed(c, fd,
		                       e->d_type == DT_DIR         ? 1 :
		                               e->d_type == DT_LNK ? -1 :
		                                                     0,
		                       access, child);
	}
	closedir(d);
	return rc;
}

static int add_tree(struct ll_ctx *c, const char *path, uint64_t access, int depth)
{
	int rel = hidden_relation(c, path);
	if (rel == 1 || depth > 16)
		return 0;
	/* Without hidden paths in view (none, or masks cover them: a link
	 * to one leads to the mask) a link needs no look. */
	struct stat st;
	/* Only a directory holds anything: a pattern in a middle component
	 * (key.pem in any directory of /etc) matches files too (/etc/passwd),
	 * which are granted whole, as a link to one is. */
	bool known = c->hidden && lstat(path, &st) == 0;
	if (known && S_ISLNK(st.st_mode)) {
		int fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			return 0; /* dangling: grants nothing */
		bool hidden = link_leads_to_hidden(c, fd, path);
		struct stat target;
		if (!hidden && (rel != 2 || (fstat(fd, &target) == 0 && !S_ISDIR(target.st_mode))))
			return add_fd_rule(c, fd, access, path); /* the link's target */
		close(fd);
		if (hidden)
			return 0;
	} else if (rel == 2 && known && !S_ISDIR(st.st_mode)) {
		return add_path(c, path, access);
	}
	if (rel == 2 && c->defer && depth == 0)
		return add_root(c, path, access);
	if (rel == 2)
		return add_dir_entries(c, path, access, depth);
	return add_path(c, path, access);
}

/* Grants the deferred dirs entry by entry, their rules from
 * ll_expand_from on. */
static int expand_roots(struct ll_ctx *c)
{
	struct sbx_jail *j = c->j;
	j->ll_expand_from = j->n_rules;
	int rc = 0;
	for (int i = 0; i < j->n_ll_roots && !rc; i++)
		rc = add_dir_entries(c, j->ll_roots[i], j->ll_root_access[i], 0);
	return rc;
}

static int add_list(struct ll_ctx *c, const char *const *paths, uint64_t access,
                    const char *const *exec)
{
	for (size_t i = 0; paths && paths[i]; i++) {
		uint64_t a = access;
		for (size_t k = 0; exec && exec[k]; k++)
			if (!strcmp(exec[k], paths[i]))
				a |= FS_EXECUTE;
		int rc = add_tree(c, paths[i], a, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* Which access rights this kernel handles, and whether what the spec needs
 * can be had: a required feature the ABI lacks fails closed. */
static int negotiate(const struct sbx_spec *spec, int abi, struct ll_ruleset_attr *attr,
                     size_t *size, struct sbx_jail *j, struct sbx_error *err)
{
	attr->handled_access_fs = (FS_MAKE_SYM << 1) - 1; /* ABI 1 */
	if (abi >= 2)
		attr->handled_access_fs |= FS_REFER;
	if (abi >= 3)
		attr->handled_access_fs |= FS_TRUNCATE;
	*size = sizeof attr->handled_access_fs;
	if (abi >= 5) {
		attr->handled_access_fs |= FS_IOCTL_DEV;
	} else if (!(spec->optional & SBX_REQ_LANDLOCK_IOCTL)) {
		return sbx_err(err, ENOTSUP,
		               "profile %s needs Landlock ABI 5 (device ioctl "
		               "rules, Linux 6.10); this kernel has ABI %d; fix: "
		               "Linux 6.10 or later",
		               spec->name, abi);
	} else {
		j->dropped |= SBX_REQ_LANDLOCK_IOCTL;
	}
	if (abi >= 4) {
		attr->handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
		*size = offsetof(struct ll_ruleset_attr, scoped);
	} else if (!(spec->optional & SBX_REQ_LANDLOCK_NET)) {
		return sbx_err(err, ENOTSUP,
		               "profile %s needs Landlock ABI 4 (TCP port rules, "
		               "Linux 6.7); this kernel has ABI %d; fix: Linux 6.7 "
		               "or later",
		               spec->name, abi);
	} else {
		j->dropped |= SBX_REQ_LANDLOCK_NET;
	}
	if (abi >= 6) {
		attr->scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
		*size = sizeof *attr;
	} else if (!(spec->optional & SBX_REQ_LANDLOCK_SCOPE)) {
		return sbx_err(err, ENOTSUP,
		               "profile %s needs Landlock ABI 6 (signal and "
		               "abstract socket scoping, Linux 6.12); this kernel has ABI %d; "
		               "fix: Linux 6.12 or later",
		               spec->name, abi);
	} else {
		j->dropped |= SBX_REQ_LANDLOCK_SCOPE;
	}
	return 0;
}

static int add_fixed_rules(struct ll_ctx *c, const struct sbx_spec *spec, struct sbx_jail *j)
{
	uint64_t ws = (spec->workspace_read ? FS_READ : 0) |
	        (spec->workspace_write ? FS_READ | FS_WRITE : 0) |
	        (spec->workspace_exec ? FS_READ | FS_EXECUTE : 0);
	int rc = 0;
	if (ws) {
		int fd = fcntl(j->workspace_fd, F_DUPFD_CLOEXEC, 3);
		rc = fd < 0 ? sbx_err(c->err, errno, "dup workspace") :
		              add_fd_rule_typed(c, fd, 1, ws, j->workspace); /* O_DIRECTORY */
	}
	for (size_t i = 0; !rc && dev_files[i]; i++)
		rc = add_path(c, dev_files[i], FS_READ_FILE | FS_WRITE_FILE);
	/* The child adds these for its own fresh mounts. */
	j->tmp_access = (FS_READ | FS_WRITE) & c->handled;
	j->proc_access = FS_READ & c->handled;
	if (!rc && spec->n_tcp_connect_ports && !(j->dropped & SBX_REQ_LANDLOCK_NET)) {
		j->ports = malloc(spec->n_tcp_connect_ports * sizeof *j->ports);
		if (!j->ports)
			return sbx_err(c->err, ENOMEM, "landlock ports");
		memcpy(j->ports, spec->tcp_connect_ports,
		       spec->n_tcp_connect_ports * sizeof *j->ports);
		j->n_ports = spec->n_tcp_connect_ports;
	}
	return rc;
}

/* No Landlock, and a mount tree for the filesystem (mounttree.c): what only
 * Landlock can say must be optional in the profile, and is dropped. */
static int without_landlock(const struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	static const struct {
		unsigned bit;
		const char *what;
	} only[] = {
		{ SBX_REQ_LANDLOCK_NET, "TCP port rules" },
		{ SBX_REQ_LANDLOCK_SCOPE, "signal and abstract socket scoping" },
		{ SBX_REQ_LANDLOCK_IOCTL, "device ioctl rules" },
	};
	for (size_t i = 0; i < sizeof only / sizeof only[0]; i++) {
		if (!(spec->optional & only[i].bit))
			return sbx_err(err, ENOTSUP,
			               "profile %s needs Landlock's %s, which a "
			               "mount tree cannot stand in for; this kernel has no "
			               "Landlock: it is older than Linux 5.13, or was booted "
			               "without landlock in lsm=; fix: add landlock to lsm= on "
			               "the kernel command line (cat /sys/kernel/security/lsm "
			               "lists the current ones)",
			               spec->name, only[i].what);
		j->dropped |= only[i].bit;
	}
	return 0;
}

static int settle_roots(struct ll_ctx *c);

int landlock_build(const struct sbx_spec *spec, struct sbx_jail *j, struct sbx_error *err)
{
	j->landlock = false;
	int abi = landlock_abi();
	if (abi < 1 && !j->mount_tree) {
		if (spec->optional & SBX_REQ_LANDLOCK) {
			j->dropped |= SBX_REQ_LANDLOCK | SBX_REQ_LANDLOCK_NET |
			        SBX_REQ_LANDLOCK_SCOPE | SBX_REQ_LANDLOCK_IOCTL;
			return 0;
		}
		return sbx_err(err, ENOTSUP,
		               "profile %s needs Landlock, which this kernel "
		               "does not offer: it is older than Linux 5.13, or was booted "
		               "without landlock in lsm=; fix: add landlock to lsm= on the kernel "
		               "command line (cat /sys/kernel/security/lsm lists the current "
		               "ones)",
		               spec->name);
	}
	struct ll_ctx c = { .j = j, .hidden = spec->hidden_paths, .err = err };
	if (hidden_relation(&c, j->workspace))
		return sbx_err(err, EACCES,
		               "workspace %s is or holds a hidden path of "
		               "profile %s",
		               j->workspace, spec->name);
	/* A tool may rename what it can write: a directory that holds a
	 * masked path would take the mask along, and the secret would lie
	 * open under the new name for the next call. */
	for (size_t i = 0; spec->write_paths && spec->write_paths[i]; i++)
		if (hidden_relation(&c, spec->write_paths[i]))
			return sbx_err(err, EACCES,
			               "write path %s is or holds a hidden path of "
			               "profile %s",
			               spec->write_paths[i], spec->name);
	if (abi < 1)
		return without_landlock(spec, j, err);
	c.masked = c.defer = j->mask_hidden; /* mounts cover them too (mask.c) */
	struct ll_ruleset_attr attr = { 0 };
	size_t size;
	int rc = negotiate(spec, abi, &attr, &size, j, err);
	if (rc)
		return rc;
	c.handled = attr.handled_access_fs;
	j->ll_attr[0] = attr.handled_access_fs;
	j->ll_attr[1] = attr.handled_access_net;
	j->ll_attr[2] = attr.scoped;
	j->ll_attr_size = size;
	const char *const *exec = spec->exec_paths;
	rc = add_list(&c, spec->read_paths, FS_READ, exec);
	if (!rc)
		rc = add_list(&c, spec->write_paths, FS_READ | FS_WRITE, exec);
	for (size_t i = 0; !rc && exec && exec[i]; i++)
		if (!in_list(spec->read_paths, exec[i]) && !in_list(spec->write_paths, exec[i]))
			rc = add_tree(&c, exec[i], FS_READ | FS_EXECUTE, 0);
	if (!rc)
		rc = add_fixed_rules(&c, spec, j);
	c.defer = false;
	j->ll_expand_from = j->n_rules;
	if (!rc)
		rc = settle_roots(&c);
	if (rc)
		return rc;
	j->landlock = true;
	return 0;
}

/* A context for a jail already built (its hidden globs as the jail keeps
 * them, the rights its kernel handles), for what is made again later. */
static struct ll_ctx jail_ctx(struct sbx_jail *j, struct sbx_error *err)
{
	return (struct ll_ctx){ .j = j,
		                .handled = j->ll_attr[0],
		                .hidden = (const char *const *)j->hidden,
		                .err = err,
		                .masked = j->mask_hidden };
}

/* The rules of the dirs granted entry by entry (from ll_expand_from on)
 * dropped. */
static void drop_expanded(struct sbx_jail *j)
{
	for (; j->n_rules > j->ll_expand_from; j->n_rules--)
		close(j->rule_fds[j->n_rules - 1]);
}

/* After the masks were made again (mask_refresh: a directory they were
 * matched in changed), the dirs granted entry by entry are planned again
 * too: a file the host replaced there is a new inode, which the old rules
 * do not name (so a call could not read a new /etc/passwd), a new secret
 * must not get one, and a new mount beneath /etc is not in the old plan. */
int landlock_refresh(struct sbx_jail *j, struct sbx_error *err)
{
	if (!j->landlock || !j->n_ll_roots)
		return 0;
	struct ll_ctx c = jail_ctx(j, err);
	int rc = settle_roots(&c);
	j->ll_stale = rc < 0; /* fewer rules meanwhile: nothing more granted */
	return rc;
}

/* The dirs granted entry by entry (from ll_expand_from on): an overlay of
 * each planned for the view (where there are masks: a mount namespace is
 * the child's, or the worker's; not for a jail whose children went on to
 * the rules, spawn.c), else their entries' rules. What there was of
 * either before goes. */
static int settle_roots(struct ll_ctx *c)
{
	struct sbx_jail *j = c->j;
	drop_expanded(j);
	view_free(j->ll_view);
	j->ll_view = NULL;
	if (j->n_ll_roots && j->mask_hidden && !j->mount_tree && !j->view_made_here)
		j->ll_view = view_plan(c);
	return j->ll_view ? 0 : expand_roots(c);
}

int landlock_expand(struct sbx_jail *j, struct sbx_error *err)
{
	view_free(j->ll_view);
	j->ll_view = NULL;
	if (!j->landlock || !j->n_ll_roots || j->n_rules > j->ll_expand_from)
		return 0;
	struct ll_ctx c = jail_ctx(j, err);
	int rc = expand_roots(&c);
	if (rc < 0) /* none half made */
		drop_expanded(j);
	return rc;
}

int landlock_replicate(struct sbx_jail *j)
{
	if (!j->landlock || !j->n_ll_roots)
		return 0;
	struct sbx_error err;
	struct ll_ctx c = jail_ctx(j, &err);
	int rc = view_replicate(&c);
	if (rc)
		return landlock_expand(j, &err);
	/* One rule per view instead of the rules made entry by entry, if
	 * the supervisor made them (it planned no overlay). */
	drop_expanded(j);
	for (int i = 0; i < j->n_ll_roots && !rc; i++)
		rc = add_path(&c, j->ll_roots[i], j->ll_root_access[i]);
	return rc;
}

void landlock_release(struct sbx_jail *j)
{
	view_free(j->ll_view);
	j->ll_view = NULL;
	for (int i = 0; i < j->n_rules; i++)
		close(j->rule_fds[i]);
	free(j->rule_fds);
	free(j->rule_access);
	free(j->ports);
	for (int i = 0; i < j->n_ll_roots; i++)
		free(j->ll_roots[i]);
	free(j->ll_roots);
	free(j->ll_root_access);
	j->ll_roots = NULL;
	j->ll_root_access = NULL;
	j->n_ll_roots = 0;
	j->rule_fds = NULL;
	j->rule_access = NULL;
	j->ports = NULL;
	j->n_rules = 0;
}

static int add_mount_rule(int rs, const char *path, uint64_t access)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct ll_path_beneath_attr a = { .allowed_access = access, .parent_fd = fd };
	long r = syscall(SYS_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &a, 0);
	int e = errno;
	close(fd);
	return r < 0 ? -e : 0;
}

/* Child side (async-signal-safe: system calls on prepared data only). */
int landlock_child_ruleset(const struct sbx_jail *j, int call_tmp_fd)
{
	struct ll_ruleset_attr attr = { j->ll_attr[0], j->ll_attr[1], j->ll_attr[2] };
	long rs = syscall(SYS_landlock_create_ruleset, &attr, j->ll_attr_size, 0);
	if (rs < 0)
		return -errno;
	int rc = 0;
	for (int i = 0; i < j->n_rules && !rc; i++) {
		struct ll_path_beneath_attr a = { .allowed_access = j->rule_access[i],
			                          .parent_fd = j->rule_fds[i] };
		if (syscall(SYS_landlock_add_rule, (int)rs, LL_RULE_PATH_BENEATH, &a, 0) < 0)
			rc = -errno;
	}
	for (size_t i = 0; i < j->n_ports && !rc; i++) {
		struct ll_net_port_attr a = { .allowed_access = NET_CONNECT_TCP,
			                      .port = j->ports[i] };
		if (syscall(SYS_landlock_add_rule, (int)rs, LL_RULE_NET_PORT, &a, 0) < 0)
			rc = -errno;
	}
	/* A shared view's /tmp and /proc hold nothing of the call's (child.c,
	 * seal_shared_view): neither is granted. */
	if (!rc && j->private_tmp && !j->share_view)
		rc = add_mount_rule((int)rs, j->tmp_dir, j->tmp_access);
	if (!rc && j->private_proc && !j->share_view)
		rc = add_mount_rule((int)rs, "/proc", j->proc_access);
	/* The overlays this child made (landlock_view_apply), whole. */
	for (int i = 0; j->ll_view && i < j->n_ll_roots && !rc; i++)
		rc = add_mount_rule((int)rs, j->ll_roots[i], j->ll_root_access[i] & j->ll_attr[0]);
	if (!rc && call_tmp_fd >= 0) { /* the call's own directory (ladder.c) */
		struct ll_path_beneath_attr a = { .allowed_access = j->tmp_access,
			                          .parent_fd = call_tmp_fd };
		if (syscall(SYS_landlock_add_rule, (int)rs, LL_RULE_PATH_BENEATH, &a, 0) < 0)
			rc = -errno;
	}
	if (rc) {
		close((int)rs);
		return rc;
	}
	return (int)rs;
}

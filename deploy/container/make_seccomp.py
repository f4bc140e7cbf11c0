#!/usr/bin/env python3
"""deploy/container/make_seccomp.py — writes seccomp.json beside it: a
container seccomp profile (Docker, podman, Kubernetes Localhost) under which
toolcage builds every wall its own way.

Container runtimes' default profiles refuse namespaces and mounts to a
container without CAP_SYS_ADMIN; toolcage needs them (a user namespace and,
in it, pid, mount and uts namespaces, mounts, pivot_root), and Landlock. This
profile allows every system call this architecture's kernel headers name
except those below, which neither toolcage nor most workloads need and which
reach the kernel or the host (the same spirit as the runtimes' defaults).
Anything else (a call newer than the headers) gets ENOSYS, so libc falls
back as it does on an older kernel. toolcage's own filter, per call, is far
narrower: this one only lets it build its walls.

usage: python3 deploy/container/make_seccomp.py [UNISTD_64_H [OUT]]
(OUT defaults to seccomp.json beside this script.)
"""
import json
import os
import re
import sys

DENY = {
    # the machine: clock, modules, kexec, reboot, swap, accounting, quotas
    "acct", "clock_adjtime", "clock_settime", "settimeofday", "adjtimex",
    "create_module", "init_module", "finit_module", "delete_module",
    "get_kernel_syms", "query_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "quotactl", "quotactl_fd", "syslog",
    "vhangup", "iopl", "ioperm", "_sysctl", "sysfs", "ustat", "uselib",
    "nfsservctl", "lookup_dcookie",
    # other processes' memory
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise",
    "kcmp", "pidfd_getfd",
    # large attack surface
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
    "request_key", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "fanotify_init", "open_by_handle_at", "name_to_handle_at",
    "move_pages", "mbind", "set_mempolicy", "get_mempolicy",
    "set_mempolicy_home_node", "migrate_pages",
    # joining namespaces the container did not make
    "setns",
    # reserved or unimplemented entries of the table
    "afs_syscall", "getpmsg", "putpmsg", "security", "tuxcall", "vserver",
}


def main():
    header = sys.argv[1] if len(sys.argv) > 1 else "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"
    names = sorted({m.group(1) for m in re.finditer(r"#define __NR_(\w+)\s+\d+", open(header).read())})
    allow = [n for n in names if n not in DENY]
    prof = {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": 38,
        "archMap": [{"architecture": "SCMP_ARCH_X86_64",
                     "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]}],
        "syscalls": [
            {"names": allow, "action": "SCMP_ACT_ALLOW"},
            {"names": sorted(DENY & set(names)), "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
        ],
    }
    out = sys.argv[2] if len(sys.argv) > 2 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "seccomp.json")
    with open(out, "w") as f:
        json.dump(prof, f, indent=1)
        f.write("\n")
    print("%s: %d allowed, %d refused" % (out, len(allow), len(DENY & set(names))))


if __name__ == "__main__":
    main()

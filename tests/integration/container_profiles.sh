#!/bin/sh
# tests/integration/container_profiles.sh — the container settings shipped
# for full walls (deploy/container/): seccomp.json is what make_seccomp.py
# writes from this machine's kernel headers, lets toolcage make its
# namespaces, mounts, Landlock rulesets and filters, and still refuses what
# reaches the kernel or other processes (ptrace, bpf, keyctl, modules,
# kexec, setns, file handles, io_uring ...); the AppArmor profile parses
# (apparmor_parser, without loading it: this kernel may have no AppArmor)
# and allows mounts and pivot_root while denying /proc/sys and /sys writes.
# (make test-image runs toolcage check under seccomp.json in podman.)
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
dir=$repo/deploy/container
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

hdr=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
if [ "$(uname -m)" = x86_64 ] && [ -f "$hdr" ]; then
	python3 "$dir/make_seccomp.py" "$hdr" "$tmp/seccomp.json" > /dev/null &&
		cmp -s "$tmp/seccomp.json" "$dir/seccomp.json" &&
		echo "ok   seccomp.json is what make_seccomp.py writes from $hdr" ||
		fail "seccomp.json differs from make_seccomp.py's output (run it and commit)"
else
	echo "info no x86_64 kernel headers here: seccomp.json not regenerated"
fi

python3 - "$dir/seccomp.json" <<'PYEOF' || fails=$((fails + 1))
import json, sys
p = json.load(open(sys.argv[1]))
bad = []
if p.get("defaultAction") != "SCMP_ACT_ERRNO":
    bad.append("the default is %r, not an error" % p.get("defaultAction"))
allow, deny = set(), set()
for r in p["syscalls"]:
    if r.get("args") or r.get("includes") or r.get("excludes"):
        bad.append("a conditional rule: %s" % r["names"][:3])
    (allow if r["action"] == "SCMP_ACT_ALLOW" else deny).update(r["names"])
if allow & deny:
    bad.append("both allowed and refused: %s" % sorted(allow & deny))
need = ["unshare", "clone", "clone3", "mount", "umount2", "pivot_root", "chroot",
        "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
        "seccomp", "prctl", "capset", "setrlimit", "prlimit64", "pidfd_open",
        "pidfd_send_signal", "execve", "execveat", "mount_setattr", "open_tree",
        "move_mount"]
bad += ["toolcage needs %s, not allowed" % n for n in need if n not in allow]
refuse = ["ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
          "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
          "request_key", "init_module", "finit_module", "delete_module",
          "kexec_load", "kexec_file_load", "reboot", "swapon", "setns",
          "open_by_handle_at", "name_to_handle_at", "io_uring_setup",
          "clock_settime", "syslog", "acct", "quotactl"]
bad += ["%s is allowed" % n for n in refuse if n in allow or n not in deny]
for b in bad:
    print("FAIL seccomp.json: " + b)
if bad:
    sys.exit(1)
print("ok   seccomp.json: %d calls allowed (toolcage's %d among them), %d refused, "
      "the rest ENOSYS" % (len(allow), len(need), len(deny)))
PYEOF

aa=$dir/apparmor
for rule in 'mount,' 'pivot_root,' 'umount,' 'deny @{PROC}/sys/\*\* wklx,' 'deny /sys/kernel/security/\*\* rwklx,'; do
	grep -q "^  $rule\$" "$aa" || fail "the AppArmor profile lacks '$rule'"
done
grep -q '^profile toolcage-container ' "$aa" || fail "the AppArmor profile is not named toolcage-container"
if ! command -v apparmor_parser > /dev/null 2>&1; then
	[ $fails -eq 0 ] || exit 1
	echo "skip: apparmor_parser is missing (apt-get install apparmor): the profile was not parsed"
	exit 77
fi
if apparmor_parser -Q -K -T "$aa" > "$tmp/aa.out" 2>&1; then
	echo "ok   the AppArmor profile parses (apparmor_parser $(apparmor_parser --version | sed -n '1s/.* //p'))"
else
	fail "apparmor_parser: $(grep -v 'Cache read/write disabled' "$tmp/aa.out" | head -3)"
fi
# The parser catches a broken rule (this check can fail).
sed "s/^  pivot_root,\$/  pivot_rot,/" "$aa" > "$tmp/broken"
apparmor_parser -Q -K -T "$tmp/broken" > /dev/null 2>&1 &&
	fail "apparmor_parser accepted a broken profile: the parse proves nothing"
[ $fails -eq 0 ] || exit 1
echo "container profiles: ok"

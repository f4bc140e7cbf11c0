#!/bin/sh
# spare_allow_list.sh — a worker's child (`toolcage exec --spare`, the
# spares of `serve`) under a profile whose seccomp filter refuses the
# calls the child makes while it waits for its job (reading it, /dev/null
# onto stdin, RLIMIT_AS, telling a failure): an allow list
# (`"default": "errno"` or `"kill"`) that leaves them out, a kill or deny
# list that names one. The child must take its job and run the tool
# under the whole filter, as a fresh child does: same output, same
# status, and a call the filter refuses still refused (EPERM). A static
# program is the tool: it needs nothing the list leaves out to start.
# Exit 0 pass, 77 skip (the reason is the last line), 1 fail.
set -u
[ "$(uname -m)" = x86_64 ] || { echo "skip: the allow lists name x86_64 calls"; exit 77; }
. tests/lib/sandbox_test.sh; sandbox_test spare-allow
profiles=$(pwd)/profiles
# Writes "hi", then the errno of getppid (0: it went through).
cat > "$tmp/hi.c" <<'EOF'
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	char msg[] = "hi getppid=000\n";
	long r = syscall(SYS_getppid);
	int e = r < 0 ? errno : 0;
	msg[11] = (char)('0' + e / 100 % 10);
	msg[12] = (char)('0' + e / 10 % 10);
	msg[13] = (char)('0' + e % 10);
	return write(1, msg, sizeof msg - 1) == (ssize_t)sizeof msg - 1 ? 0 : 3;
}
EOF
cc -static -O1 -o "$tmp/ws/hi" "$tmp/hi.c" 2>/dev/null ||
	{ echo "skip: cc cannot link a static program here"; exit 77; }
chmod 755 "$tmp/ws" "$tmp/ws/hi"

# profile NAME DEFAULT ALLOW KILL DENY: read-only with these seccomp lists,
# programs of the workspace allowed.
profile() {
	python3 - "$profiles/read-only.json" "$tmp/$1.json" "$@" <<'EOF'
import json, sys
src, out, name, default, allow, kill, deny = sys.argv[1:]
p = json.load(open(src))
p["name"] = name
p["filesystem"]["workspace_exec"] = True
p["seccomp"] = {"default": default, "allow": allow.split(), "kill": kill.split(),
                "deny": deny.split()}
json.dump(p, open(out, "w"))
EOF
	chmod 644 "$tmp/$1.json"
}
# What the static program needs, nothing a worker's child needs to wait.
needs="execve brk arch_prctl set_tid_address set_robust_list rseq prlimit64 readlink readlinkat
getrandom mprotect write exit_group"
profile errno errno "$needs" "" "" || { echo "FAIL no profile could be written"; exit 1; }
profile kill kill "$needs getppid" "" "" || exit 1
profile kill_dup2 allow "" "dup2" "getppid" || exit 1
profile deny_read allow "" "" "read getppid" || exit 1

# An ASan build's own child code calls its runtime (sigaltstack, mmap)
# after the filter is loaded, fresh or spare: an allow list written for
# the tool alone refuses those. The lists that refuse by name still run.
names="errno kill kill_dup2 deny_read"
if ldd "$TC" 2>/dev/null | grep -q libasan; then
	names="kill_dup2 deny_read"
	echo "note: an ASan build: the allow-list profiles (errno, kill) are not run"
fi
fails=0
for name in $names; do
	case $name in kill) want="hi getppid=000" ;; *) want="hi getppid=001" ;; esac
	for how in fresh spare; do
		flag=; [ $how = spare ] && flag=--spare
		out=$("$TC" exec $flag --profile "$tmp/$name.json" --workspace "$tmp/ws" -- ./hi \
			2>"$tmp/err")
		rc=$?
		if [ $rc -ne 0 ] || [ "$out" != "$want" ]; then
			echo "FAIL $name $how: status $rc, stdout '$out' (want '$want'), stderr:"
			sed 's/^/  /' "$tmp/err"
			fails=$((fails + 1))
		fi
	done
done
[ $fails -eq 0 ] || exit 1
echo "ok: a worker's child takes its job under every filter a fresh child runs under"

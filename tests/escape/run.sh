#!/bin/bash
# tests/escape/run.sh — the escape suite runner.
#
# Runs every hostile program of tests/escape/ (built into $BUILD/escape/)
# inside `toolcage exec`, under every profile, as root and as uid 65534, and
# checks from outside what a program cannot see itself (the victim process
# is alive, nothing lingers after the call, nothing appeared in the host
# /tmp, toolcage's memory stayed bounded under an output flood). The
# expectation of each (attack, profile) sits in one table below.
#
#   sh tests/escape/run.sh              the suite (make test runs this)
#   sh tests/escape/run.sh --self-test  run a subset unconfined and check
#                                       each attack does get through there
#   options: --only REGEX (attacks to run), --profiles "read-only write",
#            --ids "root nobody", -v (print every row, not just failures),
#            --spare (every run through `toolcage exec --spare`: the child
#            set up ahead that the supervisor hands repeated calls to)
#
# Exit: 0 every attack blocked everywhere (and every "must work" check
# worked); 1 anything escaped, errored or a check failed; 77 when the
# sandbox cannot run here at all (the reason is the last line).
# Environment: BUILD (default build), TOOLCAGE (default $BUILD/toolcage),
# TC_ESCAPE_TIMEOUT_MS (the deadline of attacks that end by themselves,
# default 5000: the kernel matrix's emulated CPU needs more).
# Needs bash, python3 (to read toolcage's JSON), setpriv (for uid 65534).
# `make test` calls it with sh: the runner needs bash (arrays, [[ ]]).
[ -z "${BASH_VERSION:-}" ] && exec bash "$0" "$@"
set -u
export LC_ALL=C

BUILD=${BUILD:-build}
# The deadline of attacks that must end by themselves, and how long a run
# may take before it counts as hung: longer on a slow machine (the kernel
# matrix's emulated CPU runs a setuid exec past 5 s).
ATTACK_TIMEOUT_MS=${TC_ESCAPE_TIMEOUT_MS:-5000}
HANG_S=$((ATTACK_TIMEOUT_MS / 1000 * 2 + 50))
TOOLCAGE=${TOOLCAGE:-$(pwd)/$BUILD/toolcage}
ESC=$(cd "$BUILD/escape" 2>/dev/null && pwd) || { echo "no $BUILD/escape: run make first"; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PY=$(command -v python3) || { echo "python3 is needed to read toolcage's JSON"; exit 1; }

MODE=suite ONLY= PROFILES="read-only write network destructive" IDS= VERBOSE=0 SPARE=
while [ $# -gt 0 ]; do
	case $1 in
	--self-test) MODE=self ;;
	--only) ONLY=$2; shift ;;
	--profiles) PROFILES=$2; shift ;;
	--ids) IDS=$2; shift ;;
	--spare) SPARE=--spare ;;
	-v) VERBOSE=1 ;;
	*) echo "unknown option $1"; exit 2 ;;
	esac
	shift
done
if [ "$(id -u)" = 0 ]; then IDS=${IDS:-"root nobody"}; else IDS=${IDS:-"user"}; fi
# No profile (the kernel matrix passes those `toolcage check` says it can
# enforce, which may be none) is a failure said as one, not zero runs.
[ -n "${PROFILES// /}" ] || { echo "no profiles to run (--profiles is empty)"; exit 1; }
[ $MODE = self ] && IDS=root

# ---------------------------------------------------------------------------
# The table: one row per attack. Columns: the expectation under read-only,
# write, network, destructive; flags; the program and its arguments.
#   B  must be blocked (verdict blocked, or a kill the flags accept)
#   A  must work (a control: proves the sandbox is not blocking everything,
#      or the profile grants it); a "blocked" verdict here is a failure
#   -  either is fine (the profile may allow it)
#   n  not run under this profile (a slow attack the other profiles share)
# Flags (comma separated, "-" for none):
#   k       a seccomp kill counts as blocked (no verdict line then)
#   t       a kill by deadline, signal or limit counts as blocked
#   to=N    --timeout-ms N (default 5000)
#   victim  afterwards the victim must be alive and neither stopped nor traced
#   tmp     afterwards nothing named for this run exists in the host /tmp,
#           /var/tmp or /dev/shm
#   udp     afterwards the host UDP listener must not have the run's token
#   flood   toolcage must end with killed_by output_limit or truncated
#           output, its max RSS under $FLOOD_RSS_KB
#   killsup toolcage itself is SIGKILLed mid-run; the tool must die too
#   nullmeta afterwards the host's /dev/null has the ctime it had before
#           (no chmod, chown, utimes or xattr change of it)
#   made    while the tool runs, a host process makes files in @OUT every
#           100 ms, named with a token the tool is not told; afterwards the
#           token must not be in the tool's output (a watch names them)
#   swap    while the tool runs, a host process renames a new copy of the
#           planted SSH host key over it every 100 ms (as passwd replaces
#           /etc/shadow; as root, where the runner planted the key)
#   ping    widen net.ipv4.ping_group_range for this run only (as root), as
#           many distributions ship it, so that only the sandbox can refuse
#           a ping socket; restored right after
#   tfo     turn on client TCP Fast Open (bit 1 of net.ipv4.tcp_fastopen, the
#           kernel's default) for this run only (as root) where it is off, so
#           that only the sandbox can refuse it; restored right after
# Every run is also checked for lingering processes named with its marker
# and for its token reaching any host listener.
# Placeholders: @VICTIM @VMARK (victim pid and argv marker), @WS (workspace),
# @OUT (a directory beside it, outside), @MARK (unique per run, also the
# token sent to listeners), @PREVMARK (the previous run's), @TCPPORT
# @UDPPORT @SOCK @WSSOCK @DGSOCK (a unix datagram socket file outside) @ABS
# @SECRET @HOSTCANARY @DISK @SHMID (a System V
# shared memory segment of the host, mode 0666, holding a marker) and the caps
# @NPROC_CAP @MEM_CAP @FSIZE_CAP @NOFILE_CAP (just above the profile's limit).
TABLE=$(cat <<'EOF'
# attack            ro wr net des flags        program and arguments
## other processes (a victim started outside, same uid as the tool)
ptrace_attach       B  B  B   B   k,victim     procs ptrace_attach @VICTIM
ptrace_seize        B  B  B   B   k,victim     procs ptrace_seize @VICTIM
ptrace_child        B  B  B   B   k            procs ptrace_child
vm_readv            B  B  B   B   k,victim     procs vm_readv @VICTIM
vm_readv_child      B  B  B   B   k            procs vm_readv_child
pidfd_open          B  B  B   B   k,victim     procs pidfd_open @VICTIM
pidfd_getfd_child   B  B  B   B   k            procs pidfd_getfd_child
proc_mem            B  B  B   B   victim       procs proc_mem @VICTIM
proc_environ        B  B  B   B   victim       procs proc_environ @VICTIM
proc_scan           B  B  B   B   -            procs proc_scan @VMARK
kill_victim         B  B  B   B   k,victim     procs kill_victim @VICTIM
kill_all            B  B  B   B   k,victim     procs kill_all
stop_victim         B  B  B   B   k,victim     procs stop_victim @VICTIM
tkill_victim        B  B  B   B   k,victim     procs tkill_victim @VICTIM
tgkill_victim       B  B  B   B   k,victim     procs tgkill_victim @VICTIM
sigqueue_victim     B  B  B   B   k,victim     procs sigqueue_victim @VICTIM
setown_victim       B  B  B   B   k,victim     procs setown_victim @VICTIM
proc_pidfd          B  B  B   B   k,victim     procs proc_pidfd @VICTIM
prlimit_victim      B  B  B   B   k,victim     procs prlimit_victim @VICTIM
setpriority_victim  B  B  B   B   k,victim     procs setpriority_victim @VICTIM
affinity_victim     B  B  B   B   k,victim     procs affinity_victim @VICTIM
ioprio_victim       B  B  B   B   k,victim     procs ioprio_victim @VICTIM
cpuclock_victim     B  B  B   B   k,victim     procs cpuclock_victim @VICTIM
cpuclock_own        A  A  A   A   -            procs cpuclock_own
kill_own_child      A  A  A   A   -            procs kill_own_child
tgkill_own          A  A  A   A   -            procs tgkill_own
kill_own_thread     A  A  A   A   -            procs kill_own_thread
sigqueue_own_child  A  A  A   A   -            procs sigqueue_own_child
clone_parent        B  B  B   B   k            procs clone_parent
sysv_shm            B  B  B   B   -            procs sysv_shm @SHMID
posix_mq            B  B  B   B   -            procs posix_mq /tc-escape-@MARK
## terminal injection
tiocsti             B  B  B   B   k            tty tiocsti
tiocsti_hibits      B  B  B   B   k            tty tiocsti_hibits
tioclinux           B  B  B   B   k            tty tioclinux
## namespace re-nesting
unshare_user        B  B  B   B   k            ns unshare_user
unshare_mnt         B  B  B   B   k            ns unshare_mnt
unshare_pid         B  B  B   B   k            ns unshare_pid
unshare_net         B  B  B   B   k            ns unshare_net
unshare_ipc         B  B  B   B   k            ns unshare_ipc
clone_newuser       B  B  B   B   k            ns clone_newuser
clone_newns         B  B  B   B   k            ns clone_newns
clone_newpid        B  B  B   B   k            ns clone_newpid
clone_newuser_hibits B B  B   B   k            ns clone_newuser_hibits
clone3_newuser      B  B  B   B   k            ns clone3_newuser
clone3_plain        B  B  B   B   k            ns clone3_plain
setns_user          B  B  B   B   k            ns setns_user
setns_mnt           B  B  B   B   k            ns setns_mnt
## foreign syscall ABIs
i386_getpid         B  B  B   B   k            abi i386_getpid
i386_socketcall     B  B  B   B   k            abi i386_socketcall
x32_getpid          B  B  B   B   k            abi x32_getpid
x32_ptrace          B  B  B   B   k            abi x32_ptrace
x32_io_uring        B  B  B   B   k            abi x32_io_uring
nr_high_bits        B  B  B   B   k            abi nr_high_bits
## kernel attack surface
io_uring            B  B  B   B   k            kernel io_uring
aio_setup           B  B  B   B   k            kernel aio
bpf                 B  B  B   B   k            kernel bpf
perf_event_open     B  B  B   B   k            kernel perf
userfaultfd         B  B  B   B   k            kernel userfaultfd
userfaultfd_dev     B  B  B   B   k            kernel userfaultfd_dev
keyctl              B  B  B   B   k            kernel keyctl
add_key             B  B  B   B   k            kernel add_key
request_key         B  B  B   B   k            kernel request_key
open_by_handle_at   B  B  B   B   k            kernel open_by_handle
personality         B  B  B   B   k            kernel personality
personality_hibits  B  B  B   B   k            kernel personality_hibits
mount               B  B  B   B   k            kernel mount
umount              B  B  B   B   k            kernel umount
fsopen              B  B  B   B   k            kernel fsopen
open_tree           B  B  B   B   k            kernel open_tree
move_mount          B  B  B   B   k            kernel move_mount
chroot              B  B  B   B   k            kernel chroot
pivot_root          B  B  B   B   k            kernel pivot_root
kexec_load          B  B  B   B   k            kernel kexec_load
init_module         B  B  B   B   k            kernel init_module
finit_module        B  B  B   B   k            kernel finit_module
reboot              B  B  B   B   k            kernel reboot
swapon              B  B  B   B   k            kernel swapon
listmount           B  B  B   B   k            kernel listmount
statmount           B  B  B   B   k            kernel statmount
open_tree_attr      B  B  B   B   k            kernel open_tree_attr
fscrypt_add_key     B  B  B   B   k            kernel fscrypt_add_key
fscrypt_remove_key  B  B  B   B   k            kernel fscrypt_remove_key
## inherited fds and environment (the runner holds fd 7 open, exports a secret)
inherited_fds       B  B  B   B   -            fds scan
std_meta            B  B  B   B   nullmeta     fds std_meta
env_secret          B  B  B   B   -            env secret @SECRET
env_allowlist       B  B  B   B   -            env allowlist
## reads outside allowed paths (canaries planted so a view is never empty)
read_control_etc    A  A  A   A   -            fs read read_control_etc /etc/hostname
read_control_ws     A  A  A   A   -            fs read read_control_ws @WS/hello.txt
read_root           B  B  B   B   -            fs read read_root /root
read_home           B  B  B   B   -            fs read read_home /home
read_opt            B  B  B   B   -            fs read read_opt /opt
read_srv            B  B  B   B   -            fs read read_srv /srv
read_var            B  B  B   B   -            fs read read_var /var
read_shadow         B  B  B   B   -            fs read read_shadow /etc/shadow
read_gshadow        B  B  B   B   -            fs read read_gshadow /etc/gshadow
read_nshadow        B  B  B   B   -            fs read read_nshadow /etc/nshadow
read_shadow_plus    B  B  B   B   -            fs read read_shadow_plus /etc/shadow+
read_nopasswd       B  B  B   B   -            fs read read_nopasswd /etc/security/nopasswd
read_sudoers        B  B  B   B   -            fs read read_sudoers /etc/sudoers
read_sudoers_d      B  B  B   B   -            fs read read_sudoers_d /etc/sudoers.d
read_ssh_host_key   B  B  B   B   -            fs read read_ssh_host_key /etc/ssh/ssh_host_tcescape_key
read_swapped_key    B  B  B   B   swap         fs read_swapped read_swapped_key /etc/ssh/ssh_host_tcescape_key 1500
read_host_tmp       B  B  B   B   -            fs read read_host_tmp /tmp/@HOSTCANARY
read_outside        B  B  B   B   -            fs read read_outside @OUT/secret.txt
read_dotdot         B  B  B   B   -            fs read read_dotdot ../outside/secret.txt
read_dotdot_abs     B  B  B   B   -            fs read read_dotdot_abs @WS/../outside/secret.txt
read_link_shadow    B  B  B   B   -            fs read read_link_shadow @WS/link-shadow
read_link_root      B  B  B   B   -            fs read read_link_root @WS/link-root
read_link_outside   B  B  B   B   -            fs read read_link_outside @WS/link-outside
read_raw_disk       B  B  B   B   -            fs read read_raw_disk @DISK
## writes outside the workspace (and inside it, where the profile allows)
create_workspace    B  A  B   A   -            fs create create_workspace @WS @MARK
open_write_ws       B  A  B   A   -            fs open_write open_write_ws @WS/hello.txt
unlink_ws           B  A  B   A   -            fs unlink unlink_ws @WS/canary-ws
create_usr          B  B  B   B   -            fs create create_usr /usr/local @MARK
create_etc          B  B  B   B   -            fs create create_etc /etc @MARK
create_var_tmp      B  B  B   B   tmp          fs create create_var_tmp /var/tmp @MARK
create_dev_shm      B  B  B   B   tmp          fs create create_dev_shm /dev/shm @MARK
create_outside      B  B  B   B   -            fs create create_outside @OUT @MARK
create_dotdot       B  B  B   B   -            fs create create_dotdot .. @MARK
create_via_link     B  B  B   B   -            fs create create_via_link @WS/link-outdir @MARK
open_write_etc      B  B  B   B   -            fs open_write open_write_etc /etc/hostname
truncate_outside    B  B  B   B   -            fs truncate truncate_outside @OUT/canary
truncate_open_ws    B  -  B   -   -            fs truncate_open truncate_open_ws @WS/canary-ws
truncate_open_out   B  B  B   B   -            fs truncate_open truncate_open_out @OUT/canary 3
truncate_oat2_ws    B  -  B   -   -            fs truncate_open truncate_oat2_ws @WS/canary-ws rdonly openat2
truncate_oat2_out   B  B  B   B   -            fs truncate_open truncate_oat2_out @OUT/canary 3 openat2
unlink_outside      B  B  B   B   -            fs unlink unlink_outside @OUT/canary
rename_outside      B  B  B   B   -            fs rename rename_outside @OUT/canary
chmod_outside       B  B  B   B   -            fs chmod chmod_outside @OUT/canary
utimes_outside      B  B  B   B   -            fs utimes utimes_outside @OUT/canary
setxattr_outside    B  B  B   B   -            fs setxattr setxattr_outside @OUT/canary
chmod_etc_passwd    B  B  B   B   -            fs chmod_same chmod_etc_passwd /etc/passwd
plant_setuid_ws     B  B  B   B   -            priv plant_setuid @WS @MARK
plant_setuid_at2    B  B  B   B   -            priv plant_setuid @WS @MARK fchmodat2
plant_setuid_create B  B  B   B   -            priv plant_setuid @WS @MARK create
proc_sys_write      B  B  B   B   -            fs open_write proc_sys_write /proc/sys/kernel/printk_ratelimit
sysrq_trigger       B  B  B   B   -            fs open_write sysrq_trigger /proc/sysrq-trigger
sysfs_write         B  B  B   B   -            fs open_write sysfs_write /sys/block/@DISKNAME/queue/read_ahead_kb
cgroup_release      B  B  B   B   -            fs open_write cgroup_release /sys/fs/cgroup/memory/release_agent
## protected paths in a writable workspace (the runner plants .git/config,
## .git/hooks/ and .vscode/tasks.json; "intact": afterwards all three are
## unchanged; "swept=NAME": afterwards NAME is gone from the workspace;
## "gitlink": before the call .git is made a symbolic link to linked-git,
## the directory that holds them; "refused": toolcage refusing the call,
## naming the link, counts as blocked)
protect_append      B  B  B   B   intact       protect append @WS
protect_trunc       B  B  B   B   intact       protect trunc @WS
protect_chmod       B  B  B   B   intact       protect chmod @WS
protect_utimes      B  B  B   B   intact       protect utimes @WS
protect_xattr       B  B  B   B   intact       protect xattr @WS
protect_unlink      B  B  B   B   intact       protect unlink @WS
protect_rename_over B  B  B   B   intact       protect rename_over @WS
protect_rename_away B  B  B   B   intact       protect rename_away @WS
protect_swap_gitdir B  B  B   B   intact       protect swap_gitdir @WS
protect_swap_hooks  B  B  B   B   intact       protect swap_hooks @WS
protect_rmdir_hooks B  B  B   B   intact       protect rmdir_hooks @WS
protect_hook        B  B  B   B   intact       protect hook @WS
protect_hardlink    B  B  B   B   intact       protect hardlink @WS
protect_symlink     B  B  B   B   intact       protect symlink @WS
protect_tasks       B  B  B   B   intact       protect tasks @WS
protect_swap_vscode B  B  B   B   intact       protect swap_vscode @WS
protect_envrc       -  -  -   -   swept=.envrc protect create_envrc @WS
protect_gitdir_link B  B  B   B   intact       protect gitdir_link @WS
protect_gitfile     B  -  B   -   swept=gitfile-sub/.git protect gitfile @WS
protect_away_back   B  B  B   B   intact       protect away_back @WS
protect_fill        B  B  B   B   intact       protect fill @WS
protect_late        B  B  B   B   intact,t,to=200 protect late @WS @MARK
protect_linked_gitdir B B B   B   intact,gitlink,refused protect linked_gitdir @WS
protect_control     B  A  B   A   intact       protect control @WS
## private /tmp
tmp_write           B  B  B   B   tmp          fs tmp_write tmp_write @MARK @HOSTCANARY
tmp_persist         B  B  B   B   -            fs tmp_persist tmp_persist @PREVMARK
inotify_host_tmp    B  B  B   B   -            fs inotify inotify_host_tmp /tmp/@HOSTCANARY
watch_outside       B  B  B   B   made         fs watch watch_outside @OUT 3000
lease_ws            B  B  B   B   -            fs lease lease_ws @WS/canary-ws
dnotify_etc         B  B  B   B   -            fs dnotify dnotify_etc /etc
## ways around the view (the ../ above a new root, leaked directory fds and
## /proc's magic links, what lies beside a grant, the view's own root)
walk_up_outside     B  B  B   B   -            tree walk_up walk_up_outside @OUT/secret.txt
walk_up_host_tmp    B  B  B   B   -            tree walk_up walk_up_host_tmp /tmp/@HOSTCANARY
list_beside_ws      B  B  B   B   -            tree list_beside list_beside_ws @WS
create_root         B  B  B   B   -            fs create create_root / @MARK
chmod_root          B  B  B   B   -            fs chmod_same chmod_root /
link_out_tmp        B  B  B   B   -            tree link_out link_out_tmp /tmp @OUT/secret.txt
exec_workspace      B  A  B   A   -            tree exec exec_workspace @WS/.tc-escape/fds
## sockets (listeners on the host log the token each client sends)
tcp_local           B  B  B   B   k            net tcp tcp_local 127.0.0.1 @TCPPORT @MARK
tcp6_local          B  B  B   B   k            net tcp tcp6_local ::1 @TCPPORT @MARK
tcp_port80          B  B  B   B   k            net http tcp_port80 127.0.0.1 @PORT80 @MARK
## under network, the one way out is toolcage's egress, and it refuses
## whatever the policy does not list (the runner lists nothing)
egress_listener     B  B  A   B   k            net tcp egress_listener 127.0.0.1 3128 @MARK
http_any_host       B  B  B   B   k            net http http_any_host 198.51.100.9 80 @MARK
proxy_host_service  B  B  B   B   k            net proxy proxy_host_service connect 127.0.0.1 @TCPPORT @MARK
socks_host_service  B  B  B   B   k            net proxy socks_host_service socks 127.0.0.1 @TCPPORT @MARK
proxy_unlisted      B  B  B   B   k            net proxy proxy_unlisted connect 198.51.100.9 443 @MARK
dns_resolver        B  B  B   B   k            net dns dns_resolver resolv 53 @MARK
dns_host_listener   B  B  B   B   k,udp        net dns dns_host_listener 127.0.0.1 @UDPPORT @MARK
udp_local           B  B  B   B   k,udp        net udp udp_local 127.0.0.1 @UDPPORT @MARK
icmp_ping           B  B  B   B   k,ping       net icmp icmp_ping
unix_host           B  B  B   B   k            net unix_path unix_host @SOCK @MARK
unix_ws             B  B  B   B   k            net unix_path unix_ws @WSSOCK @MARK
unix_abstract       B  B  B   B   k            net unix_abstract unix_abstract @ABS @MARK
socketpair          A  A  A   A   -            net socketpair socketpair
socketpair_seqpack  A  A  A   A   -            net socketpair socketpair_seqpack seqpacket
unix_dgram_pair     B  B  B   B   k            net unix_dgram_pair unix_dgram_pair dgram @DGSOCK @MARK
unix_raw_pair       B  B  B   B   k            net unix_dgram_pair unix_raw_pair raw @DGSOCK @MARK
tcp_fastopen        B  B  B   B   k,tfo        net tcp_fastopen tcp_fastopen sendto 127.0.0.1 @TCPPORT @MARK
tcp_fastopen_msg    B  B  B   B   k,tfo        net tcp_fastopen tcp_fastopen_msg sendmsg 127.0.0.1 @TCPPORT @MARK
tcp_fastopen_mmsg   B  B  B   B   k,tfo        net tcp_fastopen tcp_fastopen_mmsg sendmmsg ::1 @TCPPORT @MARK
tcp_fastopen_opt    B  B  B   B   k,tfo        net tcp_fastopen tcp_fastopen_opt connect_opt 127.0.0.1 @TCPPORT @MARK
listen_autobind     B  B  B   B   k            net listen_autobind listen_autobind 4
listen_autobind6    B  B  B   B   k            net listen_autobind listen_autobind6 6
abstract_squat      B  B  B   B   k            net abstract_squat abstract_squat tc-escape-squat-@MARK
raw_socket          B  B  B   B   k            net raw raw_socket
packet_socket       B  B  B   B   k            net packet packet_socket
vsock               B  B  B   B   k            net vsock vsock
netlink_route       B  B  -   B   k            net netlink netlink_route 0
netlink_audit       B  B  B   B   k            net netlink netlink_audit 9
netlink_uevent      B  B  B   B   k            net netlink netlink_uevent 15
sctp_default        B  B  B   B   k            net sock_type sctp_default 4 5
sctp6_default       B  B  B   B   k            net sock_type sctp6_default 6 5
dccp_default        B  B  B   B   k            net sock_type dccp_default 4 6
## privileges
no_new_privs        B  B  B   B   -            priv nnp
capabilities        B  B  B   B   -            priv caps
securebits          B  B  B   B   -            priv securebits
setuid_exec         B  B  B   B   -            priv setuid_exec /bin/mount
## resources (caps sit just above each profile's limit)
fork_bomb           B  B  B   B   t            hog fork_bomb @MARK @NPROC_CAP
memory_as           B  B  B   B   t            hog memory @MEM_CAP 0
memory_rss          B  n  n   n   t,to=3000    hog memory @MEM_CAP 1
fsize_tmp           B  B  B   B   t            hog fsize /tmp @MARK @FSIZE_CAP
fsize_ws            B  B  B   B   t            hog fsize @WS @MARK @FSIZE_CAP
nofile_hog          B  B  B   B   t            hog nofile @NOFILE_CAP
cpu_burn            B  B  B   B   t,to=300     hog cpu @MARK 20
flood_stdout        B  B  B   B   t,flood      hog flood 1 2048
flood_stderr        B  B  B   B   t,flood      hog flood 2 2048
core_limit          B  B  B   B   -            hog core_limit
## outliving the call (deadline 200 ms; judged from outside)
linger_setsid_exit  B  B  B   B   t,to=200     linger setsid @MARK 0
linger_setsid_wait  B  B  B   B   t,to=200     linger setsid @MARK 1
linger_sigstop      B  B  B   B   t,to=200     linger sigstop @MARK
linger_daemon       B  B  B   B   t,to=200     linger daemon @MARK
linger_orphan       B  B  B   B   t,to=200     linger orphan @MARK
linger_ignore_term  B  B  B   B   t,to=200     linger ignore_term @MARK
supervisor_killed   B  B  B   B   t,killsup    linger sleeper @MARK
EOF
)

FLOOD_RSS_KB=65536

# ---------------------------------------------------------------------------
# Scratch space, canaries, victim, listeners.
T=$(mktemp -d /var/tmp/tc-escape.XXXXXX) || exit 1
chmod 755 "$T"
# uid 65534 must be able to run toolcage wherever the checkout lives (CI
# clones into directories it may not traverse): run a copy from $T.
if [ -x "$TOOLCAGE" ]; then
	cp "$TOOLCAGE" "$T/toolcage" && chmod 755 "$T/toolcage" && TOOLCAGE=$T/toolcage
fi
PLANTED=""
SHMID=""
VICTIMS=""
LISTENER=""
cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	for v in $VICTIMS; do kill -9 "$v" 2>/dev/null; done
	for p in $PLANTED; do rm -rf "$p"; done
	[ -n "$SHMID" ] && ipcrm -m "$SHMID" 2>/dev/null
	if [ "${TC_ESCAPE_KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
	if [ "$(id -u)" = 0 ] && [ -f "$LEDGER" ]; then sed -i "/^$RUN_ID /d" "$LEDGER" 2>/dev/null; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# What a run plants as root outside its scratch space (/etc/sudoers where
# there is none, canaries in /root ...) and the processes it starts (the
# victims, the listeners) are also written to a ledger, one
# "PID:START what" a line, so that a run killed before its cleanup (SIGKILL: a
# timeout, a harness) does not leave them for good: the next run removes
# those of runs no longer alive, each only if it is still what was
# planted (a canary's text, a scratch directory, the segment made then,
# the process started then).
# The ledger is root's, in /run; a run as another user plants nothing
# outside /tmp and its scratch space.
LEDGER=/run/tc-escape-planted
# A live process's start time (clock ticks after boot): with its pid, what
# tells it from a later process given the same pid. Fails for a zombie.
started() { # pid
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	set -- ${st##*) }
	[ "$1" != Z ] || return 1
	echo "${20}"
}
RUN_ID=$$:$(started $$)
ledger_add() { # what...
	# (where /run cannot be written, a container's read-only root, none)
	[ "$(id -u)" = 0 ] && { echo "$RUN_ID $*" >> "$LEDGER"; } 2>/dev/null
}
ledger_proc() { # pid — a process of ours that would outlive a killed run
	ledger_add proc "$1" "$(started "$1")"
}
is_canary() { # path
	case $(cat "$1" 2>/dev/null) in "tc-escape canary" | "tc-escape host canary") return 0 ;; esac
	return 1
}
sweep_ledger() {
	[ "$(id -u)" = 0 ] && [ -f "$LEDGER" ] && [ ! -L "$LEDGER" ] || return 0
	local keep run what rest n=0
	keep=$(mktemp "$LEDGER.XXXXXX" 2>/dev/null) || return 0
	while read -r run what rest; do
		if [ "${run%%:*}:$(started "${run%%:*}")" = "$run" ]; then
			echo "$run $what $rest" >> "$keep"
			continue
		fi
		case $what in
		proc) # rest: its pid and start time
			set -- $rest
			[ -n "${2:-}" ] && [ "$(started "$1")" = "$2" ] && kill -9 "$1" 2>/dev/null &&
				n=$((n + 1)) ;;
		shm) # rest: the segment's id and the pid that made it
			set -- $rest
			awk -v id="$1" -v cpid="$2" '$2 == id && $5 == cpid { f = 1 } END { exit !f }' \
				/proc/sysvipc/shm && ipcrm -m "$1" 2>/dev/null && n=$((n + 1)) ;;
		/var/tmp/tc-escape.*)
			[ -d "$what" ] && [ ! -L "$what" ] && rm -rf "$what" && n=$((n + 1)) ;;
		*)
			if [ -d "$what" ] && [ ! -L "$what" ] && is_canary "$what/tc-escape-canary" &&
				[ "$(ls -A "$what")" = tc-escape-canary ]; then
				rm -rf "$what" && n=$((n + 1))
			elif [ -f "$what" ] && [ ! -L "$what" ] && is_canary "$what"; then
				rm -f "$what" && n=$((n + 1))
			fi ;;
		esac
	done < "$LEDGER"
	mv "$keep" "$LEDGER"
	[ $n -gt 0 ] && echo "escape: removed $n leftovers (canaries, processes) of runs killed before their cleanup"
	return 0
}
sweep_ledger
ledger_add "$T"

plant() { # path [dir] — create a canary if nothing is there; removed at exit
	[ -e "$1" ] && return 0
	if [ "${2:-}" = dir ]; then mkdir -p "$1" && echo "tc-escape canary" > "$1/tc-escape-canary"
	else echo "tc-escape canary" > "$1"; fi
	chmod 0640 "$1" 2>/dev/null
	PLANTED="$PLANTED $1"
	ledger_add "$1"
}

RUN_TAG=$$
HOSTCANARY=tc-escape-host-$RUN_TAG
SWAPKEY=""
SECRET=tcsecret$RUN_TAG$RANDOM$RANDOM
DISK=$(awk '$2 == "/" { print $1 }' /proc/mounts | head -1)
case $DISK in /dev/*) ;; *) DISK=/dev/vda ;; esac
DISKNAME=${DISK#/dev/}
ABS=tc-escape-abs-$RUN_TAG

setup_host() {
	echo "tc-escape host canary" > "/tmp/$HOSTCANARY"
	SHMID=$("$ESC/procs" shm_make) || { echo "escape: cannot make the shared memory canary" >&2; exit 1; }
	ledger_add shm "$SHMID" "$(awk -v id="$SHMID" '$2 == id { print $5 }' /proc/sysvipc/shm)"
	PLANTED="$PLANTED /tmp/$HOSTCANARY"
	ledger_add "/tmp/$HOSTCANARY"
	if [ "$(id -u)" = 0 ]; then
		for d in /root /home /opt /srv /var; do
			plant "$d/tc-escape-canary-$RUN_TAG"
		done
		# The copies passwd and pam_unix write before renaming them over
		# /etc/shadow and opasswd: a rule made while one exists would name
		# the secret's next inode.
		plant /etc/nshadow
		plant /etc/shadow+
		[ -d /etc/security ] && plant /etc/security/nopasswd
		plant /etc/sudoers
		plant /etc/sudoers.d dir
		plant /etc/ssh/ssh_host_tcescape_key
		# The key the swap flag replaces, and its copy on the way.
		case " $PLANTED " in *" /etc/ssh/ssh_host_tcescape_key "*)
			SWAPKEY=/etc/ssh/ssh_host_tcescape_key
			PLANTED="$PLANTED $SWAPKEY.tcswap"
			ledger_add "$SWAPKEY.tcswap" ;;
		esac
	fi
}

# Per identity: workspace with a control file, links out, a canary inside,
# a unix socket; a sibling "outside" with a secret and a canary, both owned
# by the identity so that only the sandbox stands in the way.
setup_identity() { # id
	local id=$1 d=$T/$1
	mkdir -p "$d/ws" "$d/outside" "$d/ws/.tc-escape"
	echo hello > "$d/ws/hello.txt"
	echo "tc-escape secret outside the workspace" > "$d/outside/secret.txt"
	# -n: never follow an existing link (that would plant links in /root)
	ln -sfn /etc/shadow "$d/ws/link-shadow"
	ln -sfn /root "$d/ws/link-root"
	ln -sfn "$d/outside/secret.txt" "$d/ws/link-outside"
	ln -sfn "$d/outside" "$d/ws/link-outdir"
	cp "$ESC"/* "$d/ws/.tc-escape/"
	chmod 755 "$d" "$d/ws" "$d/outside" "$d/ws/.tc-escape"
	reset_protected "$id"
	if [ "$id" = nobody ]; then chown -R 65534:65534 "$d"; fi
	reset_canaries "$id"
}

# The protected paths a repository and an editor leave in a workspace, as
# the runner plants them (what "intact" compares against).
PROTECTED_SUM=
protected_sum() { # ws -> a digest of the planted protected paths
	# (their contents and the protected directories' entries: .git's
	# other entries are not protected, nor what toolcage moved aside)
	(cd "$1" && { cat .git/config .git/hooks/pre-push.sample .vscode/tasks.json;
		ls -a .git/hooks .vscode | grep -v '\.toolcage-blocked-'; } 2>&1 | md5sum)
}
reset_protected() { # id
	local d=$T/$1/ws
	rm -rf "$d/.git" "$d/.git-old" "$d"/.git.toolcage-blocked-* "$d/.vscode" "$d/.vscode-old" "$d"/.envrc* \
		"$d"/*.toolcage-blocked-* "$d"/.*.toolcage-blocked-* "$d/cfg-link" "$d/cfg-sym" \
		"$d/evil-git" "$d/linked-git" "$d/gitfile-sub"
	mkdir -p "$d/.git/hooks" "$d/.vscode"
	printf '[core]\n\trepositoryformatversion = 0\n' > "$d/.git/config"
	printf '#!/bin/sh\nexit 0\n' > "$d/.git/hooks/pre-push.sample"
	printf '{"version": "2.0.0", "tasks": []}\n' > "$d/.vscode/tasks.json"
	if [ "$1" = nobody ]; then chown -R 65534:65534 "$d/.git" "$d/.vscode"; fi
	PROTECTED_SUM=$(protected_sum "$d")
}

reset_canaries() { # id
	local d=$T/$1
	rm -f "$d/outside/canary" "$d/outside/canary.moved" "$d/ws/canary-ws"
	echo canary > "$d/outside/canary"
	echo canary > "$d/ws/canary-ws"
	chmod 644 "$d/outside/canary" "$d/ws/canary-ws"
	touch -d '2020-01-01' "$d/outside/canary"
	if [ "$1" = nobody ]; then chown 65534:65534 "$d/outside/canary" "$d/ws/canary-ws"; fi
}

as_id() { # id cmd... — run as the identity
	case $1 in
	nobody) shift; setpriv --reuid 65534 --regid 65534 --clear-groups -- "$@" ;;
	*) shift; "$@" ;;
	esac
}

start_victim() { # id — a sleep of that uid, with a marker in argv. It sleeps
	# for ever (killed at the end): a suite that runs for hours on a slow
	# machine must not see its victim end on its own and call it an attack.
	local id=$1 mark=tcvictim-$RUN_TAG-$1
	# Not through as_id: $! must be the victim itself (setpriv and bash
	# exec into the sleep), not a subshell running as root.
	if [ "$id" = nobody ]; then
		setpriv --reuid 65534 --regid 65534 --clear-groups -- \
			bash -c "exec -a $mark sleep infinity" </dev/null >/dev/null 2>&1 &
	else
		bash -c "exec -a $mark sleep infinity" </dev/null >/dev/null 2>&1 &
	fi
	local pid=$!
	disown "$pid" 2>/dev/null
	VICTIMS="$VICTIMS $pid"
	ledger_proc "$pid"
	eval "VICTIM_$id=$pid"
	eval "VMARK_$id=$mark"
}

victim_state() { # pid -> state letter, or "gone"
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || s=
	echo "${s:-gone}"
}

# Host listeners, one python process: TCP on 127.0.0.1 and ::1 (same port),
# TCP on port 80 when free, UDP echo, unix stream sockets (a host one and one
# per workspace), a unix datagram socket on the host, an abstract socket.
# Each logs "kind token" per client (per datagram).
start_listeners() {
	cat > "$T/listen.py" <<'PYEOF'
import os, socket, sys, threading
log = open(sys.argv[1], "a", buffering=1)
lock = threading.Lock()
def note(kind, data):
    with lock:
        log.write("%s %s\n" % (kind, data.decode(errors="replace").strip()))
def serve_stream(s, kind):
    while True:
        c, _ = s.accept()
        c.settimeout(1)
        try:
            note(kind, c.recv(256))
        except Exception:
            note(kind, b"(connected)")
        c.close()
def serve_udp(s):
    while True:
        d, a = s.recvfrom(256)
        note("udp", d)
        s.sendto(d, a)
def serve_dgram(s, kind):
    while True:
        note(kind, s.recv(256))
ready = []
def bind_stream(fam, addr, kind):
    try:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(addr)
        s.listen(64)
    except OSError:
        return None
    threading.Thread(target=serve_stream, args=(s, kind), daemon=True).start()
    return s
t4 = bind_stream(socket.AF_INET, ("127.0.0.1", 0), "tcp")
port = t4.getsockname()[1]
bind_stream(socket.AF_INET6, ("::1", port), "tcp6")
p80 = bind_stream(socket.AF_INET, ("127.0.0.1", 80), "tcp80")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
threading.Thread(target=serve_udp, args=(u,), daemon=True).start()
dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
if os.path.exists(sys.argv[3]):
    os.unlink(sys.argv[3])
dg.bind(sys.argv[3])
os.chmod(sys.argv[3], 0o777)
threading.Thread(target=serve_dgram, args=(dg, "unix-dgram"), daemon=True).start()
for path in sys.argv[4:]:
    if os.path.exists(path):
        os.unlink(path)
    bind_stream(socket.AF_UNIX, path, "unix")
    os.chmod(path, 0o777)
bind_stream(socket.AF_UNIX, "\0" + sys.argv[2], "abstract")
print(port, u.getsockname()[1], 80 if p80 else 0, flush=True)
threading.Event().wait()
PYEOF
	local socks="$T/outside-host.sock" id
	for id in $IDS; do socks="$socks $T/$id/ws/agent.sock"; done
	: > "$T/listen.log"
	mkfifo "$T/listen.fifo"
	"$PY" "$T/listen.py" "$T/listen.log" "$ABS" "$T/outside-dgram.sock" $socks \
		> "$T/listen.fifo" 2>"$T/listen.err" &
	LISTENER=$!
	ledger_proc "$LISTENER"
	read -r TCPPORT UDPPORT PORT80 < "$T/listen.fifo"
	[ -n "${TCPPORT:-}" ] || { echo "listeners failed: $(cat "$T/listen.err")"; exit 1; }
}

# Caps just above each profile's limits, from profiles/NAME.json.
profile_caps() { # profile -> "nproc_cap mem_cap_mb fsize_cap_mb nofile_cap"
	"$PY" - "$REPO/profiles/$1.json" <<'PYEOF'
import json, sys
try:
    l = json.load(open(sys.argv[1])).get("limits", {})
except Exception:
    l = {}
print(2 * l.get("processes", 128), l.get("address_space_mb", 4096) + 256,
      l.get("file_size_mb", 256) + 16, max(4096, 4 * l.get("open_files", 256)))
PYEOF
}

# SIGKILLs toolcage (pid TC) and times how long the tool's processes (comm
# MARK, or MARK in argv) outlive it: pidfds opened before the kill say the
# moment each one exits, so the figure is the kernel's alone, not the time
# of whatever looks (on an emulated CPU one bash scan of /proc took 460 ms,
# most of the bound). Prints "MS" when all exited within LIMIT_MS, "alive
# MS PID..." when some did not, "error WHY" when it could not watch them.
kill_timed() { # tc mark limit_ms
	"$PY" - "$@" <<'PYEOF'
import os, select, signal, sys, time
tc, mark, limit = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
me = os.getpid()

def marked():
    found = set()
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) in (me, tc):
            continue
        try:
            with open(f"/proc/{p}/comm", "rb") as f:
                comm = f.read().rstrip(b"\n").decode(errors="replace")
            with open(f"/proc/{p}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace")
            with open(f"/proc/{p}/stat", "rb") as f:
                state = f.read().rsplit(b") ", 1)[1][:1]
        except (OSError, IndexError):
            continue
        if (comm == mark or mark in argv) and state != b"Z":
            found.add(int(p))
    return found

# The tool may still be forking: the same set twice in a row, 100 ms apart.
pids = marked()
for _ in range(30):
    time.sleep(0.1)
    again = marked()
    if again == pids:
        break
    pids = again
if not pids:
    print("error: no process of the tool to watch")
    sys.exit(0)
fds = {}
for p in pids:
    try:
        fds[os.pidfd_open(p)] = p
    except ProcessLookupError:
        pass
    except OSError as e:
        print(f"error: pidfd_open: {e}")
        sys.exit(0)
poller = select.poll()
for fd in fds:
    poller.register(fd, select.POLLIN)
t0 = time.monotonic()
os.kill(tc, signal.SIGKILL)
left = dict(fds)
while left:
    ms = int((time.monotonic() - t0) * 1000)
    if ms >= limit:
        break
    for fd, _ in poller.poll(limit - ms):
        poller.unregister(fd)
        left.pop(fd, None)
ms = int((time.monotonic() - t0) * 1000)
if left:
    print("alive", ms, *sorted(left.values()))
else:
    print(ms)
PYEOF
}

# Processes (not zombies) whose comm is MARK or whose argv holds it.
lingering() { # mark -> "pid:comm ..." or empty
	local pat="[${1:0:1}]${1:1}" out="" f pid st
	for f in $(grep -slx -- "$pat" /proc/[0-9]*/comm 2>/dev/null; \
		   grep -sla -- "$pat" /proc/[0-9]*/cmdline 2>/dev/null); do
		pid=${f#/proc/}; pid=${pid%%/*}
		[ "$pid" = $$ ] && continue
		st=$(victim_state "$pid")
		case $st in gone|Z) continue ;; esac
		case " $out " in *" $pid:"*) continue ;; esac
		out="$out $pid:$(cat "/proc/$pid/comm" 2>/dev/null)($st)"
	done
	echo "${out# }"
}

kill_lingering() { # mark
	local pat="[${1:0:1}]${1:1}" f pid
	for f in $(grep -slx -- "$pat" /proc/[0-9]*/comm 2>/dev/null; \
		   grep -sla -- "$pat" /proc/[0-9]*/cmdline 2>/dev/null); do
		pid=${f#/proc/}; pid=${pid%%/*}
		[ "$pid" = $$ ] || kill -9 "$pid" 2>/dev/null
	done
}

now_ms() { date +%s%3N; }

# Client TCP Fast Open on (bit 1 of net.ipv4.tcp_fastopen) where it is off
# and we may: prints the old value to restore, or nothing when unchanged.
tfo_on() {
	local f=/proc/sys/net/ipv4/tcp_fastopen v
	v=$(cat "$f" 2>/dev/null) || return 0
	[ $((v & 1)) = 1 ] && return 0
	[ -w "$f" ] && echo $((v | 1)) > "$f" && echo "$v"
}

# ---------------------------------------------------------------------------
# One run. Writes $T/r/N.json (toolcage's answer), N.rss, and a record line:
# id profile attack expect flags outside-verdict
SEQ=0
PREVMARK=none
run_attack() { # id profile attack expect flags cmd...
	local id=$1 prof=$2 attack=$3 expect=$4 flags=$5; shift 5
	# The marker ends in 'z' so that no marker is a prefix of another.
	local ws=$T/$id/ws mark="tcx${RUN_TAG: -4}-${SEQ}z" n=$SEQ to=5000 outside="" f
	SEQ=$((SEQ + 1))
	# An attack that must end by itself gets longer on a slow machine
	# (TC_ESCAPE_TIMEOUT_MS); one the deadline ends (flag t) keeps 5 s.
	case ",$flags," in *,t,*) ;; *) to=$ATTACK_TIMEOUT_MS ;; esac
	case ",$flags," in *,to=*) to=${flags#*to=}; to=${to%%,*} ;; esac
	local vpid vmark; eval "vpid=\${VICTIM_$id}; vmark=\${VMARK_$id}"
	local -a argv=()
	for f in "$@"; do
		f=${f//@VICTIM/$vpid}; f=${f//@VMARK/$vmark}; f=${f//@WSSOCK/$ws/agent.sock}
		f=${f//@WS/$ws}; f=${f//@OUT/$T/$id/outside}; f=${f//@PREVMARK/$PREVMARK}
		f=${f//@MARK/$mark}; f=${f//@TCPPORT/$TCPPORT}; f=${f//@UDPPORT/$UDPPORT}
		f=${f//@PORT80/$PORT80}; f=${f//@DGSOCK/$T/outside-dgram.sock}
		f=${f//@SOCK/$T/outside-host.sock}; f=${f//@ABS/$ABS}
		f=${f//@SECRET/$SECRET}; f=${f//@HOSTCANARY/$HOSTCANARY}; f=${f//@SHMID/$SHMID}
		f=${f//@DISKNAME/$DISKNAME}; f=${f//@DISK/$DISK}
		f=${f//@NPROC_CAP/$CAP_NPROC}; f=${f//@MEM_CAP/$CAP_MEM}
		f=${f//@FSIZE_CAP/$CAP_FSIZE}; f=${f//@NOFILE_CAP/$CAP_NOFILE}
		argv+=("$f")
	done
	# The program: exec'd from the workspace where the profile allows it,
	# else through the dynamic loader (which maps it without execve), or
	# where the workspace is a noexec mount (the mount tree without
	# Landlock refuses the loader's executable mapping too) copied into a
	# memfd by python3 and exec'd from there.
	local prog=$ws/.tc-escape/${argv[0]}
	case ${DIRECT_EXEC[$prof]} in
	1) argv[0]=$prog ;;
	memfd) argv=(/usr/bin/python3 -c "$MEMFD_EXEC" "$prog" "${argv[@]:1}") ;;
	*) argv=("$LDSO" "$prog" "${argv[@]:1}") ;;
	esac
	PREVMARK=$mark
	case $attack in unlink_*|rename_*|chmod_*|utimes_*|setxattr_*|truncate_*) reset_canaries "$id" ;; esac
	case $attack in protect_*) reset_protected "$id" ;; esac
	case ",$flags," in *,gitlink,*)
		mv "$ws/.git" "$ws/linked-git" && ln -s linked-git "$ws/.git" ;;
	esac

	local out=$T/r/$n t0 t1 rc pingsave="" tfosave=""
	case ",$flags," in *,ping,*)
		if [ -w /proc/sys/net/ipv4/ping_group_range ]; then
			pingsave=$(cat /proc/sys/net/ipv4/ping_group_range)
			echo "0 2147483647" > /proc/sys/net/ipv4/ping_group_range
		fi ;;
	esac
	case ",$flags," in *,tfo,*) tfosave=$(tfo_on) ;; esac
	local maker="" made=""
	case ",$flags," in *,made,*)
		# Bounded by the clock too, should the kill below be missed.
		made=tcmade$RANDOM$RANDOM$RANDOM
		(end=$(($(date +%s) + HANG_S)); i=0
		 while [ "$(date +%s)" -lt $end ]; do
			i=$((i + 1)); : > "$T/$id/outside/$made-$i"; sleep 0.1; rm -f "$T/$id/outside/$made-$i"
		 done) &
		maker=$! ;;
	esac
	local swapper=""
	case ",$flags," in *,swap,*)
		[ -n "$SWAPKEY" ] && { (end=$(($(date +%s) + HANG_S))
		 while [ "$(date +%s)" -lt $end ]; do
			echo "tc-escape canary" > "$SWAPKEY.tcswap" && chmod 0640 "$SWAPKEY.tcswap" &&
				mv -f "$SWAPKEY.tcswap" "$SWAPKEY"; sleep 0.1
		 done) &
		swapper=$!; } ;;
	esac
	local nullctime=""
	case ",$flags," in *,nullmeta,*) nullctime=$(stat -c %z /dev/null) ;; esac
	t0=$(now_ms)
	if [ "${flags/killsup/}" != "$flags" ]; then
		(cd "$ws" && as_id "$id" "$TOOLCAGE" exec $SPARE --profile "$prof" --workspace "$ws" \
			--timeout-ms 20000 --json -- "${argv[@]}" > "$out.json" 2> "$out.err") &
		local bg=$! tc="" i p
		for i in $(seq $((ATTACK_TIMEOUT_MS / 50))); do
			sleep 0.05
			grep -qslx -- "$mark" /proc/[0-9]*/comm 2>/dev/null && break
		done
		sleep 0.1
		for p in $(pgrep -x toolcage); do
			grep -qa -- "$mark" "/proc/$p/cmdline" 2>/dev/null && tc=$p
		done
		# PDEATHSIG acts at once: every process of the tool must be gone
		# within 500 ms of the SIGKILL, timed by pidfds (kill_timed), then
		# nothing of the run may be left (a process forked too late to be
		# watched included).
		local res waited bound=500 k0 f
		if [ -n "$tc" ]; then
			res=$(kill_timed "$tc" "$mark" $((3000 + bound)))
			wait "$bg" 2>/dev/null
			case $res in
			alive*) outside="fail:still alive $((3000 + bound)) ms after toolcage was SIGKILLed: pids ${res#alive * }" ;;
			error*|''|*[!0-9]*) outside="error:could not time the tool's end: ${res:-no answer}" ;;
			*) waited=$res
			   [ "$waited" -gt $bound ] &&
				outside="fail:the tool outlived its SIGKILLed supervisor by ${waited} ms (bound $bound ms)" ;;
			esac
			k0=$(now_ms)
			while [ -n "$(lingering "$mark")" ] && [ $(($(now_ms) - k0)) -lt 3000 ]; do sleep 0.05; done
			f=$(lingering "$mark")
			[ -n "$f" ] && outside="fail:still alive 3000 ms after the watched processes ended: $f"
		else
			wait "$bg" 2>/dev/null
		fi
		[ -z "$tc" ] && outside="error:could not find the toolcage process to kill"
		echo '{"killed_by":"signal","stdout":"","exit_code":137}' > "$out.json"
		t1=$(now_ms)
	else
		# timeout(1) guards against a hung toolcage; /usr/bin/time measures
		# its max RSS where that matters (it costs a few ms per run).
		local -a pre=(timeout -s KILL $HANG_S)
		case ",$flags," in *,flood,*) pre=(/usr/bin/time -f %M -o "$out.rss" "${pre[@]}") ;; esac
		[ "$id" = nobody ] && pre+=(setpriv --reuid 65534 --regid 65534 --clear-groups --)
		(cd "$ws" && "${pre[@]}" "$TOOLCAGE" exec $SPARE --profile "$prof" --workspace "$ws" \
			--timeout-ms "$to" --json -- "${argv[@]}" > "$out.json" 2> "$out.err")
		rc=$?
		t1=$(now_ms)
		[ $((t1 - t0)) -ge $((HANG_S * 1000 - 1000)) ] && outside="fail:toolcage did not return within $HANG_S s"
	fi

	if [ -n "$nullctime" ] && [ "$(stat -c %z /dev/null)" != "$nullctime" ]; then
		outside="fail:the host's /dev/null was changed (ctime $nullctime, now $(stat -c %z /dev/null))"
	fi
	if [ -n "$swapper" ]; then
		kill "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null
		rm -f "$SWAPKEY.tcswap"
	fi
	if [ -n "$maker" ]; then
		kill "$maker" 2>/dev/null; wait "$maker" 2>/dev/null
		rm -f "$T/$id/outside/$made"-*
		grep -q -- "$made" "$out.json" &&
			outside="fail:the tool learned the name of a file the host made in $T/$id/outside ($made-N)"
	fi
	[ -n "$pingsave" ] && echo "$pingsave" > /proc/sys/net/ipv4/ping_group_range
	[ -n "$tfosave" ] && echo "$tfosave" > /proc/sys/net/ipv4/tcp_fastopen

	# Outside checks. Programs that start processes (flag t) name them with
	# the marker; the others are single processes that have exited.
	case ",$flags," in *,t,*)
		f=$(lingering "$mark")
		if [ -n "$f" ]; then
			outside="fail:alive after toolcage returned: $f"
			kill_lingering "$mark"
		fi ;;
	esac
	case ",$flags," in *,victim,*)
		local st; st=$(victim_state "$vpid")
		case $st in
		S|R|D) ;;
		*) outside="fail:victim pid $vpid is ${st/gone/dead} after the attack"
		   kill -9 "$vpid" 2>/dev/null; start_victim "$id" ;;
		esac ;;
	esac
	case ",$flags," in *,tmp,*)
		f=$(find /tmp /var/tmp /dev/shm -maxdepth 3 -name "*$mark*" 2>/dev/null | head -3 | tr '\n' ' ')
		if [ -n "$f" ]; then outside="fail:left in the host: $f"; rm -rf $f; fi ;;
	esac
	case ",$flags," in *,intact,*)
		[ "$(protected_sum "$ws")" = "$PROTECTED_SUM" ] ||
			outside="fail:a protected path changed: $(cd "$ws" && ls -a . .git 2>&1 | tr '\n' ' ')" ;;
	esac
	case ",$flags," in *,swept=*)
		f=${flags#*swept=}; f=${f%%,*}
		[ -e "$ws/$f" ] || [ -L "$ws/$f" ] &&
			outside="fail:$f, created during the call, is still in the workspace after it" ;;
	esac
	if grep -q -- " $mark\$" "$T/listen.log"; then
		f=$(grep -- " $mark\$" "$T/listen.log" | head -1 | cut -d' ' -f1)
		[ -z "$outside" ] && outside="reach:the host $f listener received this run's token"
	fi
	case ",$flags," in *,flood,*)
		local rss; rss=$(tail -1 "$out.rss" 2>/dev/null)
		case $rss in ''|*[!0-9]*) outside="error:no max RSS measured ($rss)" ;;
		*) [ "$rss" -gt "$FLOOD_RSS_KB" ] && outside="fail:toolcage max RSS ${rss} kB under a flood (bound ${FLOOD_RSS_KB} kB)"
		   echo "$rss" > "$out.rsskb" ;;
		esac ;;
	esac
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$prof" "$attack" "$expect" "$flags" \
		"$n" "$((t1 - t0))" "$outside" >> "$T/records.tsv"
}

# ---------------------------------------------------------------------------
# Judge every record: one python pass over all of toolcage's JSON answers.
evaluate() { # records file, results dir -> table, summary; exit status
	"$PY" - "$T/records.tsv" "$T/r" "$VERBOSE" "$IDS" "$PROFILES" <<'PYEOF'
import json, os, sys
records, rdir, verbose = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
ids, profiles = sys.argv[4].split(), sys.argv[5].split()
short = {"read-only": "ro", "write": "wr", "network": "net", "destructive": "des"}
rows, order, bad = {}, [], []
counts = {"ok": 0, "ESCAPED": 0, "DENIED": 0, "error": 0}
for line in open(records):
    ident, prof, attack, expect, flags, n, ms, outside = line.rstrip("\n").split("\t")
    flags = flags.split(",")
    path = os.path.join(rdir, n + ".json")
    try:
        j = json.load(open(path))
    except Exception as e:
        err = open(os.path.join(rdir, n + ".err")).read().strip()[-200:] if os.path.exists(os.path.join(rdir, n + ".err")) else ""
        j = {"_bad": "no JSON from toolcage (%s) %s" % (type(e).__name__, err)}
    verdict, detail = None, ""
    for l in (j.get("stdout") or "").splitlines()[::-1]:
        if l.startswith("VERDICT "):
            parts = l.split(" ", 3) + ["", ""]
            verdict, detail = parts[1], parts[3]
            break
    kb = j.get("killed_by")
    # Judged against the walls the result claims: with no /tmp in this
    # jail ("tmp" built by nothing), writing one is refused outright.
    walls = (j.get("confinement") or {}).get("walls") or {}
    if (attack == "tmp_write" and verdict == "error" and "tmp" in walls and
            "by" not in walls["tmp"] and "cannot write the private /tmp" in detail):
        verdict, detail = "blocked", "no /tmp in this jail: " + walls["tmp"].get("dropped", "")
    # Where no mount namespace holds the protected paths, a copy is put
    # back after the call: what the attack wrote while it ran got through
    # inside; it is blocked when all is as before from outside (the
    # "intact" check) and toolcage said what it put back. A control (A)
    # writes nothing protected: there is nothing to put back, nor to say.
    prot = walls.get("protected") or {}
    if (attack.startswith("protect_") and verdict == "escaped" and "intact" in flags and
            expect != "A" and prot.get("by") == "copy put back" and not outside):
        errf = os.path.join(rdir, n + ".err")
        err = open(errf).read() if os.path.exists(errf) else ""
        if "created or changed protected paths" in err:
            verdict, detail = "blocked", "put back after the call: " + err.strip()[-160:]
        else:
            outside = "fail:changed during the call, and toolcage did not say it put it back"
    if "_bad" in j:
        got, detail = "error", j["_bad"]
    elif j.get("error") and "refused" in flags and "symbolic link" in j["error"]:
        got, detail = "blocked", "refused: " + j["error"][-160:]
    elif j.get("error"):
        got, detail = "error", "toolcage setup failed: %s" % j["error"]
    elif verdict in ("blocked", "escaped", "error"):
        got = verdict
    elif kb == "seccomp" and "k" in flags:
        got, detail = "blocked", "killed by seccomp"
    elif kb in ("timeout", "signal", "output_limit", "seccomp", "memory") and "t" in flags:
        got, detail = "blocked", "killed (%s, signal %s)" % (kb, j.get("signal"))
    elif "killsup" in flags:
        got, detail = "blocked", "tool died with its supervisor"
    else:
        got = "error"
        detail = "no verdict line (exit %s, signal %s, killed_by %s, stderr %r)" % (
            j.get("exit_code"), j.get("signal"), kb, (j.get("stderr") or "")[-120:])
    if "flood" in flags and got != "error" and not outside:
        if kb != "output_limit" and not (j.get("stdout_truncated") or j.get("stderr_truncated")):
            outside = "fail:flood not stopped nor truncated (killed_by %s)" % kb
        elif got == "escaped" and kb != "output_limit":
            got = "blocked"  # tail kept and truncated: bounded capture
    if outside.startswith("fail:"):
        got, detail = "escaped", outside[5:]
    elif outside.startswith("reach:"):
        if got != "escaped":
            got, detail = "escaped", outside[6:]
    elif outside.startswith("error:"):
        got, detail = "error", outside[6:]
    if got == "error":
        res = "error"
    elif expect == "-":
        res = "ok"
    elif expect == "A":
        res = "ok" if got == "escaped" else "DENIED"
    else:
        res = "ok" if got == "blocked" else "ESCAPED"
    # A check from outside that failed is an escape whatever the row
    # expects of the program: a control (A) or a row either way (-) that
    # may write still must not leave a protected path changed or kept.
    if outside.startswith("fail:"):
        res = "ESCAPED"
    counts[res] += 1
    word = {"ok": ("allowed" if got == "escaped" else "blocked"), "ESCAPED": "ESCAPED",
            "DENIED": "DENIED", "error": "error"}[res]
    if attack not in rows:
        rows[attack] = {}
        order.append(attack)
    rows[attack][(prof, ident)] = word
    if res != "ok":
        bad.append((attack, prof, ident, res, detail, ms))
    elif verbose:
        print("  %-20s %-11s %-6s %-8s %s" % (attack, prof, ident, word, detail))
cols = [(p, i) for i in ids for p in profiles]
hdr = "%-20s " % "attack" + " ".join("%-8s" % ("%s/%s" % (short.get(p, p[:3]), i[:4])) for p, i in cols)
print(hdr)
for a in order:
    print("%-20s " % a + " ".join("%-8s" % rows[a].get(c, "n/a") for c in cols))
if bad:
    print("\nnot ok:")
    for a, p, i, r, d, ms in bad:
        print("  %-8s %-20s %-11s %-6s %s" % (r, a, p, i, d))
slow = {}
for line in open(records):
    f = line.split("\t")
    slow[f[2]] = slow.get(f[2], 0) + int(f[6])
top = sorted(slow.items(), key=lambda kv: -kv[1])[:6]
print("\nslowest attacks (all runs): " + ", ".join("%s %.1fs" % (a, ms / 1000) for a, ms in top))
print("\nsummary: %d runs: %d ok, %d ESCAPED, %d DENIED (a must-work control failed), %d error"
      % (sum(counts.values()), counts["ok"], counts["ESCAPED"], counts["DENIED"], counts["error"]))
sys.exit(0 if not bad else 1)
PYEOF
}

# ---------------------------------------------------------------------------
# --self-test: attacks run unconfined must get through (proves they can fail).
self_test() {
	local id=root vpid vmark
	eval "vpid=\$VICTIM_root; vmark=\$VMARK_root"
	local ws=$T/root/ws out pass=0 fail=0
	check() { # expect(escaped|blocked) identity label cmd...
		local want=$1 who=$2 label=$3; shift 3
		out=$(cd "$ws" && as_id "$who" "$@" 2>/dev/null < /dev/null | tail -c 2000 | grep '^VERDICT' | tail -1)
		case $out in
		"VERDICT $want "*) pass=$((pass + 1)); [ $VERBOSE = 1 ] && echo "  ok   $label: $out" ;;
		*) fail=$((fail + 1)); echo "  FAIL $label (want $want unconfined): ${out:-no verdict}" ;;
		esac
	}
	local E=$ESC
	# other processes
	for a in ptrace_child vm_readv_child pidfd_getfd_child kill_all; do check escaped root $a $E/procs $a; done
	for a in ptrace_attach vm_readv pidfd_open proc_mem proc_environ; do check escaped root $a $E/procs $a "$vpid"; done
	check escaped root proc_scan $E/procs proc_scan "$vmark"
	check escaped root sysv_shm $E/procs sysv_shm "$SHMID"
	check escaped nobody "sysv_shm(65534)" $E/procs sysv_shm "$SHMID"
	check escaped root posix_mq $E/procs posix_mq "/tc-escape-st$RUN_TAG"
	# terminal, namespaces, foreign ABI
	for a in tiocsti tiocsti_hibits tioclinux; do check escaped root $a $E/tty $a; done
	for a in unshare_user clone_newuser clone3_newuser clone3_plain setns_user; do check escaped root $a $E/ns $a; done
	for a in unshare_user clone_newuser; do check escaped nobody "$a(65534)" $E/ns $a; done
	# A kernel with ia32 emulation switched off has no int 0x80 entry: there
	# the attack cannot get through even unconfined, so it proves nothing.
	if "$E/abi" i386_getpid 2>/dev/null </dev/null | grep -q '^VERDICT blocked .*no i386 syscall entry'; then
		echo "  skip i386_getpid, i386_socketcall: this kernel has no i386 syscall entry (ia32 emulation off)"
	else
		for a in i386_getpid i386_socketcall; do check escaped root $a $E/abi $a; done
	fi
	# kernel surface (left out: kexec_load, init_module, finit_module and x32
	# answer ENOSYS on kernels built without them, as the test VM is)
	for a in io_uring aio bpf perf userfaultfd userfaultfd_dev keyctl add_key request_key \
		 open_by_handle personality mount umount fsopen open_tree move_mount chroot \
		 pivot_root reboot swapon listmount statmount open_tree_attr fscrypt_add_key \
		 fscrypt_remove_key; do
		check escaped root $a $E/kernel $a
	done
	# fds (fd 7 is open here), environment
	check escaped root inherited_fds $E/fds scan
	check escaped root std_meta $E/fds std_meta
	check escaped root env_secret $E/env secret "$SECRET"
	check escaped root env_allowlist $E/env allowlist
	# filesystem
	# (a raw disk read is left out: some hosts refuse it even to root)
	for p in /etc/shadow /root /srv "$ws/link-shadow" "$ws/link-outside" ../outside/secret.txt "/tmp/$HOSTCANARY"; do
		check escaped root "read $p" $E/fs read r "$p"
	done
	check blocked root "read /nonexistent (the negative)" $E/fs read r /tc-escape-nonexistent
	[ -n "$SWAPKEY" ] && check escaped root read_swapped_key $E/fs read_swapped x "$SWAPKEY" 200
	reset_canaries root
	for op in truncate chmod utimes setxattr rename unlink; do
		check escaped root "$op outside" $E/fs $op x "$T/root/outside/canary"
	done
	check escaped root "chmod_same /etc/passwd" $E/fs chmod_same x /etc/passwd
	check escaped root "create /var/tmp" $E/fs create x /var/tmp "st$RUN_TAG"
	check escaped root "create via link" $E/fs create x "$ws/link-outdir" "st$RUN_TAG"
	check escaped root "open_write /proc/sys" $E/fs open_write x /proc/sys/kernel/printk_ratelimit
	check escaped root tmp_write $E/fs tmp_write x "st$RUN_TAG" "$HOSTCANARY"
	check escaped root tmp_persist $E/fs tmp_persist x "st$RUN_TAG"
	check escaped root watch_outside $E/fs watch x "$T/root/outside" 300
	check escaped root lease_ws $E/fs lease x "$T/root/ws/canary-ws"
	check escaped root dnotify_etc $E/fs dnotify x /etc
	rm -f "/tmp/tc-escape-st$RUN_TAG"
	# ways around the view
	check escaped root walk_up_outside $E/tree walk_up x "$T/root/outside/secret.txt"
	check escaped root list_beside_ws $E/tree list_beside x "$ws"
	check escaped root link_out_tmp $E/tree link_out x /tmp "$T/root/outside/secret.txt"
	check escaped root exec_workspace $E/tree exec x "$ws/.tc-escape/fds"
	# sockets
	check escaped root tcp_local $E/net tcp x 127.0.0.1 "$TCPPORT" selftest
	check escaped root tcp6_local $E/net tcp x ::1 "$TCPPORT" selftest
	check escaped root udp_local $E/net udp x 127.0.0.1 "$UDPPORT" selftest
	check escaped root unix_host $E/net unix_path x "$T/outside-host.sock" selftest
	check escaped root unix_abstract $E/net unix_abstract x "$ABS" selftest
	check escaped root socketpair $E/net socketpair x
	check escaped root socketpair_seqpack $E/net socketpair x seqpacket
	check escaped root listen_autobind $E/net listen_autobind x 4
	check escaped root abstract_squat $E/net abstract_squat x "tc-escape-st$RUN_TAG"
	check escaped root unix_dgram_pair $E/net unix_dgram_pair x dgram "$T/outside-dgram.sock" selftest
	check escaped root unix_raw_pair $E/net unix_dgram_pair x raw "$T/outside-dgram.sock" selftest
	check escaped nobody "unix_dgram_pair(65534)" $E/net unix_dgram_pair x dgram "$T/outside-dgram.sock" selftest
	local tfosave; tfosave=$(tfo_on)
	check escaped root tcp_fastopen $E/net tcp_fastopen x sendto 127.0.0.1 "$TCPPORT" selftest
	check escaped root tcp_fastopen_msg $E/net tcp_fastopen x sendmsg 127.0.0.1 "$TCPPORT" selftest
	check escaped root tcp_fastopen_mmsg $E/net tcp_fastopen x sendmmsg ::1 "$TCPPORT" selftest
	check escaped root tcp_fastopen_opt $E/net tcp_fastopen x connect_opt 127.0.0.1 "$TCPPORT" selftest
	[ -n "$tfosave" ] && echo "$tfosave" > /proc/sys/net/ipv4/tcp_fastopen
	check escaped root raw_socket $E/net raw x
	check escaped root packet_socket $E/net packet x
	check escaped root vsock $E/net vsock x
	check escaped root netlink_route $E/net netlink x 0
	check escaped root netlink_audit $E/net netlink x 9
	# privileges
	check escaped root no_new_privs $E/priv nnp
	check escaped root capabilities $E/priv caps
	check escaped root securebits $E/priv securebits
	check escaped nobody "setuid_exec(65534)" $E/priv setuid_exec /bin/mount
	check escaped root plant_setuid $E/priv plant_setuid "$ws" "st$RUN_TAG"
	check escaped root plant_setuid_at2 $E/priv plant_setuid "$ws" "st2$RUN_TAG" fchmodat2
	check escaped root plant_setuid_create $E/priv plant_setuid "$ws" "st3$RUN_TAG" create
	# resources, with small caps (no limit applies unconfined, so each
	# reaches its cap: that is the "escaped" the sandbox must prevent)
	check escaped root fork_bomb $E/hog fork_bomb "tcst$RUN_TAG" 32
	check escaped root memory_as $E/hog memory 64 0
	check escaped root memory_rss $E/hog memory 64 1
	check escaped root fsize_ws $E/hog fsize "$ws" "st$RUN_TAG" 4
	check escaped root nofile_hog $E/hog nofile 2000
	check escaped root cpu_burn $E/hog cpu "tcst$RUN_TAG" 1
	check escaped root flood $E/hog flood 1 4
	check escaped root core_limit $E/hog core_limit
	# the outside scan finds what lingers
	local m=tcsl${RUN_TAG: -4}
	(cd "$ws" && timeout -s KILL 0.3 "$E/linger" daemon "$m" >/dev/null 2>&1)
	sleep 0.1
	if [ -n "$(lingering "$m")" ]; then pass=$((pass + 1)); [ $VERBOSE = 1 ] && echo "  ok   lingering daemon found from outside"
	else fail=$((fail + 1)); echo "  FAIL the outside scan did not find an unconfined daemon"; fi
	kill_lingering "$m"
	echo "self-test: $pass attacks got through unconfined as they should, $fail did not"
	[ $fail = 0 ]
}

# ---------------------------------------------------------------------------
# fds the tool must not inherit: 3 (the first free number, where off-by-one
# bugs live) and 7
exec 3</etc/hostname 7</etc/hostname
export TC_ESCAPE_SECRET=$SECRET AWS_SECRET_ACCESS_KEY=tc-escape-decoy-$RUN_TAG
export SSH_AUTH_SOCK=$T/outside-host.sock
mkdir -p "$T/r"
LDSO=$(readelf -l "$ESC/procs" 2>/dev/null | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
LDSO=${LDSO:-/lib64/ld-linux-x86-64.so.2}
MEMFD_EXEC='import os, sys
f = os.memfd_create("tc-escape")
os.write(f, open(sys.argv[1], "rb").read())
os.execve(f, sys.argv[1:], dict(os.environ))'

setup_host
for id in $IDS; do setup_identity "$id"; start_victim "$id"; done
start_listeners

if [ $MODE = self ]; then
	self_test
	exit $?
fi

[ -x "$TOOLCAGE" ] || { echo "no $TOOLCAGE: build it first (make)"; exit 1; }
# Can the sandbox run here at all?
first=${IDS%% *}
probe=$(cd "$T/$first/ws" && as_id "$first" "$TOOLCAGE" exec --workspace "$T/$first/ws" -- /bin/true 2>&1)
prc=$?
if [ $prc = 125 ]; then
	echo "$probe" | tail -3
	echo "skip: toolcage exec cannot set up a sandbox here: $(echo "$probe" | tail -1)"
	exit 77
fi
[ $prc = 0 ] || { echo "toolcage exec -- /bin/true failed with $prc: $probe"; exit 1; }

declare -A DIRECT_EXEC
for prof in $PROFILES; do
	# Direct exec from the workspace where the profile allows it.
	(cd "$T/$first/ws" && as_id "$first" "$TOOLCAGE" exec --profile "$prof" \
		--workspace "$T/$first/ws" -- "$T/$first/ws/.tc-escape/fds" scan >/dev/null 2>&1)
	case $? in 126|127) DIRECT_EXEC[$prof]=0 ;; *) DIRECT_EXEC[$prof]=1 ;; esac
	[ "${DIRECT_EXEC[$prof]}" = 1 ] && continue
	(cd "$T/$first/ws" && as_id "$first" "$TOOLCAGE" exec --profile "$prof" \
		--workspace "$T/$first/ws" -- "$LDSO" "$T/$first/ws/.tc-escape/fds" scan >/dev/null 2>&1)
	[ $? = 127 ] && DIRECT_EXEC[$prof]=memfd
done

start=$(now_ms)
for id in $IDS; do
	for prof in $PROFILES; do
		read -r CAP_NPROC CAP_MEM CAP_FSIZE CAP_NOFILE < <(profile_caps "$prof")
		case $prof in read-only) col=1 ;; write) col=2 ;; network) col=3 ;; destructive) col=4 ;; *) col=1 ;; esac
		while read -r attack e1 e2 e3 e4 flags cmd; do
			case $attack in ''|'#'*) continue ;; esac
			[ -n "$ONLY" ] && ! [[ $attack =~ $ONLY ]] && continue
			[ "$attack" = tcp_port80 ] && [ "$PORT80" = 0 ] && { SKIPPED80=1; continue; }
			eval "expect=\$e$col"
			[ "$expect" = n ] && continue
			# shellcheck disable=SC2086
			run_attack "$id" "$prof" "$attack" "$expect" "$flags" $cmd
		done <<< "$TABLE"
	done
done
elapsed=$(( $(now_ms) - start ))
[ -n "${SKIPPED80:-}" ] && echo "note: port 80 could not be bound here (in use, or the runner is not root): tcp_port80 (a host service on port 80) was skipped"
echo "escape suite${SPARE:+ (through spares)}: ids [$IDS], profiles [$PROFILES], $SEQ runs in $((elapsed / 1000)).$((elapsed % 1000 / 100)) s"
evaluate

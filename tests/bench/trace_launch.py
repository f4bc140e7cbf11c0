#!/usr/bin/env python3
"""tests/bench/trace_launch.py — phases of a launch from a kernel trace.

Reads the text of /sys/kernel/tracing/trace written by trace_launch.sh
(raw_syscalls and sched events of the launches and their children) and
prints, for each launcher, the median and quartiles of each phase over the
launches, in microseconds, from the exec of the launcher to the moment it
is a zombie (what its parent waits for). Tracing adds about a microsecond
to every system call, so phases made of many calls read high; the exits
make no calls and read true.

usage: trace_launch.py TRACE LAUNCHER [LAUNCHER...]   (e.g. toolcage env)
"""
import collections
import re
import statistics
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (\w+): (.*)$')
SYS_EXECVE, SYS_CLONE, SYS_CLONE3 = 59, 56, 435


def parse(path):
    """Per pid: its events of interest, in order (time in us)."""
    tasks = collections.defaultdict(dict)
    children = collections.defaultdict(list)
    for line in open(path, errors='replace'):
        m = LINE.match(line)
        if not m:
            continue
        pid, ts, name, rest = int(m.group(2)), float(m.group(4)) * 1e6, m.group(5), m.group(6)
        t = tasks[pid]
        if name == 'sched_process_fork':
            child = int(re.search(r'child_pid=(\d+)', rest).group(1))
            children[pid].append(child)
            tasks[child]['born'] = ts
        elif name == 'sched_process_exec':
            t.setdefault('execs', []).append((ts, re.search(r'filename=(\S+)', rest).group(1)))
        elif name == 'sched_process_exit':
            t['exit'] = ts
        elif name == 'sched_switch':
            s = re.search(r'prev_pid=(\d+) .*prev_state=(\S+)', rest)
            if s and s.group(2).startswith(('Z', 'X')):
                tasks[int(s.group(1))].setdefault('zombie', ts)
        elif name == 'sys_enter':
            nr = int(rest.split()[1])
            t.setdefault('calls', []).append(ts)
            if nr == SYS_EXECVE:
                t.setdefault('execve', []).append(ts)
            elif nr in (SYS_CLONE, SYS_CLONE3):
                t.setdefault('clone', ts)
    return tasks, children


def calls(t, a, b):
    """How many system calls t entered in [a, b)."""
    return sum(1 for ts in t.get('calls', []) if a <= ts < b)


def phases(tasks, children, launcher):
    """Yields {phase: (us, calls)} for each launch of launcher."""
    for pid, t in tasks.items():
        execs = [e for e in t.get('execs', []) if e[1].rsplit('/', 1)[-1] == launcher]
        if not execs or 'zombie' not in t or 'exit' not in t:
            continue
        start = execs[0][0]
        later = [ts for ts in t.get('execve', []) if ts > start]
        kids = [tasks[c] for c in children.get(pid, []) if 'execve' in tasks[c]]
        if later:   # the launcher execs the tool itself (env)
            yield {
                '1 exec of the launcher, its work': (later[0] - start, calls(t, start, later[0])),
                '2 the tool: exec, run': (t['exit'] - later[0], calls(t, later[0], t['exit'])),
                '3 the tool: exit': (t['zombie'] - t['exit'], 0),
                'total': (t['zombie'] - start, calls(t, start, t['zombie'])),
            }
        elif kids and 'clone' in t:   # it runs the tool in a child (toolcage)
            k = kids[0]
            if 'exit' not in k or 'zombie' not in k:
                continue
            tool = k['execve'][0]
            yield {
                '1 exec of the launcher, its work before clone':
                    (t['clone'] - start, calls(t, start, t['clone'])),
                '2 clone until the child runs': (k['born'] - t['clone'], 1),
                '3 the child: setup until exec': (tool - k['born'], calls(k, k['born'], tool)),
                '4 the tool: exec, run': (k['exit'] - tool, calls(k, tool, k['exit'])),
                '5 the tool: exit': (k['zombie'] - k['exit'], 0),
                '6 the launcher: after the tool':
                    (t['exit'] - k['zombie'], calls(t, k['zombie'], t['exit'])),
                '7 the launcher: exit': (t['zombie'] - t['exit'], 0),
                'total': (t['zombie'] - start,
                          calls(t, start, t['zombie']) + calls(k, k['born'], k['zombie'])),
            }


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tasks, children = parse(sys.argv[1])
    for launcher in sys.argv[2:]:
        runs = list(phases(tasks, children, launcher))
        print('  %s (%d launches): median [p25 p75] us, system calls' % (launcher, len(runs)))
        if not runs:
            continue
        for name in runs[0]:
            v = sorted(r[name][0] for r in runs)
            n = statistics.median(r[name][1] for r in runs)
            print('    %-48s %7.0f [%6.0f %6.0f] %5.0f' % (name, statistics.median(v),
                  v[len(v) // 4], v[3 * len(v) // 4], n))


if __name__ == '__main__':
    main()

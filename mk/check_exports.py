#!/usr/bin/env python3
"""mk/check_exports.py — `make check-exports`: libtoolcage exports its public
API and nothing else. Lists the global symbols the archive (and the shared
library, where built) defines and fails on one that include/toolcage.h does
not declare, and on a declared function that no library defines.

    python3 mk/check_exports.py HEADER LIBRARY...
"""
import re
import subprocess
import sys

DECL = re.compile(r"\b(tc_[a-z0-9_]+)\s*\(")


def declared(header):
    text = open(header, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)   # comments name calls too
    text = re.sub(r"typedef[^;]*;", " ", text)             # function pointer types
    return set(DECL.findall(text))


def exported(lib):
    args = ["nm", "-g", "--defined-only"]
    if lib.endswith(".so") or ".so." in lib:
        args.append("-D")
    r = subprocess.run(args + [lib], capture_output=True, text=True, check=True)
    out = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        # "A" in a shared object: the version node of the version script
        # (TOOLCAGE_0), not a symbol anyone can call.
        if len(parts) == 3 and parts[1] not in ("w", "v") and not (
                "-D" in args and parts[1] == "A"):
            out.add(parts[2].split("@")[0])
    return out


def main():
    header, libs = sys.argv[1], sys.argv[2:]
    api = declared(header)
    bad = False
    for lib in libs:
        syms = exported(lib)
        print(f"check-exports: {lib}: {len(syms)} exported symbols")
        for s in sorted(syms):
            print(f"  {s}")
        extra = sorted(syms - api)
        missing = sorted(api - syms)
        for s in extra:
            print(f"{lib}: exports {s}, which {header} does not declare "
                  "(make it static, or declare it in the public header)")
        for s in missing:
            print(f"{lib}: does not define {s}, which {header} declares")
        bad |= bool(extra or missing)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

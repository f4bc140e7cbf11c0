#!/usr/bin/env python3
"""mk/check_exports.py — `make check-exports`: libtoolcage exports its public
API and nothing else. Lists the global symbols the archive (and the shared
library, where built) defines and fails on one that include/toolcage.h does
not declare, and on a declared function that no library defines. With
--symbols FILE (the Debian package's symbols file) it also fails when that
file does not list exactly the declared functions: dpkg-gensymbols only
warns about a new one, and a package whose file lacks it lets a program
built against it load an older library that does not define it.

    python3 mk/check_exports.py [--symbols FILE] HEADER LIBRARY...
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


def listed(symbols):
    out = set()
    for line in open(symbols, encoding="utf-8"):
        # " tc_call@TOOLCAGE_0 0.1.0": a symbol line starts with a space
        if line.startswith(" ") and line.split():
            name = line.split()[0].split("@")[0]
            if name.startswith("tc_"):
                out.add(name)
    return out


def main():
    args = sys.argv[1:]
    symbols = None
    if args[:1] == ["--symbols"]:
        symbols, args = args[1], args[2:]
    header, libs = args[0], args[1:]
    api = declared(header)
    bad = False
    if symbols:
        have = listed(symbols)
        for s in sorted(api - have):
            print(f"{symbols}: does not list {s}, which {header} declares "
                  f"(add \" {s}@TOOLCAGE_0 VERSION\", the version that "
                  "first has it)")
        for s in sorted(have - api):
            print(f"{symbols}: lists {s}, which {header} does not declare "
                  "(a removed symbol breaks the ABI: bump the soname)")
        bad |= have != api
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

#!/bin/sh
# tests/integration/deps_optional.sh — cmocka is for the unit tests only. As
# a user who cannot install packages, on a machine without libcmocka-dev:
#   - mk/deps.sh writes the build's flags and exits 0, with a note that
#     names the package the unit tests need;
#   - the Makefile's need-cmocka (every unit test object waits on it) stops
#     with that package named, instead of a compiler error on cmocka.h;
#   - a library the build itself needs still stops mk/deps.sh, naming it.
# The missing packages are simulated by a pkg-config in PATH that knows
# nothing of them. Exit 0 pass, 1 fail, 77 skip.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
command -v pkg-config >/dev/null || { echo "skip: no pkg-config"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: no setpriv"; exit 77; }
command -v make >/dev/null || { echo "skip: no make"; exit 77; }
real_pc=$(command -v pkg-config)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# A pkg-config without the modules named in $HIDE.
mkdir "$tmp/bin"
cat > "$tmp/bin/pkg-config" <<EOF
#!/bin/sh
for a in "\$@"; do
	for h in \$HIDE; do [ "\$a" = "\$h" ] && exit 1; done
done
exec $real_pc "\$@"
EOF
chmod 755 "$tmp/bin/pkg-config"
# Not root (apt-get would install what is missing): uid 65534, HOME and
# the output in $tmp.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid 65534 --regid 65534 --clear-groups env HOME="$tmp" \
			PATH="$tmp/bin:$PATH" "$@"
	else
		env PATH="$tmp/bin:$PATH" "$@"
	fi
}
[ "$(id -u)" != 0 ] || chown 65534:65534 "$tmp"

# 1. No cmocka: deps.sh goes on, with a note.
HIDE=cmocka as_user sh "$repo/mk/deps.sh" "$tmp/config.mk" > "$tmp/out1" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "PKG_LIBS :=" "$tmp/config.mk" 2>/dev/null; then
	ok "no cmocka: mk/deps.sh wrote the build's flags (exit 0)"
else
	bad "no cmocka: mk/deps.sh exit $rc: $(cat "$tmp/out1")"
fi
grep -q "libcmocka-dev" "$tmp/out1" && grep -q "unit tests" "$tmp/out1" &&
	ok "no cmocka: the note names libcmocka-dev and the unit tests" ||
	bad "no cmocka: no note naming libcmocka-dev: $(cat "$tmp/out1")"

# 2. A unit test's object waits on need-cmocka, which names the package.
HIDE=cmocka as_user make -s -C "$repo" BUILD="$tmp/build" "$tmp/build/obj/tests/unit/test_util.o" \
	> "$tmp/out2" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "sudo apt-get install libcmocka-dev" "$tmp/out2" &&
	! grep -q "cmocka.h" "$tmp/out2"; then
	ok "no cmocka: a unit test's build stops naming libcmocka-dev (exit $rc)"
else
	bad "no cmocka: a unit test's build exit $rc: $(tail -5 "$tmp/out2")"
fi
[ -e "$tmp/build/obj/tests/unit/test_util.o" ] &&
	bad "no cmocka: the unit test's object was built anyway"

# 3. With cmocka, need-cmocka passes.
HIDE= as_user make -s -C "$repo" BUILD="$tmp/build" need-cmocka > "$tmp/out3" 2>&1 &&
	ok "with cmocka: need-cmocka passes" ||
	bad "with cmocka: need-cmocka failed: $(cat "$tmp/out3")"

# 4. A library the build needs is still required.
HIDE=libseccomp as_user sh "$repo/mk/deps.sh" "$tmp/config2.mk" > "$tmp/out4" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "libseccomp-dev" "$tmp/out4" && [ ! -e "$tmp/config2.mk" ]; then
	ok "no libseccomp: mk/deps.sh stops naming libseccomp-dev (exit $rc)"
else
	bad "no libseccomp: mk/deps.sh exit $rc: $(cat "$tmp/out4")"
fi

[ $fails = 0 ] || exit 1
exit 0

#!/bin/sh
# Build the compiled game core (src/quiltsolve/engine/_core) and the C search (solver/_exactcover) with AddressSanitizer and
# UBSan in a temporary copy of the source tree, and run the core's tests against that build.
#
#   scripts/sanitize_core.sh [PYTEST ARGS...]     default: tests/engine/test_core.py tests/puzzle
#
# (tests/engine, tests/search and tests/puzzle pass under it. Tests that make OR-Tools throw C++ exceptions,
# e.g. tests/solver/test_cover.py, abort in ASan's __cxa_throw interceptor: OR-Tools is not built for a
# preloaded ASan runtime; that is not a finding in our code.)
#
# PYTHON: the interpreter (default .venv/bin/python, else python3); CC: the compiler (gcc: libasan is preloaded
# with LD_PRELOAD=$(CC -print-file-name=libasan.so), since python itself is not built with ASan).
# Any sanitizer report fails the run (-fno-sanitize-recover, halt_on_error); leaks are not checked
# (ASAN_OPTIONS=detect_leaks=0: the interpreter keeps memory to the end on purpose).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
    if [ -x "$here/.venv/bin/python" ]; then PYTHON="$here/.venv/bin/python"; else PYTHON=python3; fi
fi
CC=${CC:-gcc}
command -v "$CC" >/dev/null 2>&1 || { echo "sanitize_core: no C compiler ($CC)" >&2; exit 2; }
asan=$("$CC" -print-file-name=libasan.so)
[ -f "$asan" ] || { echo "sanitize_core: $CC has no libasan.so" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/quiltsolve-sanitize.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
tar -C "$here" --exclude=./.venv --exclude=./.git --exclude='*.so' --exclude=./build --exclude='__pycache__' \
    --exclude=./out --exclude=./.pytest_cache --exclude=./.hypothesis -cf - . | tar -C "$tmp" -xf -
cd "$tmp"
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
echo "sanitize_core: building in $tmp with $flags"
CC="$CC" CFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" "$PYTHON" setup.py -q build_ext --inplace
for ext in src/quiltsolve/engine/_core src/quiltsolve/solver/_exactcover; do
    ls "$ext".*.so >/dev/null 2>&1 || { echo "sanitize_core: $ext did not build" >&2; exit 1; }
done
[ $# -gt 0 ] || set -- tests/engine/test_core.py tests/puzzle
# the tests must load this build (the copy's own src/quiltsolve/, ahead of the venv's editable install)
export PYTHONPATH="$tmp/src"
loaded=$(ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$asan" "$PYTHON" -c \
    'from quiltsolve.engine import core; m = core.c_module(); print(m.__file__ if m else "")')
case "$loaded" in
    "$tmp"/*) echo "sanitize_core: loads $loaded" ;;
    *) echo "sanitize_core: the tests would not load the sanitized build (got '$loaded')" >&2; exit 1 ;;
esac
echo "sanitize_core: running pytest $* under ASan/UBSan"
ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
LD_PRELOAD="$asan" \
    "$PYTHON" -m pytest -q -p no:cacheprovider "$@"
echo "sanitize_core: clean"

#!/bin/sh
# The steps deploy/Dockerfile runs, in a script so that tests/deploy can run
# exactly the same steps in a temporary directory without a container runtime.
#
#   build-image-steps.sh wheels SRC OUT
#       Build stage. Builds a wheel of the project in SRC (compiling the C search
#       solver/_exactcover.c and the game core engine/_core/) and wheels of every dependency, pinned by
#       SRC/constraints.txt, into OUT/wheels; copies constraints.txt, this script
#       and deploy/healthcheck.py to OUT. Needs python3 (3.11) with venv, and
#       PyPI. When a C compiler is present the project wheel must contain the
#       compiled extension (setup.py makes it optional: a silent fallback to the
#       slower pure-Python search is refused here); QUILTSOLVE_REQUIRE_EXTENSION=0
#       lifts that, =1 requires it even without "cc" on PATH.
#       A PEM bundle at /run/secrets/pip-ca (a build secret) or in
#       QUILTSOLVE_PIP_CA is given to pip as its CA bundle (TLS-intercepting proxies).
#
#   build-image-steps.sh install OUT PREFIX
#       Runtime stage. Creates a venv at PREFIX from the image's python3 and
#       installs quiltsolve from OUT/wheels only (pip --no-index), pinned by
#       OUT/constraints.txt (after checking OUT/SHA256SUMS); removes pip and setuptools from it (nothing is
#       installed at run time); puts healthcheck.py in PREFIX; checks that the
#       installed server and web app import (console scripts quiltsolve-web and
#       quiltsolve-server, the app's static files), with the C search when it was built.
#
#   build-image-steps.sh smoke PREFIX
#       The import check alone.
set -eu

die() { echo "build-image-steps: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}

smoke() {
    prefix=$1
    for script in quiltsolve-web quiltsolve-server; do  # the image's entry point, and the gRPC-only one
        [ -x "$prefix/bin/$script" ] || die "$prefix/bin/$script: no such console script"
    done
    "$prefix/bin/python" -P - <<'EOF'
import importlib.resources, importlib.util, sys
import grpc, grpc_health.v1.health, grpc_reflection.v1alpha.reflection, ortools  # noqa: F401
import starlette, uvicorn  # noqa: F401
import quiltsolve.server.__main__ as main
from quiltsolve import solver
import quiltsolve.web.__main__ as web_main
main.build_parser()
web_main.build_web_parser()
index = importlib.resources.files("quiltsolve.web") / "static" / "index.html"
if not index.is_file():
    sys.exit("smoke: the web app's static/index.html is not installed")
ext = importlib.util.find_spec("quiltsolve.solver._exactcover")
core = importlib.util.find_spec("quiltsolve.engine._core")
endgame = importlib.util.find_spec("quiltsolve.engine._endgame")
print(f"smoke: python {sys.version.split()[0]}, server at {main.__file__}, web app at {index}, "
      f"C search {'compiled' if ext else 'absent (pure-Python fallback)'}, "
      f"game core {'compiled' if core else 'absent (pure-Python fallback)'}, "
      f"endgame solver {'compiled' if endgame else 'absent (pure-Python fallback)'}")
EOF
}

cmd=${1:-}
[ $# -ge 1 ] && shift
case "$cmd" in
wheels)
    [ $# -eq 2 ] || die "usage: $0 wheels SRC OUT"
    src=$(cd "$1" && pwd)
    mkdir -p "$2/wheels"
    out=$(cd "$2" && pwd)
    [ -f "$src/constraints.txt" ] || die "$src/constraints.txt is missing"
    ca=${QUILTSOLVE_PIP_CA:-}
    [ -z "$ca" ] && [ -s /run/secrets/pip-ca ] && ca=/run/secrets/pip-ca
    if [ -n "$ca" ]; then
        export PIP_CERT="$ca"
    fi
    venv=$(mktemp -d "${TMPDIR:-/tmp}/quiltsolve-build-venv.XXXXXX")
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip --version
    # -c pins every dependency to the versions `make test` uses
    "$venv/bin/python" -m pip wheel --disable-pip-version-check -c "$src/constraints.txt" -w "$out/wheels" "$src"
    rm -rf "$venv"
    require=${QUILTSOLVE_REQUIRE_EXTENSION:-auto}
    if [ "$require" = auto ]; then
        if command -v "${CC:-cc}" >/dev/null 2>&1; then require=1; else require=0; fi
    fi
    set -- "$out"/wheels/quiltsolve-*.whl
    [ -f "$1" ] || die "no quiltsolve wheel was built in $out/wheels"
    "$PYTHON" - "$1" "$require" <<'EOF'
import sys, zipfile
wheel, require = sys.argv[1], sys.argv[2] == "1"
names = zipfile.ZipFile(wheel).namelist()
# Every C extension setup.py builds: (path prefix in the wheel, what it is).
extensions = [("quiltsolve/solver/_exactcover", "C search"), ("quiltsolve/engine/_core", "game core"),
              ("quiltsolve/engine/_endgame", "endgame solver")]
found = {prefix: [n for n in names if n.startswith(prefix) and n.endswith(".so")] for prefix, _ in extensions}
print(f"wheel {wheel.rsplit('/', 1)[-1]}: "
      + ", ".join(f"{what} {found[p][0] if found[p] else 'not compiled'}" for p, what in extensions))
for prefix, what in extensions:
    if require and not found[prefix]:
        sys.exit(f"build-image-steps: a C compiler is present but the wheel has no {prefix}*.so "
                 "(see the compiler's messages above); QUILTSOLVE_REQUIRE_EXTENSION=0 accepts the fallback")
EOF
    cp "$src/constraints.txt" "$out/constraints.txt"
    cp "$here/healthcheck.py" "$here/build-image-steps.sh" "$out/"
    # what the runtime stage installs, by content: it checks these sums, and the
    # Dockerfile copies this file first so that a changed wheel or script
    # invalidates the cached install layer (buildah's cache does not look into
    # RUN --mount=type=bind,from=... sources)
    (cd "$out" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
    ls -l "$out/wheels"
    ;;
install)
    [ $# -eq 2 ] || die "usage: $0 install OUT PREFIX"
    out=$1 prefix=$2
    [ -d "$out/wheels" ] || die "$out/wheels: no wheels (run the wheels step first)"
    (cd "$out" && sha256sum -c --quiet SHA256SUMS) || die "$out does not match its SHA256SUMS"
    "$PYTHON" -m venv "$prefix"
    "$prefix/bin/python" -m pip install --disable-pip-version-check --no-cache-dir --no-index \
        --find-links "$out/wheels" -c "$out/constraints.txt" quiltsolve
    "$prefix/bin/python" -m pip uninstall --disable-pip-version-check -y -q pip setuptools
    cp "$out/healthcheck.py" "$prefix/healthcheck.py"
    smoke "$prefix"
    ;;
smoke)
    [ $# -eq 1 ] || die "usage: $0 smoke PREFIX"
    smoke "$1"
    ;;
*)
    die "usage: $0 wheels SRC OUT | install OUT PREFIX | smoke PREFIX"
    ;;
esac

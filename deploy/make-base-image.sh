#!/usr/bin/env bash
# Make the two base images deploy/Dockerfile needs, from Debian packages only,
# for a machine that reaches a Debian mirror but no image registry.
#
#   localhost/quiltsolve-base:bookworm        runtime: python3 (3.11), venv, tini, CA certificates
#   localhost/quiltsolve-build-base:bookworm  the same plus gcc, libc6-dev, python3-dev (the C search)
#
# Usage (as root: debootstrap and chroot need it):
#   deploy/make-base-image.sh [WORKDIR]          # default WORKDIR /var/tmp/quiltsolve-rootfs
# Environment:
#   SUITE=bookworm   Debian suite; bookworm ships Python 3.11 (pyproject.toml wants >=3.11,<3.12;
#                    trixie's 3.13 would not do)
#   MIRROR=...       Debian mirror (default: the first one apt uses here, else deb.debian.org)
#   PODMAN="podman"  the container CLI that imports the tarballs (e.g. "podman --storage-driver vfs")
#   KEEP_ROOTFS=1    keep WORKDIR afterwards
# Then: podman build -f deploy/Dockerfile --build-arg BASE=localhost/quiltsolve-base:bookworm \
#         --build-arg BUILD_BASE=localhost/quiltsolve-build-base:bookworm -t quiltsolve .
set -euo pipefail

WORK=${1:-/var/tmp/quiltsolve-rootfs}
SUITE=${SUITE:-bookworm}
PODMAN=${PODMAN:-podman}

if [[ -z "${MIRROR:-}" ]]; then
    MIRROR=$(grep -hoE '^URIs: *http[^ ]*/debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 |
             sed -E 's/^URIs: *//') || true
    [[ -n "$MIRROR" ]] || MIRROR=$(awk '$1=="deb" && $2 ~ /^http/ && $2 ~ /debian\/?$/ {print $2; exit}' \
                                   /etc/apt/sources.list 2>/dev/null) || true
    MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi

command -v debootstrap >/dev/null || { echo "needs debootstrap: apt-get install -y debootstrap" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "run as root (debootstrap, chroot)" >&2; exit 2; }

RUNTIME_PKGS=python3,python3-venv,ca-certificates,tini
BUILD_PKGS="gcc libc6-dev python3-dev"

rm -rf "$WORK"
mkdir -p "$WORK"
echo "== debootstrap $SUITE from $MIRROR into $WORK/runtime"
debootstrap --variant=minbase --include="$RUNTIME_PKGS" "$SUITE" "$WORK/runtime" "$MIRROR"

echo "== build rootfs: runtime + $BUILD_PKGS"
cp -a "$WORK/runtime" "$WORK/build"
cp /etc/resolv.conf "$WORK/build/etc/resolv.conf"
chroot "$WORK/build" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $BUILD_PKGS

slim() {  # what a container never needs: package caches and lists, docs, man pages, locales
    local r=$1
    rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/cache/apt/*.bin "$r"/var/lib/apt/lists/* \
           "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/var/log/*.log \
           "$r"/var/cache/debconf/*-old "$r"/var/lib/dpkg/*-old
    find "$r"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} + 2>/dev/null || true
    : > "$r"/etc/resolv.conf
    # the Python bytecode caches the chroot left behind are rebuilt on demand
    find "$r"/usr/lib/python3* -name __pycache__ -type d -prune -exec rm -rf {} + 2>/dev/null || true
}
slim "$WORK/runtime"
slim "$WORK/build"

echo "== import"
tar --numeric-owner -C "$WORK/runtime" -c . | $PODMAN import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' - "localhost/quiltsolve-base:$SUITE"
tar --numeric-owner -C "$WORK/build" -c . | $PODMAN import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' - "localhost/quiltsolve-build-base:$SUITE"
[[ -n "${KEEP_ROOTFS:-}" ]] || rm -rf "$WORK"
$PODMAN images --filter reference='localhost/quiltsolve-*base*'

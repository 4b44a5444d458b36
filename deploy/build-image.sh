#!/usr/bin/env bash
# Build the quiltsolve image with podman (or docker) from deploy/Dockerfile.
#
#   deploy/build-image.sh [TAG]                 # default localhost/quiltsolve:0.2.0
# Environment:
#   ENGINE=podman|docker   container CLI (default: podman if present, else docker)
#   BASE, BUILD_BASE       base images (default: the no-registry ones deploy/make-base-image.sh
#                          makes, localhost/quiltsolve-base:bookworm and ...-build-base:bookworm,
#                          when they exist; else the Dockerfile's python:3.11 defaults)
#   PIP_CA                 CA bundle for pip in the build stage (default: $PIP_CERT, else
#                          /etc/ssl/certs/ca-certificates.crt when it exists), passed as the
#                          build secret "pip-ca"
#   EXTRA_BUILD_ARGS       more arguments for "build", e.g. "--network host"
#   CONTAINERS_CONF        podman/buildah settings (deploy/containers-sandbox.conf on the sandbox)
# Relative paths in CONTAINERS_CONF, PIP_CA and PIP_CERT are taken from the directory the
# script is run from and made absolute before it moves to the repository (buildah's copier
# refuses a relative CONTAINERS_CONF; the secret's src must still name the file after the cd).
# Prints the build time and the image size at the end.
set -euo pipefail

absolute() {  # VAR: an existing file's absolute path, or an error naming VAR
    local var=$1 value=${!1:-}
    [[ -z "$value" ]] && return 0
    [[ -e "$value" ]] || { echo "build-image.sh: $var=$value: no such file" >&2; exit 2; }
    printf -v "$var" '%s' "$(realpath -- "$value")"
    export "${var?}"
}
absolute CONTAINERS_CONF
absolute PIP_CA
absolute PIP_CERT
cd "$(dirname "$0")/.."

TAG=${1:-localhost/quiltsolve:0.2.0}
ENGINE=${ENGINE:-$(command -v podman >/dev/null && echo podman || echo docker)}
args=(build -f deploy/Dockerfile -t "$TAG")

has_image() { $ENGINE image inspect "$1" >/dev/null 2>&1; }
if [[ -z "${BASE:-}" ]] && has_image localhost/quiltsolve-base:bookworm; then
    BASE=localhost/quiltsolve-base:bookworm
fi
if [[ -z "${BUILD_BASE:-}" ]] && has_image localhost/quiltsolve-build-base:bookworm; then
    BUILD_BASE=localhost/quiltsolve-build-base:bookworm
fi
[[ -n "${BASE:-}" ]] && args+=(--build-arg "BASE=$BASE")
[[ -n "${BUILD_BASE:-}" ]] && args+=(--build-arg "BUILD_BASE=$BUILD_BASE")
if [[ $ENGINE == podman || $ENGINE == buildah ]]; then
    # OCI images have no HEALTHCHECK; the docker format keeps it. Local base
    # images must not be looked up in a registry.
    args+=(--format docker --pull=never)
fi
PIP_CA=${PIP_CA:-${PIP_CERT:-}}
[[ -z "$PIP_CA" && -s /etc/ssl/certs/ca-certificates.crt ]] && PIP_CA=/etc/ssl/certs/ca-certificates.crt
[[ -n "$PIP_CA" ]] && args+=(--secret "id=pip-ca,src=$PIP_CA")
# shellcheck disable=SC2206
[[ -n "${EXTRA_BUILD_ARGS:-}" ]] && args+=($EXTRA_BUILD_ARGS)

echo "+ $ENGINE ${args[*]} ."
start=$(date +%s)
$ENGINE "${args[@]}" .
end=$(date +%s)
echo "built $TAG in $((end - start)) s"
$ENGINE image inspect "$TAG" --format '{{.Size}}' | awk '{printf "image size: %.0f MB (%d bytes)\n", $1/1e6, $1}'

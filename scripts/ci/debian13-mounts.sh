#!/usr/bin/env bash
# Binds /proc, /sys and /dev into a root (mount) or releases them (umount). Usage: debian13-mounts.sh mount|umount ROOT
set -euo pipefail
action=${1:?mount|umount}; ROOT=${2:?root}
if [ "$action" = mount ]; then
  for d in proc sys dev dev/pts dev/shm; do mkdir -p "$ROOT/$d"; mountpoint -q "$ROOT/$d" || mount --bind "/$d" "$ROOT/$d"; done
else
  for d in dev/shm dev/pts dev sys proc; do mountpoint -q "$ROOT/$d" && umount -l "$ROOT/$d" || true; done
fi

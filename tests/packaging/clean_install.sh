#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the .deb on a clean Debian 12 and uses it there: a minimal bookworm made with debootstrap
# (no Qt, no SQLite, nothing of the build machine's), then `apt-get install ./attnscope_*.deb` in a
# chroot, which has to pull every runtime dependency from Debian's archive, then the installed
# program: `attnscope --version`, a summary of a real trace, a headless chart export, and the
# window on the offscreen platform. Needs root, debootstrap and Debian's archive; takes minutes.
#   tests/packaging/clean_install.sh DEB [ROOT]
# ROOT (default: a temporary folder, removed at the end) is the chroot; an existing one made by an
# earlier run is reused from its clean copy, so a second run skips debootstrap.
set -euo pipefail
deb=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
shared=$(cd "$src/../shared" 2>/dev/null && pwd || true)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ "$(id -u)" -ne 0 ]; then
    echo "clean_install.sh: needs root (debootstrap and chroot)" >&2
    exit 2
fi
command -v debootstrap >/dev/null || apt-get install -y -q debootstrap >/dev/null

cache=${2:-}
work=$(mktemp -d)
root="$work/root"
cleanup() {
    for m in proc dev/pts dev sys; do umount -l "$root/$m" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

if [ -n "$cache" ] && [ -f "$cache/bookworm-minbase.tar" ]; then
    echo "== a clean bookworm from $cache/bookworm-minbase.tar"
    mkdir -p "$root" && tar -C "$root" -xf "$cache/bookworm-minbase.tar"
else
    echo "== debootstrap --variant=minbase bookworm ($mirror)"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
        { tail -20 "$work/debootstrap.log"; exit 1; }
    if [ -n "$cache" ]; then
        mkdir -p "$cache" && tar -C "$root" -cf "$cache/bookworm-minbase.tar" .
    fi
fi
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t sysfs sys "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

echo "== before: what the clean system lacks"
in_root sh -c 'dpkg -l | grep -cE "^ii +(libqt6|libsqlite3|libsimdjson)" || true' | sed 's/^/installed Qt6\/SQLite\/simdjson packages: /'

echo "== apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update -q >/dev/null
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" \
    >"$work/install.log" 2>&1 || { tail -30 "$work/install.log"; exit 1; }
grep -E "^(Setting up|[0-9]+ upgraded)" "$work/install.log" | grep -E "attnscope|upgraded" || true
echo "packages pulled in: $(grep -c '^Setting up' "$work/install.log")"

echo "== the installed program"
in_root attnscope --version
fixture=""
[ -n "$shared" ] && fixture="$shared/fixtures/traces/h100_sdpa_flash_qwen.json.gz"
if [ -f "$fixture" ]; then
    cp "$fixture" "$root/tmp/trace.json.gz"
    in_root attnscope summary /tmp/trace.json.gz --top 3
    in_root env QT_QPA_PLATFORM=offscreen attnscope export /tmp/trace.json.gz --chart roofline /tmp/roofline.png
    test -s "$root/tmp/roofline.png" && echo "chart exported: $(stat -c %s "$root/tmp/roofline.png") bytes"
fi
# The window itself, on the offscreen platform, with a screenshot taken after it painted.
in_root env QT_QPA_PLATFORM=offscreen timeout 60 attnscope --screenshot /tmp/window.png ${fixture:+/tmp/trace.json.gz}
test -s "$root/tmp/window.png" && echo "window painted: $(stat -c %s "$root/tmp/window.png") bytes"
in_root sh -c 'test -f /usr/share/applications/attnscope.desktop && test -f /usr/share/mime/packages/attnscope.xml' &&
    echo "desktop entry and MIME type installed"
if [ -n "${KEEP_SCREENSHOT:-}" ]; then cp "$root/tmp/window.png" "$KEEP_SCREENSHOT"; fi
echo "ok: installed on a clean Debian 12 with apt and ran"

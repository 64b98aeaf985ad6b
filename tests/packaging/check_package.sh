#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the .deb from a build tree (CPack, into a temporary folder) and checks what it holds: the
# program, the GUI module, the desktop entry, the icons, the AppStream metainfo and the MIME type;
# that the package depends on the Qt and SQLite libraries; and that the desktop entry and the
# metainfo validate.
#   tests/packaging/check_package.sh BUILD_DIR
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; exit 1; }
deb=$(ls "$out"/attnscope_*.deb)
contents=$(dpkg-deb -c "$deb")
fail=0
for f in ./usr/bin/attnscope ./usr/lib/attnscope/libattnscope_ui.so ./usr/share/applications/attnscope.desktop \
         ./usr/share/icons/hicolor/scalable/apps/attnscope.svg ./usr/share/icons/hicolor/48x48/apps/attnscope.png \
         ./usr/share/icons/hicolor/256x256/apps/attnscope.png \
         ./usr/share/metainfo/io.github.attnscope.AttnScope.metainfo.xml ./usr/share/mime/packages/attnscope.xml; do
    if ! grep -q " $f\$" <<<"$contents"; then
        echo "missing from the package: $f"
        fail=1
    fi
done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libqt6widgets6 libqt6charts6 libsqlite3-0 qt6-qpa-plugins; do
    grep -q "$d" <<<"$depends" || { echo "the package does not depend on $d: $depends"; fail=1; }
done
desktop-file-validate "$src/packaging/attnscope.desktop" || fail=1
appstreamcli validate --no-net "$src/packaging/io.github.attnscope.AttnScope.metainfo.xml" >/dev/null || fail=1
[ $fail -eq 0 ] && echo "ok: $(basename "$deb"), $(wc -l <<<"$contents") entries; depends: $depends"
exit $fail

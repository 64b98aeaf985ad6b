#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages AttnScope builds, runs and tests with.
# Idempotent: when everything is present it prints nothing and touches nothing.
#   install-deps.sh          what building, running and testing need
#   install-deps.sh fuzz     also clang and its sanitizer/libFuzzer runtime
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  nlohmann-json3-dev libsimdjson-dev zlib1g-dev libisal-dev libzstd-dev libsqlite3-dev libcli11-dev
  libopenblas0
  libgtest-dev libgmock-dev
  xvfb xauth python3 python3-venv valgrind
  chromium
  desktop-file-utils appstream
)
if [ "${1:-}" = "fuzz" ]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Installs what building and testing gounki needs on Debian 12, if anything is missing.
# Runs apt-get only when a package is absent, so it is quick on a prepared machine.
set -euo pipefail
# chromium: the browser test of the HTML pages (tests/test_view_browser.sh; about 30 s to
# install); librsvg2-bin: rsvg-convert for `gounki show --png`; fonts-dejavu-core: the font the
# pictures name; libedit-dev: line editing and history at `gounki play`'s prompt (optional
# in the build).
pkgs=(build-essential cmake pkg-config libopenmpi-dev openmpi-bin libzstd-dev zstd libxxhash-dev libedit-dev
      clang libomp-dev libclang-rt-14-dev clang-format chromium librsvg2-bin fonts-dejavu-core
      iproute2)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

#!/usr/bin/env bash
# Installs every Debian package nnref needs (idempotent, non-interactive). Run as root on Debian 12.
set -euo pipefail
packages=(cmake ninja-build g++
  libeigen3-dev libhwy-dev nlohmann-json3-dev doctest-dev libcli11-dev
  libvulkan-dev mesa-vulkan-drivers glslc spirv-tools vulkan-tools glslang-tools
  libmpfr-dev  # tools/certify: the correct-rounding oracle (numerics.certify_smoke)
  vulkan-validationlayers
  chromium)  # tests/cli/html.sh renders `nnref check --html` pages headless
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: all packages present"

#!/usr/bin/env bash
# Installs the system oracles intdot's tests compare against (Debian, run as root). Safe to re-run.
#   qemu-user                      runs real AArch64 NEON/SVE code
#   clang-19, lld-19, llvm-19      build the AArch64 test programs; llvm-mc is the assembler oracle
#   gcc-aarch64-linux-gnu + libc   the C library the static test programs link against
#   qemu-aarch64 from Debian's unstable suite, for SME2 (stable's QEMU predates it), unpacked
#   under $INTDOT_ORACLES (default /opt/intdot-oracles) without touching apt's own configuration.
#   ONNX Runtime for AArch64 (Debian's arm64 Python, PyPI's aarch64 wheel), run under qemu-user: the Arm
#   oracle for intdot.quant (scripts/install-arm-ort.sh), unpacked there too.
set -euo pipefail
prefix=${INTDOT_ORACLES:-/opt/intdot-oracles}
export DEBIAN_FRONTEND=noninteractive

need=()
for p in qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross clang-19 lld-19 llvm-19; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "install-oracles: installing ${need[*]}" >&2
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

sme_qemu="$prefix/qemu-unstable/usr/bin/qemu-aarch64"
if [ ! -x "$sme_qemu" ]; then
  echo "install-oracles: fetching qemu-user from Debian unstable for SME2" >&2
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/sources"
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)
  cat > "$tmp/sources/unstable.sources" <<SRC
Types: deb
URIs: $mirror
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$tmp/sources"
            -o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o APT::Architecture=amd64)
  apt-get "${apt_opts[@]}" update -qq 2>/dev/null
  (cd "$tmp" && apt-get "${apt_opts[@]}" download qemu-user >/dev/null)
  mkdir -p "$prefix/qemu-unstable"
  dpkg-deb -x "$tmp"/qemu-user_*.deb "$prefix/qemu-unstable"
fi

bash "$(dirname "$0")/install-arm-ort.sh"

echo "INTDOT_QEMU=$(command -v qemu-aarch64)"
echo "INTDOT_QEMU_SME2=$sme_qemu"
echo "INTDOT_CLANG=$(command -v clang-19)"
echo "INTDOT_LLVM_MC=$(command -v llvm-mc-19)"

#!/usr/bin/env bash
# ONNX Runtime for AArch64, run under qemu-user: the Arm oracle for intdot.quant (tests/oracles/arm_ort.py).
# Unpacks Debian's arm64 Python and C libraries and PyPI's aarch64 onnxruntime and numpy wheels under
# $INTDOT_ORACLES/arm-ort (default /opt/intdot-oracles), without installing any arm64 package or touching apt's
# configuration. Debian, run as root (install-oracles.sh calls it); safe to re-run.
set -euo pipefail
prefix=${INTDOT_ORACLES:-/opt/intdot-oracles}/arm-ort
ort_version=${INTDOT_ARM_ORT_VERSION:-1.32.0}
numpy_version=${INTDOT_ARM_NUMPY_VERSION:-2.4.6}
stamp="$prefix/.installed-$ort_version-$numpy_version"
[ -e "$stamp" ] && { echo "INTDOT_ARM_ORT=$prefix"; exit 0; }
export DEBIAN_FRONTEND=noninteractive

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
# The system's own sources, read for arm64 into lists of our own: apt's state is left as it was.
apt_opts=(-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache"
          -o APT::Architecture=arm64 -o APT::Architectures::=arm64)
echo "install-arm-ort: fetching Debian's arm64 Python 3.11 and C libraries" >&2
apt-get "${apt_opts[@]}" update -qq 2>/dev/null
# Python 3.11 is what Debian 12 ships for arm64, so the wheels below are cp311.
(cd "$tmp" && apt-get "${apt_opts[@]}" download python3.11-minimal libpython3.11-minimal libpython3.11-stdlib \
  libc6 libstdc++6 libgcc-s1 zlib1g libexpat1 libffi8 libbz2-1.0 liblzma5 libcrypt1 >/dev/null)

echo "install-arm-ort: fetching onnxruntime $ort_version and numpy $numpy_version for aarch64" >&2
py=python3
if ! $py -m pip --version >/dev/null 2>&1; then
  $py -m venv "$tmp/venv"; py="$tmp/venv/bin/python"
fi
$py -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 -d "$tmp/wheels" \
  --platform manylinux_2_28_aarch64 --platform manylinux_2_27_aarch64 --platform manylinux2014_aarch64 \
  "onnxruntime==$ort_version" "numpy==$numpy_version"

rm -rf "$prefix"; mkdir -p "$prefix/root" "$prefix/site"
for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$prefix/root"; done
for w in "$tmp"/wheels/*.whl; do $py -m zipfile -e "$w" "$prefix/site"; done

# ONNX Runtime's CPU probe (cpuinfo) reads /proc/cpuinfo and /sys, which qemu-user passes through from the x86
# host; it then dereferences NULL. qemu-user opens a path under its -L prefix first where one exists there, so
# the prefix holds what a one-core Neoverse N1 shows. The features ONNX Runtime's kernels choose by come from
# the auxiliary vector, which QEMU fills from its -cpu model.
mkdir -p "$prefix/root/proc" "$prefix/root/sys/devices/system/cpu"
cat > "$prefix/root/proc/cpuinfo" <<'CPU'
processor	: 0
BogoMIPS	: 50.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1

CPU
for f in possible present online; do echo 0 > "$prefix/root/sys/devices/system/cpu/$f"; done
touch "$stamp"
echo "INTDOT_ARM_ORT=$prefix"

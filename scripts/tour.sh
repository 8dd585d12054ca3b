#!/usr/bin/env bash
# A tour of what intdot computes and knows, one command at a time (`make tour`).
# Usage: scripts/tour.sh [path/to/intdot]
set -euo pipefail
intdot=${1:-intdot}
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
# Show each command as it would be typed: arguments with shell characters in single quotes.
say() {
  local line="$ intdot" arg
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9._=/,+-]+$ ]]; then line+=" $arg"; else line+=" '$arg'"; fi
  done
  printf '\n%s%s%s\n' "$bold" "$line" "$plain"
}
run() { say "$@"; "$intdot" "$@"; }

echo "intdot $("$intdot" --version | cut -d' ' -f2): bit-exact integer dot products"

# AMD GPU dot builtins, as written in kernel source.
run eval 'sdot4(0x01020304, 0x05060708, 10, false)'
run eval '__builtin_amdgcn_sudot4(true, 0x80FF7F01, false, 0x01020304, 100, false)' --explain
run eval 'sdot2((short2){-32768, -32768}, (short2){-32768, -32768}, 0, false)' --explain
run eval '__builtin_amdgcn_sdot4(0x80808080, 0x80808080, 0x7fffffff, true)' --profile llvm --target gfx942 --explain
run table
run table --diff

# AArch64 SUDOT: text <-> words, and execution on a register-file model.
run asm 'sudot v0.4s, v1.16b, v2.4b[3]' 'sudot za.s[w8, 0], {z0.b-z3.b}, z0.b[0]' --fields
run disasm 0x44ba1c20 0xc12f77ff 0x0f22f83f '[0x20,0x1c,0xba,0x44]'
run exec --set v1.b=-1 --set v2.b=0..15 'sudot v0.4s, v1.16b, v2.4b[3]'
run exec --svl 512 --set w8=3 --set z0.b=-128 --set z1.b=127 --set z4.b=0..63 \
  'sudot za.s[w8, 1, vgx2], { z0.b, z1.b }, z4.b[2]'

# The catalog: every spelling of an instruction, its lanes and features; availability on a named core.
run list sudot
run available 'sdot za.d[w8, 0], {z0.h-z1.h}, z2.h' apple-m4

# A refused instruction is one clear line and a non-zero exit, never a traceback.
say eval 'sudot4(true, 1, false, 2, 3, false)' --target CDNA3
"$intdot" eval 'sudot4(true, 1, false, 2, 3, false)' --target CDNA3 || echo "(exit status $?)"

#!/usr/bin/env bash
# Builds the sdist and the wheel, installs the wheel alone into a fresh venv, and runs the installed
# command: proves the package works outside the source tree (CI runs this after the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$PYTHON" -m venv "$out/build-env"
"$out/build-env/bin/python" -m pip install -q build
"$out/build-env/bin/python" -m build -q --sdist --wheel --outdir "$out/dist" . >/dev/null
ls "$out/dist"
"$PYTHON" -m venv "$out/venv"
"$out/venv/bin/python" -m pip install -q "$out"/dist/*.whl
cd "$out"  # not the source tree: the installed package must stand alone
"$out/venv/bin/intdot" --version
"$out/venv/bin/intdot" eval 'sdot4(0x01020304, 0x05060708, 10, false)'
"$out/venv/bin/python" -c "import intdot, pathlib; p = pathlib.Path(intdot.__file__).parent; assert (p / 'py.typed').exists() and (p / 'arm' / 'acle.pyi').exists()"
echo "wheel check: ok"

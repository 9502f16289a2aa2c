#!/usr/bin/env bash
# Builds the compiled solver core with AddressSanitizer and UndefinedBehaviorSanitizer and runs the
# solver tests (Python <-> C parity on hundreds of positions, bad arguments) against that build.
# Needs gcc; run it after any change to pyramide/_fastsolve.c.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
include=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()['include'])")
suffix=$(.venv/bin/python -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
mkdir -p "$build/pyramide"
gcc -shared -fPIC -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    -fstack-protector-strong -I"$include" pyramide/_fastsolve.c -o "$build/pyramide/_fastsolve$suffix"
# The sanitized core is loaded in place of the normal one; everything else comes from the checkout.
cp -r pyramide/. "$build/pyramide/"
cp "$build/pyramide/_fastsolve$suffix" "$build/pyramide/_fastsolve$suffix.keep"
rm -f "$build"/pyramide/_fastsolve*.so
mv "$build/pyramide/_fastsolve$suffix.keep" "$build/pyramide/_fastsolve$suffix"
cp -r tests "$build/tests"
cp pyproject.toml "$build/"
cd "$build"
export LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0 CI=1 PYTHONPATH="$build"
"$OLDPWD/.venv/bin/python" -c "from pyramide import _fastsolve; print('sanitized core:', _fastsolve.__file__)"
"$OLDPWD/.venv/bin/python" -m pytest -q -p no:cacheprovider tests/test_solver.py

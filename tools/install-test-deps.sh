#!/bin/sh
# Installs what wick's tests need, where missing: real PyTorch (the 2.13.0 CPU build), numpy, pytest and the
# ecosystem packages below from PyPI, wgpu 0.32.0 (wgpu-native); clang/lld with the WASI sysroot (the WebAssembly build check) and mesa-vulkan-drivers (lavapipe) from Debian. Safe to run repeatedly.
set -e
PYTHON=${PYTHON:-python3}
need_pip=""
$PYTHON -c 'import torch, sys; sys.exit(torch.__version__.split("+")[0] != "2.13.0")' 2>/dev/null || need_pip="$need_pip torch==2.13.0"
$PYTHON -c 'import numpy' 2>/dev/null || need_pip="$need_pip numpy"
$PYTHON -c 'import pytest' 2>/dev/null || need_pip="$need_pip pytest"
$PYTHON -c 'import safetensors' 2>/dev/null || need_pip="$need_pip safetensors"  # reads wick's safetensors files
# the ecosystem's own readers and runtimes that tests check wick against (issue 23): the onnx checker and ONNX
# Runtime (torch.onnx.export), tensorboard's event reader (SummaryWriter), PIL (images), tqdm and matplotlib
for mod_pkg in onnx:onnx onnxruntime:onnxruntime tensorboard:tensorboard PIL:pillow tqdm:tqdm matplotlib:matplotlib; do
    $PYTHON -c "import ${mod_pkg%%:*}" 2>/dev/null || need_pip="$need_pip ${mod_pkg#*:}"
done
# wgpu-native for the webgpu device (issue 20; tests/test_webgpu.py): the library inside the wgpu wheel, pinned
$PYTHON -c 'import importlib.metadata as m, sys; sys.exit(m.version("wgpu") != "0.32.0")' 2>/dev/null || need_pip="$need_pip wgpu==0.32.0"
if [ -n "$need_pip" ]; then
    echo "installing from PyPI:$need_pip"
    # torch is pinned: never let pip pick a newer (multi-GB CUDA) build
    $PYTHON -m pip install --quiet $need_pip
fi
need_apt=""
command -v clang-14 >/dev/null || need_apt="$need_apt clang-14"
command -v wasm-ld-14 >/dev/null || need_apt="$need_apt lld-14"
command -v npm >/dev/null || need_apt="$need_apt npm"  # installs playwright-core below
# headless Chromium for the browser golden run (tests/browser/run.mjs), driven by playwright-core below
[ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || need_apt="$need_apt chromium"
[ -f /usr/lib/wasm32-wasi/libc.a ] || need_apt="$need_apt wasi-libc"
[ -f /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a ] || need_apt="$need_apt libclang-rt-14-dev-wasm32"
command -v wasm-opt >/dev/null || need_apt="$need_apt binaryen"
# lavapipe, a software Vulkan adapter (with the Vulkan loader), so the webgpu device runs on any CI machine
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need_apt="$need_apt mesa-vulkan-drivers"
if [ -n "$need_apt" ]; then
    echo "installing from Debian:$need_apt"
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need_apt >/dev/null
fi
# playwright-core, pyodide, codemirror (+ @codemirror/lang-python) and esbuild (the versions pinned in
# tests/browser/package.json and its package-lock.json) into tests/browser/node_modules; playwright-core drives
# Debian's chromium and downloads no browser; pyodide carries Python 3.14 for wasm (tests/pyodide) and loads
# offline; esbuild bundles the playground's CodeMirror editor into build/web/editor.js (web/build.mjs)
HERE=$(cd "$(dirname "$0")/.." && pwd)
missing_npm=""
for pkg in playwright-core pyodide codemirror @codemirror/lang-python esbuild; do
    [ -f "$HERE/tests/browser/node_modules/$pkg/package.json" ] || missing_npm="$missing_npm $pkg"
done
if [ -n "$missing_npm" ]; then
    echo "installing from npm:$missing_npm (tests/browser)"
    (cd "$HERE/tests/browser" && npm ci --no-audit --no-fund --silent)
fi

"""Regenerate the figures block of README.md from the commands that measure them.

    python3 tools/readme_figures.py      # runs the commands, rewrites the block between the markers

Every figure in the block is printed next to the command that produced it; nothing in it is typed by hand.
Speed ratios are not here: they vary with the machine's load, and bench/NOTES.md keeps each run's table with
its command, thread count and load average.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- figures:begin (tools/readme_figures.py) -->", "<!-- figures:end -->"


def sh(cmd):
    r = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def parity():
    rc, out = sh("python3 -m tests.parity")
    line = [ln for ln in out.splitlines() if ln.startswith("collected ")]
    if rc != 0 or not line:
        sys.exit("the parity suite did not pass; no figures written:\n" + out[-3000:])
    return line[-1]


def ledger():
    rc, out = sh("python3 tools/ledger.py")
    rows = [ln for ln in out.splitlines() if ln.startswith("| `torch") or ln.startswith("| **total**")]
    if rc != 0 or not rows:
        sys.exit("tools/ledger.py failed:\n" + out[-3000:])
    head = [ln for ln in out.splitlines() if ln.startswith("| namespace") or ln.startswith("|---")]
    return "\n".join(head + rows)


def wasm_sizes():
    rc, out = sh("make -s wasm")
    if rc != 0:
        sys.exit("make wasm failed:\n" + out[-3000:])
    rc, out = sh("python3 tools/wasm_sizes.py build/wick.wasm build/wick-nosimd.wasm")
    if rc != 0:
        sys.exit("tools/wasm_sizes.py failed:\n" + out[-3000:])
    return "\n".join("    " + ln for ln in out.splitlines())


def src_lines():
    rc, out = sh("cat src/*/*.c src/*/*.h | wc -l")
    if rc != 0:
        sys.exit("counting src/ failed:\n" + out[-3000:])
    return out.strip()


def block():
    out = [BEGIN, "",
           "Parity with real torch 2.13.0 (`python3 -m tests.parity`):", "",
           "    " + parity(), "",
           "Coverage of torch's public names (`python3 tools/ledger.py`, which lists every absent name):", "",
           ledger(), "",
           "WebAssembly core, with and without SIMD (`make wasm`, `python3 tools/wasm_sizes.py build/wick*.wasm`):", "",
           wasm_sizes(), "",
           "Lines of C in the core (`cat src/*/*.c src/*/*.h | wc -l`): " + src_lines(), "", END]
    return "\n".join(out)


def main():
    readme = os.path.join(ROOT, "README.md")
    with open(readme) as f:
        text = f.read()
    new = block()
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda m: new, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n## Figures\n\n" + new + "\n"
    with open(readme, "w") as f:
        f.write(text)
    print(new)


if __name__ == "__main__":
    main()

"""Prints the size of each WebAssembly build, raw and gzipped (gzip -9, as a web server would send it), against
issue 18's target (the core gzipped under 351 KB, borch-ts's size).  Usage: python3 tools/wasm_sizes.py FILE..."""
import gzip
import os
import sys

TARGET = 351 * 1000  # bytes, gzipped


def main(paths):
    for p in paths:
        raw = open(p, 'rb').read()
        gz = len(gzip.compress(raw, compresslevel=9, mtime=0))
        verdict = 'under' if gz < TARGET else 'OVER'
        print('%-28s %10s bytes raw, %9s bytes gzip -9 (%s the %s-byte target)'
              % (os.path.basename(p), format(len(raw), ','), format(gz, ','), verdict, format(TARGET, ',')))


if __name__ == '__main__':
    main(sys.argv[1:])

"""wick in Pyodide (sys.platform == 'emscripten'): _C.py is the torch._C of the wasm core, reached through the
JS bridge that js/pyodide.mjs registers as the module `_wickjs`."""

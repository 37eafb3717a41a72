// The few WASI preview1 imports the wick core (a wasm32-wasi reactor) uses, for node and the browser alike.
// The core does no file I/O: stdout/stderr go to the console, the clock and random_get come from the host, and
// every other import the module names answers ENOSYS (52), so a newer wasi-libc cannot make instantiation fail.

const ENOSYS = 52, EBADF = 8, ESUCCESS = 0;

export function wasiImports(module, getMemory) {
  const dv = () => new DataView(getMemory().buffer);
  const u8 = () => new Uint8Array(getMemory().buffer);
  const pending = { 1: '', 2: '' };
  const decoder = new TextDecoder();
  const impl = {
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      if (fd !== 1 && fd !== 2) return EBADF;
      let n = 0, text = '';
      for (let i = 0; i < iovsLen; i++) {
        const p = dv().getUint32(iovs + 8 * i, true), len = dv().getUint32(iovs + 8 * i + 4, true);
        text += decoder.decode(u8().subarray(p, p + len));
        n += len;
      }
      const lines = (pending[fd] + text).split('\n');
      pending[fd] = lines.pop();
      for (const line of lines) (fd === 1 ? console.log : console.error)(line);
      dv().setUint32(nwrittenPtr, n, true);
      return ESUCCESS;
    },
    clock_time_get(id, precision, timePtr) {
      // id 0 realtime, 1 monotonic, 2/3 process/thread CPU time (approximated by the monotonic clock)
      const ns = id === 0 ? BigInt(Date.now()) * 1000000n
        : BigInt(Math.round((globalThis.performance ? performance.now() : Date.now()) * 1e6));
      dv().setBigUint64(timePtr, ns, true);
      return ESUCCESS;
    },
    clock_res_get(id, resPtr) { dv().setBigUint64(resPtr, 1000n, true); return ESUCCESS; },
    random_get(ptr, len) {
      for (let off = 0; off < len; off += 65536) {
        globalThis.crypto.getRandomValues(u8().subarray(ptr + off, ptr + Math.min(len, off + 65536)));
      }
      return ESUCCESS;
    },
    environ_sizes_get(countPtr, sizePtr) { dv().setUint32(countPtr, 0, true); dv().setUint32(sizePtr, 0, true); return ESUCCESS; },
    environ_get() { return ESUCCESS; },
    args_sizes_get(countPtr, sizePtr) { dv().setUint32(countPtr, 0, true); dv().setUint32(sizePtr, 0, true); return ESUCCESS; },
    args_get() { return ESUCCESS; },
    fd_close() { return EBADF; },
    fd_seek() { return EBADF; },
    fd_fdstat_get() { return EBADF; },
    fd_prestat_get() { return EBADF; },
    proc_exit(code) { throw new Error(`wick: the wasm core called exit(${code})`); },
    sched_yield() { return ESUCCESS; },
  };
  const mod = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'wasi_snapshot_preview1' || imp.kind !== 'function') continue;
    mod[imp.name] = impl[imp.name] || (() => ENOSYS);
  }
  return { wasi_snapshot_preview1: mod };
}

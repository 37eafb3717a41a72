// The golden run's core, shared by node (tests/wasm/golden.mjs) and the browser page (tests/browser/page.mjs):
// every case tests/wasm/port_golden.py ported (golden_port.json) is executed through the JS API on the wasm core,
// and what it gives is compared with the goldens pinned under real torch (tests/parity/golden/<file>.json) by the
// parity suite's rules (capture.mjs). Cases that need a front the JS API lacks are counted by name from the port,
// never dropped. No node or browser API here: the caller passes the module, the port, a golden loader and a log.
import { makeCapture, captureError, compare } from './capture.mjs';

/** Runs the golden cases through `w` (an initialised build/js/wick.mjs). port: the parsed golden_port.json;
 *  loadGolden(file): the parsed tests/parity/golden/<file>.json (may be async); known: golden_known.json's cases;
 *  filter: a case-name substring or null; log(line) gets the same lines in every engine.
 *  Returns the counts, the new failures (`unexpected`), the known ones that pass (`fixed`) and every failure's reason. */
export async function runGolden(w, { port, loadGolden, known = {}, filter = null, verbose = false, log = () => {} }) {
  const { capture } = makeCapture(w);
  const decNum = (x) => (x === 'NaN' ? NaN : x === 'Infinity' ? Infinity : x === '-Infinity' ? -Infinity : x);
  function decode(v, vals) {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) return v.map((x) => decode(x, vals));
    if ('ref' in v) return vals[v.ref];
    if ('f' in v) return w.f(decNum(v.f));
    if ('dtype' in v) return v.dtype;
    throw new Error('cannot decode ' + JSON.stringify(v));
  }
  const decodeKw = (kw, vals) => Object.fromEntries(Object.entries(kw).map(([k, v]) => [k, decode(v, vals)]));
  const decodeData = (v) => (Array.isArray(v) ? v.map(decodeData) : decNum(v));
  const META = { shape: (t) => t.shape, dtype: (t) => t.dtype, requires_grad: (t) => t.requiresGrad, is_leaf: (t) => t.isLeaf, ndim: (t) => t.ndim };

  class MetaMismatch extends Error {}
  function indexItems(s, vals) {
    const items = s.items.map((it) => ('ref' in it ? vals[it.ref] : 'none' in it ? null : 'ellipsis' in it ? '...' :
      'bool' in it ? it.bool : 'i' in it ? it.i : 'slice' in it ? new w.Slice(...it.slice) : 'list' in it ? it.list : undefined));
    return s.tuple && items.length === 1 ? [w.tuple(...items)] : items;
  }

  function runStep(s, vals) {
    switch (s.op) {
      case 'fn': {
        if (s.name === 'tensor') {
          const kw = decodeKw(s.kw, vals);
          return w.tensor(decodeData(s.args[0]), { dtype: kw.dtype, requiresGrad: !!kw.requiresGrad });
        }
        const f = s.ns === 'linalg' ? w.linalg[s.name] : w[s.name];
        if (typeof f !== 'function') throw new Error(`the JS API has no ${s.ns ? s.ns + '.' : ''}${s.name}`);
        const args = decode(s.args, vals);
        if (Object.keys(s.kw).length) args.push(decodeKw(s.kw, vals));
        return f(...args);
      }
      case 'method': {
        const t = vals[s.of];
        if (typeof t[s.name] !== 'function') throw new Error(`the JS API has no Tensor.${s.name}`);
        const args = decode(s.args, vals);
        if (Object.keys(s.kw).length) args.push(decodeKw(s.kw, vals));
        return t[s.name](...args);
      }
      case 'index': return vals[s.of][s.i];
      case 'getitem': return vals[s.of].get(...indexItems(s, vals));
      case 'setitem': vals[s.of].set(decode(s.args[0], vals), ...indexItems(s, vals)); return null;
      case 'attr': return vals[s.of][s.name];
      case 'meta': {
        const got = META[s.name](vals[s.of]);
        if (JSON.stringify(got) !== JSON.stringify(s.expect)) throw new MetaMismatch(`${s.name} is ${JSON.stringify(got)}, torch's ${JSON.stringify(s.expect)}`);
        return s.name === 'dtype' ? { dtype: got } : got;
      }
      case 'repr': return vals[s.of].toString();
      case 'metacall': {
        const got = vals[s.of][s.name](...s.args);
        if (JSON.stringify(got) !== JSON.stringify(s.expect)) throw new MetaMismatch(`${s.name}(${s.args}) is ${JSON.stringify(got)}, torch's ${JSON.stringify(s.expect)}`);
        return got;
      }
    }
    throw new Error('unknown step ' + s.op);
  }

  function output(spec, vals) {
    if ('ref' in spec) {
      const v = vals[spec.ref];
      if (spec.as === 'dtype') return { k: 'dtype', v: 'torch.' + (typeof v === 'string' ? v : v.dtype) };
      if (v && typeof v === 'object' && 'dtype' in v && !(v instanceof w.Tensor)) return { k: 'dtype', v: 'torch.' + v.dtype };
      if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return { k: 'size', v };
      return capture(v);
    }
    if ('dict' in spec) return { k: 'dict', type: 'dict', items: spec.dict.map(([k, x]) => [output(k, vals), output(x, vals)]) };
    if ('seq' in spec) return { k: 'tuple', items: spec.seq.map((x) => output(x, vals)) };
    if ('none' in spec) return { k: 'none' };
    if ('str' in spec) return { k: 'str', v: spec.str };
    if ('bool' in spec) return { k: 'bool', v: spec.bool };
    if ('print' in spec) return { k: 'dict', type: 'dict', items: spec.print.dict.map(([k, x]) => [output(k, vals), output(x, vals)]) };
    throw new Error('bad output spec');
  }

  function runCase(c) {
    w.manualSeed(c.seed);
    return w.scope(() => {
      const vals = [];
      for (const s of c.steps) {
        try { vals.push(runStep(s, vals)); } catch (e) {
          if (e instanceof MetaMismatch) return { mismatch: e.message };
          if (s.raises && (e.kind || e instanceof TypeError)) return { raised: captureError(e) };
          if (!e.kind && !(e instanceof TypeError)) return { crashed: String(e && e.stack) };
          return { raised: captureError(e) };
        }
        if (s.raises) return { ok: { k: 'none' }, note: 'torch raised here, the JS API did not' };
      }
      const out = c.out.print ? { ...c.out, print: c.out.print } : c.out;
      return { ok: output(out, vals) };
    });
  }

  let passed = 0, failed = 0, read = 0, notPorted = 0, comparisons = 0, knownFailed = 0;
  const unexpected = [], fixed = [];
  const failReasons = {};
  const perFile = [];
  const needs = {};
  for (const [file, { ported, not_ported: skipped }] of Object.entries(port.files)) {
    const golden = (await loadGolden(file)).cases;
    let p = 0, f = 0;
    for (const [name, c] of Object.entries(ported)) {
      if (filter && !name.includes(filter)) continue;
      read++;
      const g = golden[name];
      let lib, why = '';
      try { lib = runCase(c); } catch (e) { lib = { crashed: String(e && e.stack) }; }
      if (lib.crashed || lib.mismatch) { why = lib.crashed || lib.mismatch; }
      else {
        const r = compare(g.outcome, lib, { rtol: c.rtol ?? undefined, atol: c.atol ?? undefined, match: c.match });
        comparisons += r.n;
        if (r.diffs.length || r.n === 0) why = (lib.note ? lib.note + '; ' : '') + (r.diffs.join('; ') || 'compared nothing');
      }
      const id = `${file}::${name}`;
      if (why) {
        f++;
        failReasons[id] = why.replace(/\s+at .*/s, '').slice(0, 240);
        if (id in known) knownFailed++;
        else { unexpected.push(id); log(`FAIL ${id}: ${why.slice(0, 400)}`); }
        if (verbose && id in known) log(`known FAIL ${id}: ${why.slice(0, 400)}`);
      } else {
        p++;
        if (id in known) fixed.push(id);
      }
    }
    for (const [name, reason] of Object.entries(skipped)) {
      if (filter && !name.includes(filter)) continue;
      notPorted++;
      (needs[reason] = needs[reason] || []).push(`${file}::${name}`);
    }
    passed += p; failed += f;
    perFile.push(`${file}: ${p} passed, ${f} failed, ${Object.keys(skipped).length} not ported`);
  }
  if (verbose) perFile.forEach((l) => log(l));
  log(`not ported (need a front the JS API lacks), by reason:`);
  for (const [reason, names] of Object.entries(needs).sort((a, b) => b[1].length - a[1].length)) {
    log(`  ${names.length} ${reason}${verbose ? ': ' + names.join(' ') : ' (e.g. ' + names[0] + ')'}`);
  }
  for (const id of fixed) log(`now passing (remove it from golden_known.json): ${id}`);
  return { passed, failed, read, notPorted, comparisons, knownFailed, unexpected, fixed, failReasons };
}

/** The closing line, the same in node and the browser; info is w.init()'s answer, extra what the engine adds. */
export function summaryLine(info, r, extra = '') {
  return `golden run on ${info.engine}, SIMD ${info.simd ? 'on' : 'off'}, 1 thread${extra}: ${r.read + r.notPorted} cases read, ` +
    `${r.read} ported and run: ${r.passed} passed, ${r.failed} failed (${r.knownFailed} known, listed in golden_known.json; ` +
    `${r.unexpected.length} new) in ${r.comparisons} comparisons; ${r.notPorted} not ported`;
}

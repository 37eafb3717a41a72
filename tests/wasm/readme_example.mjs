// js/README.md's example and what it must print (the comments in the block), shared by node
// (tests/wasm/test_readme.mjs) and the browser run (tests/browser/run.mjs).
/** The first ```js block of the README's text. */
export function exampleBlock(md) { return md.match(/```js\n([\s\S]*?)```/)[1]; }
export const WANT = ['tensor([[ 2.,  4.,  6.],\n        [ 8., 10., 12.]])', '\n91\n', '[ 2, 3 ] float32',
  'RuntimeError mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)'];
/** The WANT strings absent from the printed text. */
export function missing(out) { return WANT.filter((s) => !out.includes(s)); }

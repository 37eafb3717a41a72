// The lessons' format, shared by the lesson page (web/learn.mjs) and its tests: a lesson is web/lessons/NAME.md,
// Markdown whose ```python blocks run in order in one namespace (tests/pyodide/pin.py reads them the same way).
export const LESSONS = [
  ['tensors', 'Tensors'],
  ['data', 'Datasets, DataLoaders and transforms'],
  ['model', 'Build the model, train it, save it'],
  ['autograd', 'Automatic differentiation'],
];

/** The code of each ```python block, in order. */
export function lessonBlocks(md) {
  return [...md.matchAll(/^```python\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

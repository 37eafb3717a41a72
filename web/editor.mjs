// The playground's editor: CodeMirror 6 (npm codemirror + @codemirror/lang-python), bundled offline by
// web/build.mjs with esbuild into build/web/editor.js. The page sees one function:
//   const ed = createEditor(parent, text, { onRun });  ed.value / ed.value = text / ed.view (the EditorView)
// Ctrl-Enter (Cmd-Enter) calls onRun.
import { basicSetup, EditorView } from 'codemirror';
import { keymap } from '@codemirror/view';
import { indentWithTab } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';

export function createEditor(parent, text, { onRun } = {}) {
  const run = () => { if (onRun) onRun(); return true; };
  const view = new EditorView({
    doc: text,
    parent,
    extensions: [
      keymap.of([{ key: 'Mod-Enter', run }, indentWithTab]),
      basicSetup,
      python(),
      EditorView.theme({ '&': { fontSize: '13px', border: '1px solid #ccc' }, '.cm-scroller': { minHeight: '16rem' } }),
    ],
  });
  return {
    view,
    get value() { return view.state.doc.toString(); },
    set value(s) { view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: s } }); },
  };
}

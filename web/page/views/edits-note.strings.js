// edits-note.strings.js: the words of edits-note.js (a view), zh and en (web/page/views/edits-note.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const EDITS_NOTE_STRINGS = {
  zh: {
    'edits.list': '手动编辑过的格子（已标出）：{cells}。',
    'edits.dropped': '你对 {names} 的编辑已清除：{why}。',
    'edits.why.seed': '新的种子重新生成了权重',
    'edits.why.sentence': '新的句子带来新的 X',
    'edits.why.dk': 'd_k 改变了 W 的形状',
    'edits.undo': '撤销编辑',
  },
  en: {
    'edits.list': 'Cells edited by hand (marked): {cells}.',
    'edits.dropped': 'Your edits of {names} were cleared: {why}.',
    'edits.why.seed': 'a new seed draws new weights',
    'edits.why.sentence': 'a new sentence makes a new X',
    'edits.why.dk': 'd_k changes the shape of W',
    'edits.undo': 'Undo edits',
  },
};

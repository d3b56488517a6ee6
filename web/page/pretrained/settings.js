// pretrained/settings.js: the URL property of the 预训练 section (state.js reads it from the
// registry). No DOM, no WebAssembly, no data: the widget's core script carries this file.
//   ppoem  the reader's quatrain (a 五绝 or 七绝) whose attention the section shows; empty: the
//          first of the validation quatrains the report offers (web/data/rhyme-head.json, examples)
import { quatrainPositions } from './rhyme-head.js';

export const PRETRAINED_PROPERTIES = Object.freeze([
  { name: 'ppoem', type: 'text', maxLength: 40, default: '',
    validate: (raw) => (raw === '' || quatrainPositions(raw) ? raw : null) },
]);

/** The properties the section uses (its embed code carries these only). */
export const PRETRAINED_KEYS = Object.freeze(['ppoem']);

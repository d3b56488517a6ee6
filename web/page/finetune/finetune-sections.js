// finetune/finetune-sections.js: the fine-tuning section and all that only it needs (its worker, the
// fine-tuning poems, the Tang validation poems, Chart.js). The registry (sections/index.js) loads
// this module on demand; the classic widget fetches it as its own add-on
// (qkv-lab-widget-finetune.js), and the pretrained poet's weights only when the section is seen.
import { load } from '../../qkv-lab.js';
import { provideGPTEngine } from '../../engine-sources.js';
import { gpt as gptChunk } from '../../dist/qkv-gpt.js';
import * as engine from '../../finetune.js';
import { GPT_CSS } from '../gpt/gpt-css.js';
import { FINETUNE_CSS } from './finetune-css.js';
import { finetuneSection } from '../sections/finetune.js';

// The classic widget's core script leaves the GPT engine out (tools/build-page.mjs, noGPT): this
// add-on brings it (with fine-tuning), as the GPT add-on does.
if (gptChunk) provideGPTEngine({ chunk: gptChunk, engine });

/** { finetune: registry entry }, once the GPT engine is attached. */
export async function finetuneSections() {
  await (await load()).loadGPTEngine();
  return { finetune: Object.freeze({ ...finetuneSection, css: GPT_CSS + FINETUNE_CSS }) };
}

// gpt/gpt-sections.js: the three GPT sections (the Transformer block; a Transformer that writes;
// generation token by token) and all that only they need: the training worker with the
// quatrains. The registry (sections/index.js) loads this module on demand, so that a bundle can
// keep it apart from the attention sections.
import { load } from '../../qkv-lab.js';
import { provideGPTEngine } from '../../engine-sources.js';
import { gpt as gptChunk } from '../../dist/qkv-gpt.js';
import * as gptEngine from '../../gpt.js';
import { GPT_CSS } from './gpt-css.js';
import { blockSection } from '../sections/block.js';
import { writerSection } from '../sections/writer.js';
import { generateSection } from '../sections/generate.js';

// The classic widget's core script leaves the GPT engine out (tools/build-page.mjs, noGPT):
// this module, its GPT add-on, brings it, and the shared instance gets it before any section is made.
if (gptChunk) provideGPTEngine({ chunk: gptChunk, engine: gptEngine });

/** { [id]: registry entry } of the sections this module holds, once the GPT engine is attached. */
export async function gptSections() {
  await (await load()).loadGPTEngine();
  // css: their sheet, which the page adds to its head and a widget to its shadow root
  const withCss = (definition) => Object.freeze({ ...definition, css: GPT_CSS });
  return Object.fromEntries([blockSection, writerSection, generateSection].map((d) => [d.id, withCss(d)]));
}

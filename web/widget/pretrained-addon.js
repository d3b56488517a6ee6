// pretrained-addon.js: the entry of the classic widget's third add-on, qkv-lab-widget-pretrained.js
// (web/widget/addon.js): the pretrained poet's weights (dist/qkv-pretrained.js) and the GPT engine
// that runs them, which the core script leaves out (tools/build-page.mjs, noGPT and noPretrained).
// The core fetches it from beside itself the first time a host page asks for the model:
//   const qkv = await QkvLab.load();
//   const poet = await qkv.loadPretrained();   // fetches qkv-lab-widget-pretrained.js once
// (the core's stand-in for dist/qkv-pretrained.js is `pretrained = () => loadAddon('pretrained')`,
// which resolves to what this function returns).
import { pretrained as model } from '../dist/qkv-pretrained.js';
import { gpt as gptChunk } from '../dist/qkv-gpt.js';
import * as gptEngine from '../gpt.js';
import { provideGPTEngine } from '../engine-sources.js';

/**
 * Hands the GPT engine to the API (as the GPT add-on does, through the core's engine-sources.js)
 * → the model's compressed file. loadPretrained() asks for the engine after this has run, so a
 * widget that shows only the pretrained poet never fetches the GPT sections' add-on.
 */
export function pretrained() {
  if (gptChunk) provideGPTEngine({ chunk: gptChunk, engine: gptEngine });
  return model;
}

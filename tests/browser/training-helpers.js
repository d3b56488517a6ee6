// training-helpers.js: what the training sections' browser tests share: open the page at the training
// section, wait until the model is ready, read the section's state, and compute reference values
// with the same WASM model in Node (the model is deterministic, so Node and the page must agree).
import { newPage } from './harness.js';
import { load } from '../../web/qkv-lab.js';
import { createState } from '../../web/page/shell/state.js';
import { modelOptions, resolveCorpus } from '../../web/page/training/settings.js';

// opening the page at the training section, and reading its state (tools/browser.mjs: the benchmark's too)
export { TRAINING as SECTION, openTraining, trainingSettled as settled, readState } from '../../tools/browser.mjs';
import { sectionAddress } from '../../tools/browser.mjs';

export const WALK = 'section[data-section="trainstep"]';

/**
 * Opens the one-step walkthrough at `query` (lang=…), scrolls to it and waits until it is ready.
 * Returns { page, section }. As openTraining: alone (the default) in iframe mode with the author's
 * tools, where it is the only section built; `alone: false` on the page, for a test that uses
 * the training section beside it or the page's language buttons.
 */
export async function openWalk(env, query = '', { lang = 'en', alone = true, ...options } = {}) {
  const page = await newPage(env, options);
  await page.goto(env.url(sectionAddress('trainstep', { query, lang, alone })));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const section = page.locator(WALK);
  await section.scrollIntoViewIfNeeded();
  await page.waitForSelector(`${WALK}[data-state="ready"]`, { timeout: 60000 });
  return { page, section };
}

let qkvPromise = null;
/**
 * The same run the page trains, in Node: createModel with the options the page reads from the
 * query (a number is taken as the run's seed, tseed), then n steps: { steps: [step() results], model }.
 */
export async function referenceRun(query, n) {
  qkvPromise ||= load({ model: true });
  const qkv = await qkvPromise;
  const search = typeof query === 'number' ? `tseed=${query}` : query;
  const state = createState({ search });
  const model = qkv.createModel(modelOptions(state, resolveCorpus(state.get('corpus')).sentences));
  const steps = [];
  for (let i = 0; i < n; i++) steps.push(model.step());
  return { model, steps };
}

/** Text that must never be shown: a number that went wrong. */
export function badNumbers(text) {
  return text.match(/NaN|undefined|Infinity|\[object/g) || [];
}

// training-helpers.js: what the section-9 browser tests share: open the page at the training
// section, wait until the model is ready, read the section's state, and compute reference values
// with the same WASM model in Node (the model is deterministic, so Node and the page must agree).
import { newPage } from './harness.js';
import { load } from '../../web/qkv-lab.js';
import { createState } from '../../web/page/shell/state.js';
import { modelOptions, resolveCorpus } from '../../web/page/training/settings.js';

export const SECTION = 'section[data-section="training"]';

/** Opens index.html?query, scrolls to the training section and waits for its model (built and replayed). Returns { page, section }. */
export async function openTraining(env, { query = '', lang = 'en', ...pageOptions } = {}) {
  const page = await newPage(env, pageOptions);
  const sep = query ? '&' : '';
  await page.goto(env.url(`index.html?lang=${lang}${sep}${query}`));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const section = page.locator(SECTION);
  await section.scrollIntoViewIfNeeded();
  await settled(page);
  return { page, section };
}

export const WALK = 'section[data-section="trainstep"]';

/** Opens index.html?lang=…&query, scrolls to the one-step walkthrough and waits until it is ready. Returns { page, section }. */
export async function openWalk(env, query = '', { lang = 'en', ...options } = {}) {
  const page = await newPage(env, options);
  await page.goto(env.url(`index.html?lang=${lang}${query ? `&${query}` : ''}`));
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const section = page.locator(WALK);
  await section.scrollIntoViewIfNeeded();
  await page.waitForSelector(`${WALK}[data-state="ready"]`, { timeout: 60000 });
  return { page, section };
}

/** Waits until the run exists and no replay is under way. */
export function settled(page) {
  return page.waitForSelector(`${SECTION}:not([data-state="loading"]):not([data-state="replaying"])`, { timeout: 60000 });
}

/** The section's observable state, all from the DOM. */
export async function readState(section) {
  return section.evaluate((el) => ({
    state: el.dataset.state,
    step: Number(el.dataset.step),
    loss: el.dataset.loss === '' ? null : Number(el.dataset.loss),
    lossText: el.querySelector('[data-role="loss"]').textContent,
    lossPoints: Number(el.querySelector('canvas[data-chart="loss"]').dataset.points),
    flashed: [...el.querySelectorAll('.heat-row[data-flashed]')].map((r) => Number(r.dataset.row)),
    flashedWords: [...el.querySelectorAll('.heat-row[data-flashed]')].map((r) => r.dataset.word),
    heatStep: Number(el.querySelector('.heatmap').dataset.step),
    updatedAttr: el.querySelector('.heatmap').dataset.updatedRows,
    batch: [...el.querySelectorAll('[data-role="batch"] li')].map((li) => li.dataset.sentence),
    batchText: [...el.querySelectorAll('[data-role="batch"] li')].map((li) => li.textContent),
    moments: [...el.querySelectorAll('.heat-row[data-moment]')].map((r) => Number(r.dataset.row)),
    narration: el.querySelector('[data-role="narration"]').textContent,
    text: el.innerText,
  }));
}

let qkvPromise = null;
/**
 * The same run the page trains, in Node: createModel with the options the page reads from the
 * query (a number is taken as the run's seed, tseed), then n steps: { steps: [step() results], model }.
 */
export async function referenceRun(query, n) {
  qkvPromise ||= load();
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

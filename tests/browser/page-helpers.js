// page-helpers.js: what the page-*.test.js files share: open the page (served or file://) and
// read the numbers a reader sees.
import { newPage } from './harness.js';

export async function openPage(env, { query = '', file = false, locale = 'en-US', ...options } = {}) {
  const page = await newPage(env, { locale, ...options });
  const url = file ? env.fileUrl('dist/qkv-lab.html') + query : env.url('index.html' + query);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  return page;
}

/** The texts of row i of the matrix `name` inside section `section`. */
export function row(page, section, name, i) {
  return page.$$eval(`#${section} [data-matrix="${name}"] tbody tr:nth-child(${i + 1}) td.cell`, (tds) => tds.map((td) => td.textContent));
}

export function position(page, section) {
  return page.textContent(`#${section} .step-position`);
}

export const ARTICLE = {
  Q0: ['0.149', '-0.041', '0.194'],
  S0: ['-0.066', '0.006', '0.044'],
  A0: ['0.313', '0.337', '0.350'],
  O0: ['-0.099', '0.161', '-0.165'],
};

/** A query string from an object: q({ seed: 7 }) → '?seed=7'. */
export const q = (params) => `?${new URLSearchParams(params)}`;

/** Puts section `id`'s stepper on step `index` (0-based) with its buttons, as a reader would. */
export async function goToStep(page, id, index) {
  if (await page.isEnabled(`#${id} .step-first`)) await page.click(`#${id} .step-first`);
  for (let k = 0; k < index; k++) await page.click(`#${id} .step-forward`);
}

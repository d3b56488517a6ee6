// widget-helpers.js: what the widget-*.test.js files share: the hostile blog post of
// tests/browser/fixtures/ served next to web/ (under /fixtures/, optionally with a CSP header),
// and readers for what is inside a widget's shadow root.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, newPage } from './harness.js';

export const FIXTURES = path.join(ROOT, 'tests', 'browser', 'fixtures');

/** "A strict CSP without unsafe-eval" (tools/browser.mjs, which the benchmark shares). */
export { STRICT_CSP } from '../../tools/browser.mjs';

const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/**
 * A page whose /fixtures/* requests are answered from tests/browser/fixtures/.
 * csp: a Content-Security-Policy header for the fixture documents; transform(html): edits a
 * fixture page before it is served (tests strip the widget's script to count globals).
 */
export async function newBlogPage(env, { csp = null, transform = null, ...options } = {}) {
  const page = await newPage(env, options);
  await page.route(`${env.server.url}/fixtures/**`, async (route) => {
    const name = new URL(route.request().url()).pathname.replace(/^\/fixtures\//, '');
    const file = path.join(FIXTURES, name);
    if (!file.startsWith(FIXTURES + path.sep) || !fs.existsSync(file)) {
      await route.fulfill({ status: 404, body: 'not found' });
      return;
    }
    let body = fs.readFileSync(file, 'utf8');
    const ext = path.extname(file);
    if (ext === '.html' && transform) body = transform(body);
    const headers = { 'content-type': TYPES[ext] || 'application/octet-stream', 'cache-control': 'no-store' };
    if (csp && ext === '.html') headers['content-security-policy'] = csp;
    await route.fulfill({ status: 200, headers, body });
  });
  return page;
}

/** Opens a fixture page and waits until every <qkv-lab> on it that is near the viewport is drawn. */
export async function openBlog(env, { name = 'blog-post.html', ...options } = {}) {
  const page = await newBlogPage(env, options);
  page.response = await page.goto(env.url(`fixtures/${name}`));
  return page;
}

/** Waits until widget #id shows a section. */
export async function waitForWidget(page, id, timeout = 60000) {   // a busy machine: an add-on to fetch and compile
  await page.waitForFunction((id) => {
    const el = document.getElementById(id);
    return Boolean(el && el.shadowRoot && el.shadowRoot.querySelector('.qkv-section'));
  }, id, { timeout });
}

/** What a reader sees of widget #id: its box, its section, its text and its stepper. */
export function widget(page, id) {
  return page.evaluate((id) => {
    const el = document.getElementById(id);
    const root = el.shadowRoot;
    const box = el.getBoundingClientRect();
    const section = root.querySelector('.qkv-section');
    const notice = root.querySelector('.widget-notice');
    const position = root.querySelector('.step-position');
    return {
      width: box.width, height: box.height, left: box.left, right: box.right,
      section: section ? section.dataset.section : null,
      stage: section ? section.dataset.stage || null : null,
      lang: root.querySelector('.qkv').getAttribute('lang'),
      title: section ? section.querySelector('.section-title').textContent : null,
      text: root.querySelector('.qkv').innerText,
      notice: notice && !notice.hidden ? notice.innerText : '',
      position: position ? position.textContent : null,
      fontFamily: getComputedStyle(root.querySelector('.qkv')).fontFamily,
      color: getComputedStyle(root.querySelector('.qkv')).color,
      overflowing: root.querySelector('.qkv').scrollWidth > root.querySelector('.qkv').clientWidth + 1,
    };
  }, id);
}

/**
 * Widget #id's stepper on its last step, with its own ▶| button (as a reader would; every section
 * opens at its first), clicked inside the page once the widget is in view (a round trip per click
 * cost about 60 ms: page-helpers.js's goToLast).
 */
export async function widgetGoToLast(page, id) {
  await page.locator(`#${id} .step-forward`).scrollIntoViewIfNeeded();
  await page.evaluate((id) => {
    const forward = document.getElementById(id).shadowRoot.querySelector('.step-forward');
    for (let k = 0; k < 1e4 && !forward.disabled; k++) forward.click();
  }, id);
}

/** The texts of row i of matrix `name` (data-matrix) inside widget #id. */
export function widgetRow(page, id, name, i) {
  return page.evaluate(([id, name, i]) => {
    const root = document.getElementById(id).shadowRoot;
    const tr = root.querySelector(`[data-matrix="${name}"] tbody tr:nth-child(${i + 1})`);
    return tr ? [...tr.querySelectorAll('td.cell')].map((td) => td.textContent) : null;
  }, [id, name, i]);
}

export const ARTICLE = {
  X2: ['0.000', '0.000', '1.000', '0.200'],
  Q0: ['0.149', '-0.041', '0.194'],
  S0: ['-0.066', '0.006', '0.044'],
  A0: ['0.313', '0.337', '0.350'],
  O0: ['-0.099', '0.161', '-0.165'],
};

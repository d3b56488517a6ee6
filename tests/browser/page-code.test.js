// page-code.test.js: the code beside the arithmetic must give the numbers on screen. For two
// settings (the article's, and another seed, sentence, d_k, position vectors, √d_k, edited cells,
// the √d_k section's slider and the number of heads), every section's code panel is read off the page, its NumPy lines are run by Debian's
// /usr/bin/python3 with python3-numpy and its qkv-lab lines by Node (as a reader would paste them:
// the setup lines first, then the step), and each result is compared with the table or the bars
// that section shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { openBrowser, ARTIFACTS } from './harness.js';
import { openPage, goToLast } from './page-helpers.js';

let env;
before(async () => { env = await openBrowser(); });
after(async () => { await env.close(); });

const PYTHON = '/usr/bin/python3';

/** Where each result of the code is on the page: a table (data-matrix) or a card's bars. */
const ON_PAGE = {
  X: ['table', '#embedding [data-matrix="X"]'],
  Q: ['table', '#scores [data-matrix="Q"]'],
  K: ['table', '#scores [data-matrix="K"]'],
  V: ['table', '#mixing [data-matrix="V"]'],
  S: ['table', '#softmax [data-matrix="S"]'],
  KQt: ['table', '#scores [data-matrix="KQt"]'],
  A: ['table', '#softmax [data-matrix="A"]'],
  O: ['table', '#mixing [data-matrix="O"]'],
  a: ['bars', '#learnable .card:nth-child(2)'],
  a_scaled: ['bars', '#learnable .card:nth-child(3)'],
  S_shared: ['table', '#symmetry [data-matrix="S"]'],
  P_next: ['table', '#flow [data-matrix="P"]'],
  spread: ['table', '#scaling [data-matrix="spread"]'],
  w_raw: ['bars', '#scaling .card.raw'],
  w_scaled: ['bars', '#scaling .card.scaled'],
  concat: ['table', '#multihead [data-matrix="concat"]'],
  Y: ['table', '#multihead [data-matrix="Y"]'],
  PE: ['table', '#positions [data-matrix="PE"]'],
  O_plain: ['table', '#positions [data-matrix="O_plain"]'],
  O_plain_re: ['table', '#positions [data-matrix="O_plain_re"]'],
  O_pos: ['table', '#positions [data-matrix="O_pos"]'],
  O_pos_re: ['table', '#positions [data-matrix="O_pos_re"]'],
};

async function typeInto(page, selector, text) {
  await page.click(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Every number the page shows for `name`, as nested arrays. */
function shown(page, name) {
  const [kind, selector] = ON_PAGE[name];
  return page.$eval(selector, (el, kind) => {
    if (kind === 'bars') return [[...el.querySelectorAll('.bar-value')].map((v) => Number(v.textContent))];
    return [...el.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent)));
  }, kind);
}

function runPython(program, results) {
  const out = execFileSync(PYTHON, ['-c', `${program}\nimport json\nprint(json.dumps({r: np.atleast_2d(np.asarray(eval(r))).tolist() for r in ${JSON.stringify(results)}}))`], { encoding: 'utf8' });
  return JSON.parse(out);
}

let scripts = 0;
function runNode(program, results) {
  // inside the repository, so that `import … from 'qkv-lab'` resolves to this package
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `code-${process.pid}-${++scripts}.mjs`);
  fs.writeFileSync(file, `${program}\nconsole.log(JSON.stringify({ ${results.map((r) => `${r}: ${r}.toArray()`).join(', ')} }));\n`);
  try {
    return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }));
  } finally {
    fs.rmSync(file);
  }
}

/**
 * The page shows 3 decimals, so a value it shows is within 0.0005 of what it computed in float32;
 * numpy computes in float64 and qkv-lab in float32 (through other calls than the page's, say
 * softmaxRows(S.scale(1/√d_k)) for attend's scale), so 1e-5 relative more covers the arithmetic.
 */
function compare(label, page, code) {
  assert.equal(code.length, page.length, `${label}: rows`);
  page.forEach((row, i) => {
    assert.equal(code[i].length, row.length, `${label}: row ${i}`);
    row.forEach((x, j) => {
      const y = code[i][j];
      assert.ok(Math.abs(x - y) <= 0.0005 + 1e-5 * Math.max(1, Math.abs(y)), `${label}[${i}][${j}]: the page shows ${x}, the code gives ${y}`);
    });
  });
}

const SETTINGS = [
  { name: 'the article', query: '', edits: [] },
  {
    name: 'seed 7, 我 开 汽车 很 快, d_k 4, positions, √d_k, two edited cells, slider d_k 12, 3 heads',
    query: `?${new URLSearchParams({ seed: 7, sentence: '我 开 汽车 很 快', dk: 4, pos: 1, scale: 1, pull: 2.5, sdk: 12, heads: 3 })}`,
    edits: [['#projections [data-matrix="X"] td[data-i="1"][data-j="2"]', '0.75'], ['#projections [data-matrix="W_Q"] td[data-i="3"][data-j="1"]', '-0.5']],
  },
];

for (const setting of SETTINGS) {
  test(`the NumPy lines and the qkv-lab calls give the numbers on screen: ${setting.name}`, async () => {
    const page = await openPage(env, { query: setting.query });
    for (const [selector, value] of setting.edits) await typeInto(page, selector, value);
    // every table in full: the stepped sections at their last step, K·Qᵀ and the shared
    // projection switched on, the prediction stage shown
    for (const id of ['embedding', 'projections', 'scores', 'softmax', 'mixing', 'scaling', 'multihead', 'positions']) await goToLast(page, id);
    await page.check('#scores .kq-switch');
    await page.check('#symmetry .qk-switch');
    await page.focus('#flow .flow-stage[data-stage="P"]');
    await page.mouse.move(0, 0);
    const panels = await page.$$eval('.code-panel', (els) => els.map((el) => ({
      step: el.dataset.step,
      results: el.dataset.results.split(' '),
      py: el.querySelector(':scope > pre[data-lang="py"]').textContent,
      js: el.querySelector(':scope > pre[data-lang="js"]').textContent,
      setupPy: el.querySelector('.code-setup pre[data-lang="py"]').textContent,
      setupJs: el.querySelector('.code-setup pre[data-lang="js"]').textContent,
    })));
    assert.deepEqual(panels.map((p) => p.step), ['embedding', 'projections', 'scores', 'softmax', 'mixing', 'learnable', 'symmetry',
      'scaling', 'multihead', 'positions', 'flow']);
    for (const panel of panels) {
      const fromPython = runPython(`${panel.setupPy}\n${panel.py}`, panel.results);
      const fromNode = runNode(`${panel.setupJs}\n${panel.js}`, panel.results);
      for (const name of panel.results) {
        const onPage = await shown(page, name);
        compare(`${panel.step} ${name} (NumPy)`, onPage, fromPython[name]);
        compare(`${panel.step} ${name} (qkv-lab)`, onPage, fromNode[name]);
      }
    }
    assert.deepEqual(page.problems(), []);
    await page.closeAll();
  });
}

// scene.test.js: scenes (step, steps, loop, autoplay) are declared once, in the state's property
// list, and everything else derives from it: the widget's attributes and properties, the
// declarations, the README's attribute table; the values parse and fall back as links do; the
// embed code names exactly the settings in effect. (The browser tests show them on screen:
// tests/browser/widget-scenes.test.js, tests/browser/page-exports.test.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createState, PROPERTIES, ATTRIBUTE_PROPERTIES } from '../web/page/shell/state.js';
import { parseRange, sceneOf, stepperScene, fitScene, SCENE_KEYS } from '../web/page/shell/scene.js';
import { ATTRIBUTES, SETTING_ATTRIBUTES, BOOLEAN_ATTRIBUTES, readAttributes } from '../web/widget/attributes.js';
import { embedCode, settingPairs } from '../web/page/export/embed-code.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => fs.readFileSync(path.join(ROOT, p), 'utf8');

test('the scene is four properties of the one state list, and the widget\'s attributes derive from that list', () => {
  for (const name of SCENE_KEYS) assert.ok(PROPERTIES.some((p) => p.name === name), `${name} in state.js`);
  assert.deepEqual([...SETTING_ATTRIBUTES], ATTRIBUTE_PROPERTIES.map((p) => p.name));
  assert.deepEqual([...ATTRIBUTES], ['section', 'lang', ...SETTING_ATTRIBUTES, 'theme']);
  assert.deepEqual([...BOOLEAN_ATTRIBUTES], ATTRIBUTE_PROPERTIES.filter((p) => p.type === 'bool').map((p) => p.name));
  for (const name of SCENE_KEYS) assert.ok(ATTRIBUTES.includes(name), `${name} is an attribute`);
});

test('the declarations and the docs\' attribute table list every attribute', async () => {
  const dts = read('web/widget/qkv-lab-widget.d.ts');
  const body = /export interface QkvLabElement extends HTMLElement \{([\s\S]*?)\n\}/.exec(dts)[1];
  const declared = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
  for (const name of ATTRIBUTES.filter((a) => a !== 'lang')) assert.ok(declared.includes(name), `${name} is not declared on QkvLabElement`);
  // docs/widget.md's table, as tools/docs-tables.mjs writes it from docs/data/widget-attributes.json
  // and state.js (tests/docs.test.js keeps the page written so)
  const notes = JSON.parse(read('docs/data/widget-attributes.json'));
  assert.deepEqual(Object.keys(notes).sort(), [...ATTRIBUTES].sort(), 'docs/data/widget-attributes.json rows');
  const { GENERATORS } = await import('../tools/docs-tables.mjs');
  const rows = [...GENERATORS['widget-attributes']().matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
  assert.deepEqual(rows, [...ATTRIBUTES], 'the attribute table\'s rows');
});

test('steps parses "a-b" with 1 ≤ a ≤ b; anything else falls back to every step', () => {
  assert.deepEqual(parseRange('2-5'), { from: 2, to: 5 });
  assert.deepEqual(parseRange(' 3-3 '), { from: 3, to: 3 });
  for (const bad of ['5-2', '0-3', '2', '2-', '-3', 'a-b', '2–5', '1-1000', '', null]) assert.equal(parseRange(bad), null, String(bad));
  const state = createState({ search: '?steps=4-2&loop=yes&step=x' });
  assert.deepEqual([...state.rejected].sort(), ['loop', 'step', 'steps']);
  assert.deepEqual(sceneOf(state), { step: null, range: null, loop: false, autoplay: false, outside: false });
});

test('a scene: 1-based as the stepper shows it, 0-based for the stepper; a step outside the range opens at its start', () => {
  const scene = sceneOf(createState({ search: '?step=4&steps=2-5&loop=1&autoplay=1' }));
  assert.deepEqual(scene, { step: 4, range: { from: 2, to: 5 }, loop: true, autoplay: true, outside: false });
  assert.deepEqual(stepperScene(scene), { initial: 3, range: { from: 1, to: 4 }, loop: true });
  // trainstep's `step` is its run's: the stepper opens at the range's start
  assert.deepEqual(stepperScene(scene, { runStep: true }), { initial: 1, range: { from: 1, to: 4 }, loop: true });
  const outside = sceneOf(createState({ search: '?step=9&steps=2-5' }));
  assert.equal(outside.outside, true);
  assert.equal(outside.step, 2);
  assert.deepEqual(stepperScene(null), { initial: null, range: null, loop: false });
});

test('a step past the section\'s last step, or a range that ends past it, falls back and is named for the notice', () => {
  const of = (search) => sceneOf(createState({ search }));
  // step 9 of a 6-step section: the section's own opening step (null), the value named
  assert.deepEqual(fitScene(of('?step=9'), 6), { scene: { ...of('?step=9'), step: null }, refused: [{ name: 'step', value: '9', fallback: null }] });
  // the last step itself is a step
  assert.deepEqual(fitScene(of('?step=6'), 6).refused, []);
  assert.equal(fitScene(of('?step=6'), 6).scene.step, 6);
  // a range ending past the last step: every step; a step within the count stays
  const wide = fitScene(of('?step=3&steps=2-9'), 6);
  assert.deepEqual(wide.refused, [{ name: 'steps', value: '2-9', fallback: null }]);
  assert.equal(wide.scene.range, null);
  assert.equal(wide.scene.step, 3);
  // a range that fits and a step inside it: nothing refused, the scene as it was
  const fits = of('?step=4&steps=2-5');
  assert.equal(fitScene(fits, 6).scene, fits);
  assert.deepEqual(fitScene(fits, 6).refused, []);
  // trainstep: `step` is the run's (the training store checks it), only the range is the stepper's
  assert.deepEqual(fitScene(of('?step=500&steps=1-3'), 7, { runStep: true }).refused, []);
  assert.deepEqual(fitScene(of('?step=500&steps=1-30'), 7, { runStep: true }).refused.map((r) => r.name), ['steps']);
  // and what the stepper then takes
  assert.deepEqual(stepperScene(fitScene(of('?step=9'), 3).scene), { initial: null, range: null, loop: false });
  // step 9 outside 2-4 opened at 2 (sceneOf); 2-4 then ends past a 3-step section: every step, from step 2
  assert.deepEqual(stepperScene(fitScene(of('?step=9&steps=2-4'), 3).scene), { initial: 1, range: null, loop: false });
  assert.deepEqual(fitScene(null, 6), { scene: null, refused: [] });
});

test('widget attributes go through the same parser: booleans as attributes, a notice for each bad value', () => {
  const attrs = { section: 'softmax', step: '3', steps: '2-4', loop: '', autoplay: 'false', temp: '2' };
  const read1 = readAttributes((name) => attrs[name] ?? null, 'en');
  assert.deepEqual(read1.notices, []);
  assert.equal(read1.state.get('step'), 3);
  assert.equal(read1.state.get('steps'), '2-4');
  assert.equal(read1.state.get('loop'), true);
  assert.equal(read1.autoplay, false);
  assert.equal(read1.state.get('temp'), 2);
  const bad = { step: '7', steps: '2-4', loop: 'maybe' };
  const read2 = readAttributes((name) => bad[name] ?? null, 'en');
  assert.deepEqual(read2.notices.map((n) => [n.name, n.fallback]).sort(), [['loop', 'false'], ['step', '2']]);
});

test('the embed code names the settings in effect and nothing else, escaped, with the picture inside the tag', () => {
  const values = createState({ search: `?seed=7&temp=2&scale=1&sentence=${encodeURIComponent('我 爱 猫')}` }).values();
  assert.deepEqual(settingPairs(values).map(([n, v]) => [n, v]), [['seed', '7'], ['sentence', '我 爱 猫'], ['scale', ''], ['temp', '2']]);
  const { tag, url, text, iframeText } = embedCode({
    section: 'softmax', lang: 'en', values, step: 3, scene: { range: { from: 2, to: 4 }, loop: true },
    pageUrl: 'https://example.org/qkv-lab.html', image: 'qkv-lab-softmax-step-3.svg', alt: 'Softmax, "step" 3 of 4 <b>',
  });
  assert.equal(tag.split('\n')[0], '<qkv-lab section="softmax" lang="en" seed="7" sentence="我 爱 猫" scale temp="2" step="3" steps="2-4" loop>');
  assert.match(tag, /<img src="qkv-lab-softmax-step-3\.svg" alt="Softmax, &quot;step&quot; 3 of 4 &lt;b&gt;"/);
  const query = new URL(url).searchParams;
  assert.deepEqual(Object.fromEntries(query), { embed: '1', section: 'softmax', lang: 'en', seed: '7', sentence: '我 爱 猫', scale: '1', temp: '2', step: '3', steps: '2-4', loop: '1' });
  // the link parses back to the same state
  const back = createState({ search: query.toString() });
  assert.deepEqual(back.rejected, []);
  for (const [name, value] of Object.entries(values)) {
    if (name === 'lang' || name === 'section' || SCENE_KEYS.includes(name)) continue;
    assert.deepEqual(back.get(name), value, name);
  }
  assert.deepEqual(sceneOf(back), { step: 3, range: { from: 2, to: 4 }, loop: true, autoplay: false, outside: false });
  assert.match(text, /<script src="qkv-lab-widget\.js"><\/script>/);
  // one figure per paste: the widget's code holds no iframe, the iframe's no widget
  assert.doesNotMatch(text, /<iframe/);
  assert.match(iframeText, /^<iframe src="https:\/\/example\.org\/qkv-lab\.html\?embed=1&amp;section=softmax/);
  assert.doesNotMatch(iframeText, /<qkv-lab|<script/);
});

// export/embed-code.js: the code a reader copies to show what they see in a post, one figure
// per paste: either the <qkv-lab> tag (with the picture of the step inside it, the static
// fallback that feeds and email show) and the script it needs, or, for platforms that strip
// scripts, the iframe alone (a post that keeps both would show the figure twice). Pure: no DOM,
// no WASM.
//
//   embedCode({ section: 'softmax', lang: 'en', values: state.values(), step: 4, scene, pageUrl,
//               image: 'qkv-lab-softmax-step-4.svg', alt: 'Softmax, step 4 of 6: …', height: 640 })
//   → { tag, iframe, url, text, iframeText }   text: the tag and its script; iframeText: the iframe
// The iframe's page shows the section without the author's tools (Copy embed code, Export, the
// section's # link): they are for whoever writes the post, not its readers (shell/embed.js).
//
// The settings are every attribute the state list has (state.js's ATTRIBUTE_PROPERTIES) whose
// value differs from its default, so the tag and the link name exactly the settings in effect and
// nothing else (only those the section uses, when it names them: keys); the scene's step is the
// one shown, its range and loop those the section keeps to.
import { ATTRIBUTE_PROPERTIES } from '../shell/state.js';
import { SCENE_KEYS, sceneAttributes } from '../shell/scene.js';

const escapeAttribute = (text) => String(text).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// settings every section takes: the exercises (shell/quiz.js)
const PAGE_WIDE = ['quiz'];

/**
 * [name, value] pairs of the settings in effect (not the scene's: those come from what is shown);
 * keys: the properties the section uses (null: every one).
 */
export function settingPairs(values, keys = null) {
  const out = [];
  for (const prop of ATTRIBUTE_PROPERTIES) {
    if (SCENE_KEYS.includes(prop.name)) continue;
    if (keys && !keys.includes(prop.name) && !PAGE_WIDE.includes(prop.name)) continue;
    const value = values[prop.name];
    if (value === null || value === undefined || value === prop.default) continue;
    out.push([prop.name, prop.type === 'bool' ? (value ? '' : 'false') : String(value), prop.type]);
  }
  return out;
}

/**
 * step: the step shown (1-based; for a training section, the run's step); scene: the section's
 * { range, loop, autoplay } or null. pageUrl: the address of qkv-lab.html for the iframe.
 */
export function embedCode({ section, lang, values, keys = null, step, scene = null, pageUrl, image, alt, height = 600, script = 'qkv-lab-widget.js' }) {
  const pairs = [['section', section], ['lang', lang], ...settingPairs(values, keys)];
  const scenePairs = sceneAttributes({ step, range: scene?.range ?? null, loop: Boolean(scene?.loop), autoplay: Boolean(scene?.autoplay) });
  const attrs = [...pairs, ...scenePairs].map(([name, value]) => (value === '' ? ` ${name}` : ` ${name}="${escapeAttribute(value)}"`)).join('');
  const tag = `<qkv-lab${attrs}>\n  <img src="${escapeAttribute(image)}" alt="${escapeAttribute(alt)}" style="max-width:100%">\n</qkv-lab>`;

  // the link: the same names, in the state's format (booleans 1/0), iframe mode on
  const query = new URLSearchParams();
  query.set('embed', '1');
  for (const [name, value, type] of pairs) query.set(name, type === 'bool' ? (value === '' ? '1' : '0') : value);
  for (const [name, value] of scenePairs) query.set(name, value === '' ? '1' : value);
  const url = `${pageUrl}?${query.toString()}`;
  const iframe = `<iframe src="${escapeAttribute(url)}" title="${escapeAttribute(alt)}" width="100%" height="${Math.round(height)}" style="border:0" loading="lazy"></iframe>`;
  const text = `${tag}\n<script src="${escapeAttribute(script)}"></script>\n`;
  return { tag, iframe, url, text, iframeText: `${iframe}\n` };
}

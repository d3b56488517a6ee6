// addon.js: how the widget's classic script (qkv-lab-widget.js, "the core") and its add-ons meet.
// Sections that carry much code or data live in add-ons, second classic scripts that the core
// fetches, from next to itself, the first time one of their sections is shown:
//   training  qkv-lab-widget-training.js  the two training sections (Chart.js, the heat maps, the
//                                         run's panels)
//   gpt       qkv-lab-widget-gpt.js       the Transformer block, the writer and generation (the
//                                         GPT's training worker and the Tang quatrains)
//   finetune  qkv-lab-widget-finetune.js  fine-tuning the pretrained poet (its worker, the poems,
//                                         Chart.js); the weights come from the pretrained add-on
//   pretrained qkv-lab-widget-pretrained.js  the pretrained poet's weights and the GPT engine, for
//                                         qkv.loadPretrained() (web/widget/pretrained-addon.js)
//   pretrained-section qkv-lab-widget-pretrained-section.js  the 预训练 section and its measured
//                                         data; it asks for the pretrained add-on when it is seen
// A post that shows only attention sections downloads none of them.
//
//   <script src="/assets/qkv-lab-widget.js"></script>            the core; finds the add-ons beside it
//   <script src="/assets/qkv-lab-widget.js"
//           data-training-src="https://cdn.example/qkv-lab-widget-training.js"
//           data-gpt-src="https://cdn.example/qkv-lab-widget-gpt.js"></script>
//   <script src="/assets/qkv-lab-widget-training.js"></script>   optional, in any order: then the
//                                                                  core never injects a script
//
// They share one object under a symbol on globalThis (not a named global): the core puts there
// the modules the add-ons also import (the same instances: one string table, one WASM instance,
// one stepper), each add-on puts there its body (under its name), and whichever arrives second
// runs it. The add-on bundles read those modules from it instead of carrying copies
// (tools/build-page.mjs).
import { provideGPTEngine } from '../engine-sources.js';

export const WIDGET_KEY = Symbol.for('qkv-lab.widget');
/** The add-ons by name: the file beside the core, and what the reader is told it holds. */
export const ADDONS = Object.freeze({
  training: Object.freeze({ file: 'qkv-lab-widget-training.js', holds: 'the training sections' }),
  gpt: Object.freeze({ file: 'qkv-lab-widget-gpt.js', holds: 'the GPT sections (block, writer, generate)' }),
  finetune: Object.freeze({ file: 'qkv-lab-widget-finetune.js', holds: 'the fine-tuning section (its worker and poems)' }),
  pretrained: Object.freeze({ file: 'qkv-lab-widget-pretrained.js', holds: 'the pretrained poet\'s weights and the GPT engine' }),
  'pretrained-section': Object.freeze({ file: 'qkv-lab-widget-pretrained-section.js', holds: 'the pretraining section (预训练) and its measurements' }),
});
export const ADDON_FILE = ADDONS.training.file;

const shared = () => (globalThis[WIDGET_KEY] ||= {});
// the training add-on keeps the registry's top level (addonBody, deliver, sections, …), as
// before there were two; other add-ons have their own object under addons[name]
const slot = (name) => {
  const reg = shared();
  if (name === 'training') return reg;
  reg.addons ||= {};
  return (reg.addons[name] ||= {});
};

const CORE_FILE = 'qkv-lab-widget.js';
/**
 * The core's own <script>, read while it runs (document.currentScript is null afterwards). Loaded
 * as type="module" by mistake, the script has no currentScript: then the <script> whose src names
 * the core's file is it, so the add-ons are still found beside it.
 */
function findOwnScript() {
  if (typeof document === 'undefined') return null;
  const current = document.currentScript;
  if (current && current.tagName === 'SCRIPT') return current;
  const named = [...document.querySelectorAll('script[src]')].filter((tag) => {
    try { return new URL(tag.src, document.baseURI).pathname.endsWith(`/${CORE_FILE}`); } catch { return false; }
  });
  return named.at(-1) ?? null;
}
const ownScript = findOwnScript();

function addonUrl(name) {
  const explicit = ownScript && ownScript.getAttribute(`data-${name}-src`);
  if (explicit) return new URL(explicit, document.baseURI).href;
  const base = ownScript && ownScript.src ? ownScript.src : document.baseURI;
  return new URL(ADDONS[name].file, base).href;
}

// Under Trusted Types (CSP require-trusted-types-for 'script') a string may not become a
// script's src: an add-on's URL goes through a policy of our own that passes exactly the add-ons' URLs.
const POLICY_NAME = 'qkv-lab';

/** url as a script src: a TrustedScriptURL where the page enforces Trusted Types. Throws if refused. */
function scriptUrl(url) {
  const tt = globalThis.trustedTypes;
  if (!tt || typeof tt.createPolicy !== 'function') return url;
  const reg = shared();
  // created once per page (a second createPolicy of the same name may be refused)
  reg.policy ||= tt.createPolicy(POLICY_NAME, {
    createScriptURL: (value) => {
      if (!Object.keys(ADDONS).some((name) => value === addonUrl(name))) {
        throw new TypeError(`${POLICY_NAME}: only the widget's add-ons' URLs are allowed`);
      }
      return value;
    },
  });
  return reg.policy.createScriptURL(url);
}

/**
 * Called once by the core: the modules (by path) the add-ons import from it, and how its API gets
 * the GPT engine it leaves out (its GPT add-on), so that QkvLab.load({ gpt: true }) works whether
 * or not a GPT section was shown first.
 * The first core on the page serves every add-on. A second copy of the script (two pasted embeds
 * each carry the tag) defines no element, so its modules (its own string table, its own WASM
 * instance) must not replace those the first copy's widgets use.
 */
export function shareModules(modules) {
  const reg = shared();
  if (reg.modules) return;
  reg.modules = modules;
  provideGPTEngine(() => loadAddon('gpt'));
}

function run(entry) {
  if (entry.ran) return;
  entry.ran = true;
  entry.addonBody();
}

/**
 * The add-on's sections { [id]: definition }: run the add-on if it is here already, else load
 * it (once, however many widgets ask). Rejects with a sentence naming the file when it cannot.
 */
export function loadAddon(name) {
  const entry = slot(name);
  if (entry.sections) return Promise.resolve(entry.sections);
  if (!entry.pending) {
    entry.pending = new Promise((resolve, reject) => {
      entry.deliver = (sections) => { entry.sections = sections; resolve(sections); };
      if (entry.addonBody) { run(entry); return; }
      const url = addonUrl(name);
      const tag = document.createElement('script');
      try {
        tag.src = scriptUrl(url);
      } catch (error) {
        entry.pending = null;
        reject(new Error(`could not load ${url}: ${ADDONS[name].holds} are in that file, and this page's ` +
          `Trusted Types policy refused it as a script URL. Either add <script src="${url}"></script> to ` +
          `the page yourself (the widget then injects no script), or allow the policy '${POLICY_NAME}' in the ` +
          `Content-Security-Policy: trusted-types ${POLICY_NAME}. (The browser said: ${error.message})`, { cause: error }));
        return;
      }
      tag.async = true;
      tag.dataset.qkvLab = name;
      tag.addEventListener('error', () => {
        entry.pending = null;
        tag.remove();
        reject(new Error(`could not load ${url}: ${ADDONS[name].holds} are in that file, which belongs next to qkv-lab-widget.js (or set data-${name}-src on its script tag)`));
      });
      (document.head || document.documentElement).append(tag);
    });
  }
  return entry.pending;
}

/** The training sections (the first add-on's loader, by its old name). */
export const loadTrainingSections = () => loadAddon('training');

/** The add-on's side (its wrapper calls this with its body): run now if the core is waiting. */
export const ADDON_WRAPPER = (body, name = 'training') => {
  const entry = name === 'training' ? 'r' : `(r.addons||(r.addons={}),r.addons[${JSON.stringify(name)}]||(r.addons[${JSON.stringify(name)}]={}))`;
  return `(()=>{const k=Symbol.for('qkv-lab.widget');const r=globalThis[k]||(globalThis[k]={});const e=${entry};` +
    `if(e.addonBody)return;e.addonBody=()=>{${body}\n};if(e.deliver&&!e.ran){e.ran=true;e.addonBody();}})();\n`;
};

// addon.js: how the widget's classic script (qkv-lab-widget.js, "the core") and its training
// add-on (qkv-lab-widget-training.js) meet. The two training sections (one step walked through;
// the run) carry Chart.js, the heat maps and the run's panels; a post that shows only attention
// sections should not download them, so tools/build-page.mjs builds them into a second classic
// script that the core fetches, from next to itself, the first time a training section is shown.
//
//   <script src="/assets/qkv-lab-widget.js"></script>            the core; finds the add-on beside it
//   <script src="/assets/qkv-lab-widget.js"
//           data-training-src="https://cdn.example/qkv-lab-widget-training.js"></script>
//   <script src="/assets/qkv-lab-widget-training.js"></script>   optional, in any order: then the
//                                                                  core never injects a script
//
// They share one object under a symbol on globalThis (not a named global): the core puts there
// the modules the add-on also imports (the same instances: one string table, one WASM instance,
// one stepper), the add-on puts there its body, and whichever arrives second runs it. The add-on
// bundle reads those modules from it instead of carrying copies (tools/build-page.mjs).
export const WIDGET_KEY = Symbol.for('qkv-lab.widget');
export const ADDON_FILE = 'qkv-lab-widget-training.js';

const shared = () => (globalThis[WIDGET_KEY] ||= {});

// the core's own <script>, read while it runs (document.currentScript is null afterwards)
const ownScript = typeof document !== 'undefined' && document.currentScript &&
  document.currentScript.tagName === 'SCRIPT' ? document.currentScript : null;

function addonUrl() {
  const explicit = ownScript && ownScript.getAttribute('data-training-src');
  if (explicit) return new URL(explicit, document.baseURI).href;
  const base = ownScript && ownScript.src ? ownScript.src : document.baseURI;
  return new URL(ADDON_FILE, base).href;
}

// Under Trusted Types (CSP require-trusted-types-for 'script') a string may not become a
// script's src: the add-on's URL goes through a policy of our own that passes exactly that URL.
const POLICY_NAME = 'qkv-lab';

/** url as a script src: a TrustedScriptURL where the page enforces Trusted Types. Throws if refused. */
function scriptUrl(reg, url) {
  const tt = globalThis.trustedTypes;
  if (!tt || typeof tt.createPolicy !== 'function') return url;
  // created once per page (a second createPolicy of the same name may be refused)
  reg.policy ||= tt.createPolicy(POLICY_NAME, {
    createScriptURL: (value) => {
      if (value !== addonUrl()) throw new TypeError(`${POLICY_NAME}: only the training add-on's URL is allowed`);
      return value;
    },
  });
  return reg.policy.createScriptURL(url);
}

/** Called once by the core: the modules (by path) the add-on imports from it. */
export function shareModules(modules) {
  const reg = shared();
  if (!reg.modules) reg.modules = modules;
}

function run(reg) {
  if (reg.ran) return;
  reg.ran = true;
  reg.addonBody();
}

/**
 * The training sections { [id]: definition }: run the add-on if it is here already, else load
 * it (once, however many widgets ask). Rejects with a sentence naming the file when it cannot.
 */
export function loadTrainingSections() {
  const reg = shared();
  if (reg.sections) return Promise.resolve(reg.sections);
  if (!reg.pending) {
    reg.pending = new Promise((resolve, reject) => {
      reg.deliver = (sections) => { reg.sections = sections; resolve(sections); };
      if (reg.addonBody) { run(reg); return; }
      const url = addonUrl();
      const tag = document.createElement('script');
      try {
        tag.src = scriptUrl(reg, url);
      } catch (error) {
        reg.pending = null;
        reject(new Error(`could not load ${url}: the training sections are in that file, and this page's ` +
          `Trusted Types policy refused it as a script URL. Either add <script src="${url}"></script> to ` +
          `the page yourself (the widget then injects no script), or allow the policy '${POLICY_NAME}' in the ` +
          `Content-Security-Policy: trusted-types ${POLICY_NAME}. (The browser said: ${error.message})`, { cause: error }));
        return;
      }
      tag.async = true;
      tag.dataset.qkvLab = 'training';
      tag.addEventListener('error', () => {
        reg.pending = null;
        tag.remove();
        reject(new Error(`could not load ${url}: the training sections are in that file, which belongs next to qkv-lab-widget.js (or set data-training-src on its script tag)`));
      });
      (document.head || document.documentElement).append(tag);
    });
  }
  return reg.pending;
}

/** The add-on's side (its wrapper calls this with its body): run now if the core is waiting. */
export const ADDON_WRAPPER = (body) => `(()=>{const k=Symbol.for('qkv-lab.widget');const r=globalThis[k]||(globalThis[k]={});` +
  `if(r.addonBody)return;r.addonBody=()=>{${body}\n};if(r.deliver&&!r.ran){r.ran=true;r.addonBody();}})();\n`;

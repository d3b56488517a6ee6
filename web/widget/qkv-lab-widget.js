// qkv-lab-widget.js: the entry of web/dist/qkv-lab-widget.js, one classic script (esbuild iife,
// WebAssembly inlined) that defines <qkv-lab>:
//
//   <script src="qkv-lab-widget.js"></script>
//   <qkv-lab section="scores" lang="en"></qkv-lab>
//
// and of web/dist/qkv-lab-widget.mjs, the same as an ES module that imports the package's API
// (`import 'qkv-lab/widget'` in a bundler). It exports nothing: it is imported for its effect.
// It adds exactly one global, `QkvLab` ({ version, load, Matrix, sections, Element }), so that a
// host page can reach the same shared WebAssembly API the widgets use. Loading the script twice
// is harmless: the second copy defines nothing.
import { version } from '../../package.json';
import { load, Matrix } from '../qkv-lab.js';
import { QkvLabElement } from './element.js';
import { WIDGET_SECTIONS } from './attributes.js';

const TAG = 'qkv-lab';

if (typeof window !== 'undefined' && window.customElements && !window.customElements.get(TAG)) {
  window.customElements.define(TAG, QkvLabElement);
  if (!('QkvLab' in window)) {
    Object.defineProperty(window, 'QkvLab', {
      value: Object.freeze({ version, load, Matrix, sections: WIDGET_SECTIONS, Element: QkvLabElement }),
      configurable: true, enumerable: true, writable: false,
    });
  }
}

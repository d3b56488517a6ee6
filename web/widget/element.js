// element.js: <qkv-lab>, the custom element a blogger drops into a post.
//
//   <qkv-lab section="softmax" lang="en" seed="7" sentence="我 爱 猫" scale></qkv-lab>
//   <qkv-lab section="scores" quiz></qkv-lab>      (a scene that asks before it tells)
//
// The howto-components way: the constructor only attaches the (open) shadow root and its frame;
// attributes mirror properties; observers and listeners start in connectedCallback and stop in
// disconnectedCallback; events are CustomEvents that bubble (and are composed, so they also leave
// a shadow root the widget itself may sit in).
//
// Life cycle: nothing is loaded until the element comes near the viewport (IntersectionObserver);
// then the shared WebAssembly instance is loaded (one per page, whatever the number of widgets)
// and the section is built from the page's own section modules. Out of view, a playing
// animation pauses (and resumes when the widget comes back). Removed from the page, the section
// is destroyed, which frees every byte it allocated on the WASM heap (a training run's model).
//
// Events, all on the element, all bubbling and composed:
//   qkv-ready  { section, lang }               the section is drawn
//   qkv-step   { section, step, count, stage } the reader (or play) moved the stepper
//   qkv-train  { section, step, total, loss }  the training run advanced or went back
//   qkv-error  { message }                     the WebAssembly module, a section that is loaded
//                                              on demand, or what a section loads when first
//                                              seen (the pretrained poet), could not be loaded
import { load } from '../qkv-lab.js';
import { h, clear } from '../page/shell/dom.js';
import { createI18n, languageFromNavigator } from '../page/shell/i18n.js';
import { readAttributes, parseLanguage, ATTRIBUTES, SETTING_ATTRIBUTES, BOOLEAN_ATTRIBUTES, DEFAULT_SECTION, shown } from './attributes.js';
import { createSectionContext } from '../page/shell/context.js';
import { sectionById } from '../page/sections/index.js';
import { adoptStyles, addSectionStyles } from './styles.js';
import './strings.js';

const PROPERTIES = ['section', ...SETTING_ATTRIBUTES, 'theme'];

// Importing the bundle where there is no DOM (a server-side render) must not throw.
const Base = typeof HTMLElement === 'function' ? HTMLElement : class {};

export class QkvLabElement extends Base {
  static get observedAttributes() {
    return ATTRIBUTES;
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    adoptStyles(root);
    // Built with DOM calls, not a template's innerHTML: nothing here needs markup parsing, and it
    // keeps working on pages that enforce Trusted Types.
    this._notice = h('div', { class: 'notice widget-notice', attrs: { role: 'status' }, hidden: true });
    this._status = h('p', { class: 'widget-status', attrs: { role: 'status' } });
    this._body = h('div', { class: 'widget-body' });
    this._live = h('div', { class: 'visually-hidden', attrs: { 'aria-live': 'polite' } });
    this._credit = h('p', { class: 'widget-credit', attrs: { 'aria-hidden': 'true' } });
    this._qkv = h('div', { class: 'qkv' }, this._notice, this._status, this._body, this._credit, this._live);
    root.append(h('div', { class: 'frame' }, this._qkv));

    this._started = false;    // loading or built
    this._generation = 0;     // bumped by every teardown: a late load() result is ignored
    this._visible = false;
    this._resume = false;     // the stepper was playing when the widget scrolled out of view
    this._autoplayed = false;
    this._pending = false;    // an attribute change is waiting for the microtask that applies it
    this._built = null;       // { settings, i18n, ctx, section, offProgress }
    this._onIntersect = this._onIntersect.bind(this);
  }

  connectedCallback() {
    for (const name of PROPERTIES) this._upgradeProperty(name);
    this._applyFrame(this._read());
    if (typeof IntersectionObserver === 'function') {
      this._observer = new IntersectionObserver(this._onIntersect, { rootMargin: '200px 0px' });
      this._observer.observe(this);
    } else {
      this._visible = true;
      this._start();
    }
  }

  disconnectedCallback() {
    if (this._observer) this._observer.disconnect();
    this._observer = null;
    this._visible = false;
    this._teardown();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.isConnected) return;
    if (this._pending) return;
    // several attributes set in one go (el.seed = 7; el.scale = true) are applied together
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      if (this.isConnected) this._apply();
    });
  }

  // ---- properties: each mirrors its attribute; getters give the value in effect ----

  get section() { return this._read().section; }
  set section(value) { this._setString('section', value); }
  get theme() { return this._read().theme; }
  set theme(value) { this._setString('theme', value); }
  // the settings (seed, sentence, …, step, steps, loop, autoplay): defined from the one list below
  // `lang` is HTMLElement's own reflected property; the widget reads the attribute.

  /** The language in effect: the lang attribute, else the page's (closest [lang]), else the browser's. */
  get language() { return this._read().lang; }

  /** Whether the section's stepper is playing. */
  get playing() { return Boolean(this._stepper() && this._stepper().playing); }

  /** Drive the section's stepper (no-ops before it is drawn, and for the training section). */
  play() { this._stepper()?.play(); }
  pause() { this._stepper()?.pause(); }
  next() { this._stepper()?.forward(); }
  previous() { this._stepper()?.back(); }

  _setString(name, value) {
    if (value === null || value === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  }

  /**
   * true sets the attribute, false, null and undefined remove it; anything else is written as
   * the attribute's text and read as the attribute would be ('false' and '0' are off), so a
   * property means what the same attribute means, not what JavaScript's truthiness says.
   */
  _setBoolean(name, value) {
    if (value === true) this.setAttribute(name, '');
    else if (value === false || value === null || value === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  }

  /** A property set on the element before the class was defined would hide the setter. */
  _upgradeProperty(name) {
    if (Object.prototype.hasOwnProperty.call(this, name)) {
      const value = this[name];
      delete this[name];
      this[name] = value;
    }
  }

  _stepper() {
    return this._built && this._built.section.stepper ? this._built.section.stepper : null;
  }

  _fallbackLanguage() {
    const from = this.parentElement && this.parentElement.closest('[lang]');
    const pageLang = from ? from.getAttribute('lang') : document.documentElement.getAttribute('lang');
    return parseLanguage(pageLang) || languageFromNavigator();
  }

  _read() {
    return readAttributes((name) => this.getAttribute(name), this._fallbackLanguage());
  }

  // ---- visibility ----

  _onIntersect(entries) {
    const visible = entries.some((e) => e.isIntersecting);
    if (visible === this._visible) return;
    this._visible = visible;
    if (visible) {
      if (!this._started) this._start();
      else this._whenVisible();
    } else {
      const stepper = this._stepper();
      if (stepper && stepper.playing) {
        this._resume = true;
        stepper.pause();
      }
    }
  }

  _whenVisible() {
    const stepper = this._stepper();
    if (!stepper) return;
    if (this._resume) {
      this._resume = false;
      stepper.play();
    } else if (!this._autoplayed && this._built.settings.autoplay) {
      this._autoplayed = true;
      stepper.play();
    }
  }

  // ---- building and tearing down ----

  async _start() {
    this._started = true;
    const generation = this._generation;
    const settings = this._read();
    this._applyFrame(settings);
    const i18n = createI18n(settings.lang);
    this._status.hidden = false;
    this._status.classList.remove('failed');
    this._status.textContent = i18n.t('widget.loading');
    let qkv;
    try {
      qkv = await load();
    } catch (error) {
      if (generation !== this._generation) return;
      const message = String((error && error.message) || error);
      this._status.classList.add('failed');
      this._status.textContent = i18n.t('widget.failed', { message });
      this._emit('error', { message });
      return;
    }
    if (generation !== this._generation || !this.isConnected) return;
    this._build(qkv, this._read());
  }

  async _build(qkv, settings) {
    const generation = this._generation;
    const i18n = createI18n(settings.lang);
    // most sections are in this script; the training ones arrive with qkv-lab-widget-training.js
    let definition;
    try {
      definition = await sectionById(settings.section).load();
    } catch (error) {
      if (generation !== this._generation) return;
      const message = String((error && error.message) || error);
      this._status.hidden = false;
      this._status.classList.add('failed');
      this._status.textContent = i18n.t('widget.failed', { message });
      this._emit('error', { message });
      return;
    }
    if (generation !== this._generation || !this.isConnected) return;
    if (definition.css) addSectionStyles(this.shadowRoot, definition.css);
    const built = { settings, i18n, section: null, ctx: null, offProgress: null, sceneNotices: [] };
    built.ctx = createSectionContext({
      qkv, i18n, state: settings.state,
      // step, steps, loop: this widget's section shows them, and follows when they change
      scene: { section: settings.section, live: true },
      announce: (text) => { this._live.textContent = ''; this._live.textContent = text; },
      // the data-flow section links to other sections: the widget shows the one asked for
      goTo: (id) => { if (sectionById(id)) this.setAttribute('section', id); },
      onSnapshot: (snapshot) => { if (built.section && built.section.update) built.section.update(snapshot); },
      // the section shows its own message; the post's listeners hear it as for a missing add-on
      onLoadError: (message) => { if (this._built === built) this._emit('error', { message }); },
      // a step or range past the section's last step fell back (scene.js fitScene): a notice like any bad attribute's
      onSceneChecked: (id, refused) => {
        built.sceneNotices = refused.map((r) => ({ name: r.name, value: shown(this.getAttribute(r.name) ?? r.value), fallback: String(r.fallback) }));
        if (this._built === built) this._applyFrame(built.settings);
      },
    });
    try {
      built.section = definition.create(built.ctx);
    } catch (error) {
      console.warn('qkv-lab:', error);
      this._status.hidden = false;
      this._status.classList.add('failed');
      this._status.textContent = i18n.t('widget.failed', { message: String(error && error.message) });
      return;
    }
    this._built = built;
    this._status.hidden = true;
    this._applyFrame(settings);
    clear(this._body).append(built.section.element);
    this._watchProgress(built);
    this._emit('ready', { section: settings.section, lang: settings.lang });
    if (this._visible) this._whenVisible();
  }

  _teardown() {
    this._generation++;
    this._started = false;
    this._resume = false;
    this._autoplayed = false;
    const built = this._built;
    this._built = null;
    if (built) {
      if (built.offProgress) built.offProgress();
      try {
        if (built.section.destroy) built.section.destroy();
      } catch (error) {
        console.warn('qkv-lab:', error);
      }
    }
    clear(this._body);
  }

  /** Re-reads every attribute after a change and applies what differs. */
  _apply() {
    const next = this._read();
    this._applyFrame(next);
    const built = this._built;
    if (!built) return;   // not built yet: the build reads the attributes when it happens
    const prev = built.settings;
    if (next.section !== prev.section) {
      const qkv = built.ctx.qkv;
      this._teardown();
      this._started = true;
      this._build(qkv, next);
      return;
    }
    built.settings = next;
    if (next.lang !== prev.lang) {
      built.i18n.setLanguage(next.lang);
      if (built.section.setLanguage) built.section.setLanguage(next.lang);
    }
    // every setting the same way: the context republishes the snapshot, the section draws it
    for (const key of SETTING_ATTRIBUTES) {
      const value = next.state.get(key);
      if (value !== built.ctx.state.get(key)) built.ctx.setSetting(key, value);
    }
    if (next.autoplay && !prev.autoplay && this._visible) this._whenVisible();
  }

  /** What does not depend on the section: theme, notices, labels. */
  _applyFrame(settings) {
    const i18n = createI18n(settings.lang);
    this._qkv.classList.toggle('theme-light', settings.theme === 'light');
    this._qkv.classList.toggle('theme-dark', settings.theme === 'dark');
    this._qkv.setAttribute('lang', settings.lang === 'zh' ? 'zh-CN' : 'en');
    this._qkv.setAttribute('role', 'group');
    this._qkv.setAttribute('aria-label', i18n.t('widget.label', { section: settings.section }));
    this._credit.textContent = i18n.t('widget.credit');
    clear(this._notice);
    // the attributes' notices, and the scene's that the section found past its last step
    const named = new Set(settings.notices.map((n) => n.name));
    const notices = [...settings.notices, ...(this._built?.sceneNotices ?? []).filter((n) => !named.has(n.name))];
    for (const n of notices) {
      const key = n.fallback === 'null' ? 'widget.invalidNone' : 'widget.invalid';
      this._notice.append(h('p', { text: i18n.t(key, n) }));
    }
    this._notice.hidden = notices.length === 0;
  }

  // ---- events ----

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(`qkv-${type}`, { bubbles: true, composed: true, detail }));
  }

  /**
   * Steps and training steps, whoever caused them (a button, a key, play, the host calling
   * next()): the section reports them (section-shell.js, training.js) and each becomes one event.
   * A change of length alone (new numbers with as many or fewer steps) is not a step.
   */
  _watchProgress(built) {
    let lastStep = built.section.stepper ? built.section.stepper.index : undefined;
    built.offProgress = built.section.onProgress((detail) => {
      if (detail.kind === 'train') {
        const { section, step, total, loss } = detail;
        this._emit('train', { section, step, total, loss });
        return;
      }
      if (detail.step === lastStep) return;
      lastStep = detail.step;
      const event = { section: detail.section, step: detail.step, count: detail.count };
      if (detail.stage !== undefined) event.stage = detail.stage;
      this._emit('step', event);
    });
  }
}

// Every setting attribute is a property of the same name (el.step = 4 sets step="4"); its getter
// gives the value in effect (the default when the attribute is missing or invalid). Derived from
// the one list (attributes.js ← state.js), so a new setting is a property without a line here.
for (const name of SETTING_ATTRIBUTES) {
  const boolean = BOOLEAN_ATTRIBUTES.includes(name);
  Object.defineProperty(QkvLabElement.prototype, name, {
    configurable: true, enumerable: true,
    get() { return this._read().state.get(name); },
    set(value) { if (boolean) this._setBoolean(name, value); else this._setString(name, value); },
  });
}

export { DEFAULT_SECTION };

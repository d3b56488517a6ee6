// shell/i18n.js: the page's two languages, Simplified Chinese (zh) and English (en).
//
//   import { addStrings, createI18n } from './i18n.js';
//   addStrings({ zh: { 'hello': '你好，{name}' }, en: { 'hello': 'Hello, {name}' } });
//   const i18n = createI18n('zh');
//   i18n.t('hello', { name: '猫' });          // '你好，猫'
//   const off = i18n.onLanguageChange((lang) => ...);  i18n.setLanguage('en');
//
// Strings live in one shared table (every section registers its own); the language belongs to an
// i18n instance, so two widgets on one page can speak different languages.

export const LANGUAGES = ['zh', 'en'];
const table = { zh: Object.create(null), en: Object.create(null) };

/** Registers strings: { zh: { key: text }, en: { key: text } }. Later calls may add keys. */
export function addStrings(strings) {
  for (const lang of LANGUAGES) Object.assign(table[lang], strings[lang] || {});
}

/** 'zh' for any zh* browser language, else 'en'. */
export function languageFromNavigator(nav = globalThis.navigator) {
  const list = (nav && (nav.languages && nav.languages.length ? nav.languages : [nav.language])) || [];
  return String(list[0] || '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** Fills {name} placeholders; missing keys show as the key itself (easy to spot, never blank). */
export function translate(lang, key, vars) {
  const text = table[lang][key] ?? table.en[key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

export function createI18n(initial = 'en') {
  let lang = LANGUAGES.includes(initial) ? initial : 'en';
  const watchers = new Set();
  return {
    get lang() { return lang; },
    t: (key, vars) => translate(lang, key, vars),
    setLanguage(next) {
      if (!LANGUAGES.includes(next) || next === lang) return;
      lang = next;
      for (const fn of [...watchers]) fn(lang);
    },
    /** fn(lang) after every change; returns a function that stops it. */
    onLanguageChange(fn) {
      watchers.add(fn);
      return () => watchers.delete(fn);
    },
    /**
     * A text binder: texts.set(el, key, vars) writes t(key, vars) into el.textContent and
     * remembers it; texts.attr(el, name, key, vars) does the same for an attribute (aria-label,
     * title); texts.refresh() rewrites every bound text in the current language. vars may be a
     * function, read again at every refresh (for numbers that change).
     */
    binder() {
      const bound = new Map();
      const attrs = new Map();
      const self = this;
      const text = (key, vars) => self.t(key, typeof vars === 'function' ? vars() : vars);
      return {
        set(el, key, vars) {
          bound.set(el, [key, vars]);
          el.textContent = text(key, vars);
          return el;
        },
        attr(el, name, key, vars) {
          if (!attrs.has(el)) attrs.set(el, new Map());
          attrs.get(el).set(name, [key, vars]);
          el.setAttribute(name, text(key, vars));
          return el;
        },
        refresh() {
          for (const [el, [key, vars]] of bound) el.textContent = text(key, vars);
          for (const [el, names] of attrs) for (const [name, [key, vars]] of names) el.setAttribute(name, text(key, vars));
        },
      };
    },
  };
}

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
//
// A text names another section as [[id]], never by its number (numbers are the page's to give,
// and mean nothing in a widget): plain text shows the section's title in quotes; a bound text
// (binder().set) shows it as a link, <a href="#id" data-section-ref="id">, which the section
// shell turns into ctx.goTo(id). The registry (sections/index.js) registers the titles' keys.

export const LANGUAGES = ['zh', 'en'];
const table = { zh: Object.create(null), en: Object.create(null) };
const sectionTitleKeys = new Map();   // section id → its title's key
const SECTION_REF = /\[\[([a-z]+)\]\]/g;

/** Registers the title keys of sections that texts may name as [[id]]: { id: titleKey }. */
export function registerSectionTitles(keys) {
  for (const [id, key] of Object.entries(keys)) sectionTitleKeys.set(id, key);
}

/** Registers strings: { zh: { key: text }, en: { key: text } }. Later calls may add keys. */
export function addStrings(strings) {
  for (const lang of LANGUAGES) Object.assign(table[lang], strings[lang] || {});
}

/** 'zh' for any zh* browser language, else 'en'. */
export function languageFromNavigator(nav = globalThis.navigator) {
  const list = (nav && (nav.languages && nav.languages.length ? nav.languages : [nav.language])) || [];
  return String(list[0] || '').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

function fill(lang, key, vars) {
  const text = table[lang][key] ?? table.en[key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
}

/** The title of section `id` in lang (the id itself when no title is registered). */
function sectionTitle(lang, id) {
  const key = sectionTitleKeys.get(id);
  return key ? fill(lang, key) : id;
}

/**
 * The text as parts: strings, and { ref: id, title } where it names a section ([[id]]), each
 * quoted by the strings around it.
 */
export function translateParts(lang, key, vars) {
  const text = fill(lang, key, vars);
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(SECTION_REF)) {
    // “…” in both languages
    parts.push(`${text.slice(at, m.index)}“`, { ref: m[1], title: sectionTitle(lang, m[1]) }, '”');
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  return parts.filter((p) => p !== '');
}

/** Fills {name} placeholders; missing keys show as the key itself (easy to spot, never blank). */
export function translate(lang, key, vars) {
  return translateParts(lang, key, vars).map((p) => (typeof p === 'string' ? p : p.title)).join('');
}

/** Writes a text into el: its section references as links (see the header). */
function writeParts(el, parts) {
  if (parts.every((p) => typeof p === 'string')) {
    el.textContent = parts.join('');
    return;
  }
  el.replaceChildren(...parts.map((p) => {
    if (typeof p === 'string') return p;
    const a = el.ownerDocument.createElement('a');
    a.href = `#${p.ref}`;
    a.className = 'section-ref';
    a.dataset.sectionRef = p.ref;
    a.textContent = p.title;
    return a;
  }));
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
      const parts = (key, vars) => translateParts(self.lang, key, typeof vars === 'function' ? vars() : vars);
      return {
        set(el, key, vars) {
          bound.set(el, [key, vars]);
          writeParts(el, parts(key, vars));
          return el;
        },
        attr(el, name, key, vars) {
          if (!attrs.has(el)) attrs.set(el, new Map());
          attrs.get(el).set(name, [key, vars]);
          el.setAttribute(name, text(key, vars));
          return el;
        },
        refresh() {
          for (const [el, [key, vars]] of bound) writeParts(el, parts(key, vars));
          for (const [el, names] of attrs) for (const [name, [key, vars]] of names) el.setAttribute(name, text(key, vars));
        },
      };
    },
  };
}

// attributes.js: what a blogger can write on <qkv-lab …>, read into settings. Every setting of
// the page's state list (state.js's ATTRIBUTE_PROPERTIES: the numbers' settings, the scene's step,
// steps, loop and autoplay, the training run's) is an attribute of the same name and goes through
// that same state.js, so an attribute and a link parameter accept exactly the same values. An invalid value never throws: it falls back to
// the default and produces a notice { name, value, fallback } that the widget shows.
import { createState, PROPERTIES, ATTRIBUTE_PROPERTIES } from '../page/shell/state.js';
import { WIDGET_SECTION_IDS, DEFAULT_SECTION } from '../page/sections/index.js';
import { sceneOf } from '../page/shell/scene.js';

/** Sections a widget can show: the compact walkthrough (the default) and every page section. */
export const WIDGET_SECTIONS = WIDGET_SECTION_IDS;
export { DEFAULT_SECTION };
export const THEMES = Object.freeze(['auto', 'light', 'dark']);

/** Every observed attribute. Booleans: present, "", "true" or "1" is on; "false" or "0" is off. */
/** The state's settings that are attributes (derived from state.js's one list). */
export const SETTING_ATTRIBUTES = Object.freeze(ATTRIBUTE_PROPERTIES.map((p) => p.name));
export const ATTRIBUTES = Object.freeze(['section', 'lang', ...SETTING_ATTRIBUTES, 'theme']);
export const BOOLEAN_ATTRIBUTES = Object.freeze(ATTRIBUTE_PROPERTIES.filter((p) => p.type === 'bool').map((p) => p.name));

const MAX_SHOWN = 40;
const defaultOf = (name) => PROPERTIES.find((p) => p.name === name).default;

/** A boolean attribute's value: true, false, or null when it is not one of the accepted spellings. */
export function parseBoolean(raw, name) {
  if (raw === null) return false;
  const t = raw.trim().toLowerCase();
  if (t === '' || t === 'true' || t === '1' || t === name) return true;
  if (t === 'false' || t === '0') return false;
  return null;
}

/** 'zh', 'zh-CN', 'zh-Hans-TW' → 'zh'; 'en', 'en-GB' → 'en'; anything else → null. */
export function parseLanguage(raw) {
  const m = /^\s*(zh|en)(-[a-z0-9-]+)?\s*$/i.exec(raw || '');
  return m ? m[1].toLowerCase() : null;
}

/** An attribute's value as a notice quotes it (cut short). */
export function shown(raw) {
  return raw.length > MAX_SHOWN ? `${raw.slice(0, MAX_SHOWN)}…` : raw;
}

/**
 * read(getAttribute, fallbackLang) → { section, lang, theme, autoplay, state, notices }
 * getAttribute(name) returns the string or null (element.getAttribute.bind(element)).
 * fallbackLang is the language when `lang` is missing or invalid (from the page or the browser).
 */
export function readAttributes(getAttribute, fallbackLang) {
  const notices = [];
  const refuse = (name, raw, fallback) => notices.push({ name, value: shown(raw), fallback: String(fallback) });

  let section = DEFAULT_SECTION;
  const rawSection = getAttribute('section');
  if (rawSection !== null) {
    const t = rawSection.trim().toLowerCase();
    if (WIDGET_SECTIONS.includes(t)) section = t;
    else refuse('section', rawSection, DEFAULT_SECTION);
  }

  let lang = fallbackLang;
  const rawLang = getAttribute('lang');
  if (rawLang !== null && rawLang.trim() !== '') {
    const parsed = parseLanguage(rawLang);
    if (parsed) lang = parsed;
    else refuse('lang', rawLang, fallbackLang);
  }

  let theme = 'auto';
  const rawTheme = getAttribute('theme');
  if (rawTheme !== null) {
    const t = rawTheme.trim().toLowerCase();
    if (THEMES.includes(t)) theme = t;
    else refuse('theme', rawTheme, 'auto');
  }

  // The numbers' settings, as the query string state.js reads (it validates and falls back).
  const params = new URLSearchParams();
  const invalidBool = new Map();
  for (const prop of ATTRIBUTE_PROPERTIES) {
    const raw = getAttribute(prop.name);
    if (raw === null) continue;
    if (prop.type !== 'bool') {
      params.set(prop.name, prop.type === 'text' ? raw : raw.trim());
      continue;
    }
    const value = parseBoolean(raw, prop.name);
    if (value === null) invalidBool.set(prop.name, raw);
    else params.set(prop.name, value ? '1' : '0');
  }
  const state = createState({ search: params.toString() });
  for (const name of state.rejected) refuse(name, getAttribute(name), defaultOf(name));
  for (const [name, raw] of invalidBool) refuse(name, raw, defaultOf(name));
  // a step outside the range: the scene opens at the range's start (scene.js)
  const scene = sceneOf(state);
  if (scene.outside) refuse('step', getAttribute('step'), scene.range.from);

  return { section, lang, theme, autoplay: scene.autoplay, state, notices };
}

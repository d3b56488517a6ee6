// styles.js: the widget's stylesheets, made once per document and adopted by every widget's
// shadow root. Constructable stylesheets (adoptedStyleSheets) are not inline <style> elements, so
// they work under a Content-Security-Policy without 'unsafe-inline'.
//
// The page's style.css is reused as it is, with three adaptations for life inside a blog post:
//   rem → px          the host page's root font size must not rescale the widget;
//   @media (max-width) → @container (max-width)
//                     the compact layout follows the widget's width (a 640 px column on a wide
//                     screen is narrow), not the window's;
//   theme classes     `.qkv.theme-light` / `.qkv.theme-dark` copy the colour variables of the light
//                     rule and of the prefers-color-scheme: dark block, so theme="light|dark"
//                     can override the reader's scheme.
import PAGE_CSS from '../page/shell/style.css';
import WIDGET_CSS from './widget.css';
import { addSheet, constructable } from '../page/shell/sheets.js';

const ROOT_FONT_PX = 16;

export function adaptCSS(text) {
  return text
    .replace(/(-?\d*\.?\d+)rem\b/g, (_, n) => `${+(Number(n) * ROOT_FONT_PX).toFixed(3)}px`)
    .replace(/@media\s*\(\s*max-width:\s*([\d.]+px)\s*\)/g, '@container (max-width: $1)')
    .replace(/(\d)vw\b/g, '$1cqw');
}

/** The custom properties (--name: value) declared by the first style rule with this selector. */
function variablesOf(rules, selector) {
  for (const rule of rules) {
    if (rule.selectorText === selector) {
      const out = [];
      for (let k = 0; k < rule.style.length; k++) {
        const name = rule.style[k];
        if (name.startsWith('--')) out.push(`${name}: ${rule.style.getPropertyValue(name).trim()};`);
      }
      if (rule.style.getPropertyValue('color-scheme')) out.push(`color-scheme: ${rule.style.getPropertyValue('color-scheme')};`);
      return out.join(' ');
    }
  }
  return '';
}

function themeRules(sheet) {
  const rules = [...sheet.cssRules];
  const light = variablesOf(rules, '.qkv');
  const darkBlock = rules.find((r) => r.media && /prefers-color-scheme:\s*dark/.test(r.media.mediaText));
  const dark = darkBlock ? variablesOf([...darkBlock.cssRules], '.qkv') : '';
  return `.qkv.theme-light { ${light} }\n.qkv.theme-dark { ${dark} }\n`;
}

let cached = null;

/** Adopts the widget's sheets into a shadow root (falls back to <style> in old browsers). */
export function adoptStyles(root) {
  if (!cached) {
    const page = adaptCSS(PAGE_CSS);
    const texts = [page, WIDGET_CSS];
    if (constructable()) {
      const sheets = texts.map((text) => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(text);
        return sheet;
      });
      const themes = new CSSStyleSheet();
      themes.replaceSync(themeRules(sheets[0]));
      cached = { sheets: [...sheets, themes] };
    } else {
      cached = { texts };
    }
  }
  if (cached.sheets) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, ...cached.sheets];
  } else {
    for (const text of cached.texts) {
      const style = document.createElement('style');
      style.textContent = text;
      root.append(style);
    }
  }
}

/**
 * A section's own sheet that travels with its add-on (training/training-css.js, gpt/gpt-css.js):
 * added to a shadow root once, when such a section is built.
 */
export function addSectionStyles(root, css) {
  root.qkvSectionStyles ||= new Set();
  if (root.qkvSectionStyles.has(css)) return;
  root.qkvSectionStyles.add(css);
  addSheet(root, adaptCSS(css));
}

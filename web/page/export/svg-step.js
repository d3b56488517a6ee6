// export/svg-step.js: a picture of one step of a section, as a self-contained SVG made of real
// <rect>, <line> and <text> elements (no <foreignObject>, which most feed readers and mail clients
// do not draw), built from the boxes the browser laid out: every coloured box becomes a rect,
// every border a line, every line of text a <text> at its place, and inline SVG drawings (the
// dot-product picture) are copied in with their computed styles written on each element. A
// canvas (a chart) goes in as an embedded PNG.
//
// Fonts: the page uses the reader's system fonts and ships none, so there is nothing to embed.
// Text stays text (searchable, selectable, readable by a screen reader) in a generic font stack,
// and each line is fitted to the width it had on the page (textLength), so a reader whose fonts
// are wider or narrower still sees every number inside its cell.
//
// A table that scrolls sideways is drawn whole when the picture stays readable with it (at most
// READABLE_WIDTH, or the section's own width if that is more); a wider one (the block's 64
// columns at width 16: 4,090 px) is drawn as the page shows it, the columns in view, and the
// table's note says how many of its columns the picture shows (matrix-view.js writes it).
//
//   const { svg, width, height } = stepToSvg(sectionElement, { parts: [title, narration, stage] });
const SVG_NS = 'http://www.w3.org/2000/svg';
export const FONT_STACK = "system-ui, -apple-system, 'Segoe UI', 'Noto Sans', 'Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei', sans-serif";
const MONO_STACK = "ui-monospace, 'SF Mono', Menlo, Consolas, 'Noto Sans Mono', monospace";

/** The widest picture a sideways-scrolling table may widen to (a desktop section is about 1,050 px). */
export const READABLE_WIDTH = 1100;

const transparent = (c) => !c || c === 'transparent' || /rgba\([^)]*,\s*0\)$/.test(c);
/**
 * Text or an attribute value as XML: the markup characters escaped, and what XML 1.0 forbids in a
 * document (C0 controls but tab, line feed and return; U+FFFE, U+FFFF) dropped, and a lone
 * surrogate half replaced by U+FFFD: a reader's text may hold any of them, and one is enough for
 * the SVG not to parse and the GIF made from it not to decode.
 */
export const esc = (text) => String(text)
  .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
  .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
  .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v) => Number(v.toFixed(2));

/** The colour behind an element: its own background, else its nearest ancestor's. */
export function backgroundOf(el) {
  for (let e = el; e; e = e.parentElement) {
    const c = getComputedStyle(e).backgroundColor;
    if (!transparent(c)) return c;
  }
  return '#ffffff';
}

function visible(el) {
  const cs = getComputedStyle(el);
  if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) === 0) return false;
  // text for screen readers only (.visually-hidden: a 1-pixel clipped box) is not in the picture
  const r = el.getBoundingClientRect();
  return !((r.width <= 1 || r.height <= 1) && cs.overflow !== 'visible');
}

/** The text of a text node, one entry per line the browser wrapped it into: { text, rect }. */
function textLines(node) {
  const text = node.textContent;
  const range = document.createRange();
  range.selectNodeContents(node);
  const rects = [...range.getClientRects()].filter((r) => r.width > 0);
  if (rects.length <= 1) return rects.length ? [{ text, rect: rects[0] }] : [];
  // wrapped: group the characters by the line they sit on
  const lines = [];
  for (let i = 0; i < text.length; i++) {
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const r = range.getClientRects()[0];
    if (!r) continue;
    const last = lines[lines.length - 1];
    if (last && Math.abs(last.top - r.top) < r.height / 2) {
      last.text += text[i];
      last.right = Math.max(last.right, r.right);
      last.bottom = Math.max(last.bottom, r.bottom);
    } else {
      lines.push({ text: text[i], top: r.top, left: r.left, right: r.right, bottom: r.bottom });
    }
  }
  return lines.map((l) => ({ text: l.text, rect: { left: l.left, top: l.top, width: l.right - l.left, height: l.bottom - l.top } }));
}

const SVG_STYLE_PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-dasharray', 'opacity', 'font-size', 'font-weight', 'font-family', 'text-anchor', 'dominant-baseline'];

/** A copy of an inline <svg> with the computed styles written on each element (no stylesheet needed). */
function copySvg(svg, x, y, rect) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [copy, ...copy.querySelectorAll('*')];
  from.forEach((el, k) => {
    const cs = getComputedStyle(el);
    const style = SVG_STYLE_PROPS.map((p) => [p, cs.getPropertyValue(p)]).filter(([, v]) => v && v !== 'normal')
      .map(([p, v]) => `${p}:${p === 'font-family' ? FONT_STACK : v}`).join(';');
    to[k].setAttribute('style', style);
    to[k].removeAttribute('class');
  });
  copy.setAttribute('x', num(x));
  copy.setAttribute('y', num(y));
  copy.setAttribute('width', num(rect.width));
  copy.setAttribute('height', num(rect.height));
  return new XMLSerializer().serializeToString(copy);
}

/**
 * stepToSvg(root, { parts, padding, gap }) → { svg (text), width, height, texts (every text drawn) }.
 * parts: the elements to draw (default: root itself), stacked one under the other as they are
 * on the page, without what lies between them (the controls), `gap` pixels apart.
 */
export function stepToSvg(root, { parts = [root], padding = 12, gap = 10 } = {}) {
  const shown = parts.filter((p) => p && visible(p) && p.getBoundingClientRect().height > 0);
  const boxes = shown.map((p) => p.getBoundingClientRect());
  const left = Math.min(...boxes.map((b) => b.left)) - padding;
  let right = Math.max(...boxes.map((b) => b.right));   // widened by boxes drawn whole (below)
  // the boxes that scroll sideways, and which of them are too wide to draw whole (drawn as shown)
  const widest = left + Math.max(READABLE_WIDTH, right - left + padding) - padding;
  const sidewaysBoxes = new Set();
  const cutBoxes = new Set();
  for (const part of shown) {
    for (const el of part.querySelectorAll('*')) {
      if (!(el.scrollWidth > el.clientWidth + 1)) continue;
      const cs = getComputedStyle(el);
      if (!((cs.overflowX === 'auto' || cs.overflowX === 'scroll') && cs.overflowY !== 'hidden')) continue;
      sidewaysBoxes.add(el);
      if (el.getBoundingClientRect().left + el.scrollWidth > widest) cutBoxes.add(el);
    }
  }
  // a table's note that it scrolls: drawn (in its picture wording) when its table is cut here
  const cutNoteOf = (el) => {
    const owner = el.closest('figure') || el.parentElement;
    return owner && [...cutBoxes].some((box) => owner.contains(box)) ? el.dataset.pictureNote || el.textContent : null;
  };
  const height = boxes.reduce((sum, b) => sum + b.height, 0) + gap * (boxes.length - 1) + 2 * padding;
  const out = [];
  const texts = [];
  let clipCount = 0;
  let top = 0;   // page y that maps to the picture's 0 for the part being drawn
  const X = (v) => num(v - left);
  const Y = (v) => num(v - top);

  // alpha: the opacity the element inherits from its ancestors (CSS opacity compounds down the
  // tree): a box drawn with opacity 0.2 on the page (an attention weight) is drawn so here too
  function walk(el, inherited = 1) {
    if (!visible(el)) return;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const alpha = inherited * (Number(cs.opacity) || 0);
    const faded = alpha < 1 ? ` opacity="${num(alpha)}"` : '';
    if (el.namespaceURI === SVG_NS && el.tagName.toLowerCase() === 'svg') {
      if (r.width > 0 && r.height > 0) out.push(copySvg(el, X(r.left), Y(r.top), r));
      texts.push(el.textContent);
      return;
    }
    if (el.tagName === 'CANVAS') {
      try {
        out.push(`<image x="${X(r.left)}" y="${Y(r.top)}" width="${num(r.width)}" height="${num(r.height)}" href="${el.toDataURL('image/png')}"/>`);
      } catch { /* a tainted canvas: left out */ }
      return;
    }
    // a control is not part of the step, but a choice is: a select shows its chosen option, a text box its value
    const value = el.tagName === 'SELECT' ? el.selectedOptions[0]?.textContent ?? ''
      : el.tagName === 'INPUT' && ['text', 'number', ''].includes(el.getAttribute('type') || '') ? el.value : null;
    // a toggle (aria-pressed: the writer's query characters) shows what is chosen: it is drawn
    const shows = el.tagName === 'BUTTON' && el.hasAttribute('aria-pressed');
    if (value === null && !shows && ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'SCRIPT', 'STYLE'].includes(el.tagName)) return;
    // the sign that a table scrolls sideways: the picture shows the whole table instead, or,
    // when it is too wide for that, the columns in view and this note in its picture wording
    if (el.classList.contains('matrix-scrolls')) {
      const note = cutNoteOf(el);
      if (note && r.width > 0 && r.height > 0) {
        texts.push(note);
        // fitted to the picture when it would run past it (a phone's narrow section)
        const em = parseFloat(cs.fontSize) || 13;
        const wide = [...note].reduce((w, ch) => w + (ch.codePointAt(0) > 0x2e80 ? em : 0.56 * em), 0);
        const room = right - r.left;
        const fit = wide > room ? ` textLength="${num(room)}" lengthAdjust="spacingAndGlyphs"` : '';
        out.push(`<text x="${X(r.left)}" y="${Y(r.top + r.height / 2)}" dominant-baseline="central" font-family="${esc(FONT_STACK)}" font-size="${cs.fontSize}" font-weight="${cs.fontWeight}" fill="${cs.color}"${fit}>${esc(note)}</text>`);
      }
      return;
    }
    if (r.width > 0 && r.height > 0) {
      if (!transparent(cs.backgroundColor)) {
        const radius = parseFloat(cs.borderTopLeftRadius) || 0;
        out.push(`<rect x="${X(r.left)}" y="${Y(r.top)}" width="${num(r.width)}" height="${num(r.height)}"${radius ? ` rx="${num(radius)}"` : ''} fill="${cs.backgroundColor}"${faded}/>`);
      }
      const sides = [['Top', r.left, r.top, r.right, r.top], ['Bottom', r.left, r.bottom, r.right, r.bottom],
        ['Left', r.left, r.top, r.left, r.bottom], ['Right', r.right, r.top, r.right, r.bottom]];
      for (const [side, x1, y1, x2, y2] of sides) {
        const w = parseFloat(cs[`border${side}Width`]) || 0;
        if (w <= 0 || cs[`border${side}Style`] === 'none' || transparent(cs[`border${side}Color`])) continue;
        const inset = w / 2 * (side === 'Top' || side === 'Left' ? 1 : -1);
        const [a, b, c, d] = side === 'Top' || side === 'Bottom' ? [x1, y1 + inset, x2, y2 + inset] : [x1 + inset, y1, x2 + inset, y2];
        out.push(`<line x1="${X(a)}" y1="${Y(b)}" x2="${X(c)}" y2="${Y(d)}" stroke="${cs[`border${side}Color`]}" stroke-width="${num(w)}"${faded}/>`);
      }
    }
    if (value !== null) {
      const t = value.trim();
      if (t) {
        texts.push(t);
        const x = r.left + (parseFloat(cs.borderLeftWidth) || 0) + (parseFloat(cs.paddingLeft) || 0);
        out.push(`<text x="${X(x)}" y="${Y(r.top + r.height / 2)}" dominant-baseline="central" font-family="${esc(FONT_STACK)}" font-size="${cs.fontSize}" fill="${cs.color}">${esc(t)}</text>`);
      }
      return;
    }
    // a box that scrolls sideways (a wide table on a phone) is drawn whole: a picture does not
    // scroll, so the picture widens to hold it, up to a readable width; beyond that, and for any
    // other overflow, what is inside the box as it shows
    const sideways = sidewaysBoxes.has(el) && !cutBoxes.has(el);
    if (sideways) right = Math.max(right, r.left + el.scrollWidth + (parseFloat(cs.borderRightWidth) || 0));
    const clips = !sideways && (cs.overflowX !== 'visible' || cs.overflowY !== 'visible');
    if (clips && r.width > 0 && r.height > 0) {
      const clipId = `clip${++clipCount}`;
      out.push(`<clipPath id="${clipId}"><rect x="${X(r.left)}" y="${Y(r.top)}" width="${num(r.width)}" height="${num(r.height)}"/></clipPath><g clip-path="url(#${clipId})">`);
    }
    walkChildren(el, cs, r, alpha);
    if (clips && r.width > 0 && r.height > 0) out.push('</g>');
  }

  /**
   * A ::before the picture cannot draw (the page's section number, counter(section) ". ") leaves
   * a gap before the first line: that line starts at the content's left edge instead, aligned with
   * the rest, and without the number (a picture of one section has none, as a widget has none).
   */
  function contentLeft(el, cs, r) {
    const before = getComputedStyle(el, '::before').content;
    if (!before || before === 'none' || before === 'normal') return null;
    return r.left + (parseFloat(cs.borderLeftWidth) || 0) + (parseFloat(cs.paddingLeft) || 0);
  }

  function walkChildren(el, cs, r = el.getBoundingClientRect(), alpha = 1) {
    const faded = alpha < 1 ? ` opacity="${num(alpha)}"` : '';
    let indentFrom = contentLeft(el, cs, r);   // the first line's left, while a ::before gap is still to close
    for (const child of el.childNodes) {
      if (child.nodeType === Node.ELEMENT_NODE) { indentFrom = null; walk(child, alpha); }
      else if (child.nodeType === Node.TEXT_NODE && child.textContent.trim()) {
        const mono = /mono/i.test(cs.fontFamily);
        for (const { text, rect: line } of textLines(child)) {
          const t = text.replace(/\s+/g, ' ').trim();
          if (!t) continue;
          // (a DOMRect's sides are getters: copied by name, not spread)
          const rect = indentFrom !== null && line.left > indentFrom + 1
            ? { left: indentFrom, top: line.top, width: line.width, height: line.height } : line;
          indentFrom = null;
          texts.push(t);
          const fit = t.length > 1 ? ` textLength="${num(rect.width)}" lengthAdjust="spacingAndGlyphs"` : '';
          out.push(`<text x="${X(rect.left)}" y="${Y(rect.top + rect.height / 2)}" dominant-baseline="central" font-family="${esc(mono ? MONO_STACK : FONT_STACK)}" font-size="${cs.fontSize}" font-weight="${cs.fontWeight}"${cs.fontStyle === 'italic' ? ' font-style="italic"' : ''} fill="${cs.color}"${fit}${faded}>${esc(t)}</text>`);
          // struck out (a token top-k or top-p cut): the line through it, as on the page
          if (/line-through/.test(cs.textDecorationLine)) {
            const mid = rect.top + rect.height / 2;
            out.push(`<line class="strike" x1="${X(rect.left)}" y1="${Y(mid)}" x2="${X(rect.left + rect.width)}" y2="${Y(mid)}" stroke="${cs.textDecorationColor || cs.color}" stroke-width="1"/>`);
          }
        }
      }
    }
  }
  let y = padding;
  shown.forEach((part, k) => {
    top = boxes[k].top - y;
    walk(part);
    y += boxes[k].height + gap;
  });
  const width = right - left + padding;
  const lang = root.closest('[lang]')?.getAttribute('lang') || 'en';
  const svg = `<svg xmlns="${SVG_NS}" width="${num(width)}" height="${num(height)}" viewBox="0 0 ${num(width)} ${num(height)}" xml:lang="${esc(lang)}">` +
    `<rect width="100%" height="100%" fill="${backgroundOf(root)}"/>${out.join('')}</svg>`;
  return { svg, width: num(width), height: num(height), texts };
}

/** The SVG drawn into a canvas at `scale` (2: a PNG for slides), as a Blob of the given type. */
export async function rasterize(svg, width, height, { scale = 2, type = 'image/png' } = {}) {
  const canvas = rasterCanvas(await svgImage(svg), width, height, scale);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the picture could not be encoded'))), type));
}

/** The SVG as a decoded <img>. */
export async function svgImage(svg) {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    return img;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** A canvas with the image drawn at `scale`. */
export function rasterCanvas(img, width, height, scale = 1) {
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d').drawImage(img, 0, 0, canvas.width, canvas.height);
  return canvas;
}

// shell/dom.js: the one way the page builds elements. Text goes in through textContent only, so nothing
// read from the URL or typed by a reader can ever become markup.

/**
 * h('div', { class: 'x', text: 'hello', attrs: { role: 'note' }, on: { click: fn } }, child, ...)
 * children: elements, strings (as text nodes), null/false (skipped), or arrays of those.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  applyProps(el, props);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** The same for SVG elements; attrs are set as attributes. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') el.textContent = String(v);
    else if (v !== null && v !== undefined && v !== false) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function applyProps(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'attrs') {
      for (const [k, v] of Object.entries(value)) {
        if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? '' : String(v));
      }
    } else if (key === 'on') {
      for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    } else if (key === 'dataset') Object.assign(el.dataset, value);
    else el[key] = value;
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Shows `value` in a <select> of numbers. A setting may take values its menu does not list (a
 * link's or an attribute's gsteps=25 where the menu offers 50, 100, …): such a value gets an
 * option of its own, in order, so the menu shows what is in effect instead of a blank.
 */
export function selectNumber(select, value, format = String) {
  const text = String(value);
  if (![...select.options].some((o) => o.value === text)) {
    const after = [...select.options].find((o) => Number(o.value) > value);
    select.insertBefore(h('option', { value: text, text: format(value) }), after ?? null);
  }
  select.value = text;
}

/** Removes every child. */
export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/**
 * A number as the articles print it: 3 decimals, '-0.000' shown as '0.000', and never 'NaN':
 * anything not finite shows as an em dash.
 */
export function fmt(x, digits = 3) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '—';
  const text = x.toFixed(digits);
  return /^-0\.0*$/.test(text) ? text.slice(1) : text;
}

/** fmt, with negative numbers in parentheses (for products written out term by term). */
export function fmtTerm(x, digits = 3) {
  const text = fmt(x, digits);
  return text.startsWith('-') ? `(${text})` : text;
}

/** A listener set that can all be removed at once (sections call off() in destroy()). */
export function listeners() {
  const added = [];
  return {
    on(target, type, fn, options) {
      target.addEventListener(type, fn, options);
      added.push([target, type, fn, options]);
    },
    off() {
      for (const [target, type, fn, options] of added.splice(0)) target.removeEventListener(type, fn, options);
    },
  };
}

/** Saves a Blob (or a string as UTF-8 text) under a file name, through a temporary link. */
export function download(doc, content, filename, type = 'text/tab-separated-values;charset=utf-8') {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const a = doc.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  // append to the body so the click also works in browsers that ignore detached links
  (doc.body || doc.documentElement).appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A section whose content arrives after it is first seen (the training run is built then) grows
 * when it arrives. Until then the browser must not anchor the scroll position inside it: marked
 * `qkv-pending` (overflow-anchor: none, style.css), it leaves the anchor to what follows it, so
 * that when it grows above the reader (its last lines under the sticky bar, the next section in
 * view) the browser keeps the page still instead of pushing everything below down.
 * Returns settle(): call it once the content has been drawn; the mark goes two frames later.
 */
export function pendingLayout(element) {
  element.classList.add('qkv-pending');
  let done = false;
  return function settle() {
    if (done) return;
    done = true;
    const later = typeof requestAnimationFrame === 'function' ? requestAnimationFrame : (fn) => setTimeout(fn, 16);
    later(() => later(() => element.classList.remove('qkv-pending')));
  };
}

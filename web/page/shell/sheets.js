// sheets.js: a sheet added to a document or a shadow root after it is built (the sheets that
// travel with their sections: definition.css). Constructed and adopted where the browser can: a
// strict Content-Security-Policy's style-src refuses an inline <style>, not an adopted sheet.

/** Whether this browser can construct and adopt sheets (else a <style> element). */
export function constructable() {
  try {
    return typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype &&
      'adoptedStyleSheets' in Document.prototype && Boolean(new CSSStyleSheet());
  } catch {
    return false;
  }
}

/** Adds the CSS text `text` to root (a Document or a ShadowRoot). */
export function addSheet(root, text) {
  if (constructable()) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(text);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    return;
  }
  const style = document.createElement('style');
  style.textContent = text;
  (root.head || root).append(style);
}

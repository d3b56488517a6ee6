// shell/embed.js: iframe mode, for blogs whose platform strips <script> but allows <iframe>.
//
//   qkv-lab.html?embed=1&section=softmax&lang=en&seed=42
//
// shows one section and nothing else (no header, no footer, no other section), and tells the
// page that holds the iframe how tall it is, so the iframe can fit its content:
//   parent.postMessage({ type: 'qkv-lab:height', height, section }, '*')
// (the height of a public demo is no secret, so any parent may read it). With no section it shows
// the widget's default, the compact walkthrough X → … → output; with an unknown one, the same,
// and `unknownSection` holds what was asked for so that the page can say so (in `notice`).
//
// Wiring (web/page/shell/main.js), once the asked-for section is built (iframe mode builds that
// one alone; `sections` holds what is built):
//   const embed = applyEmbedMode({ root: app, sections, ctx, fallback: await WALKTHROUGH.load(),
//                                  params: new URLSearchParams(location.search) });
//   if (embed.active) { /* skip the initial scrollIntoView and the section-in-view observer;
//                         ctx.goTo(id) builds section id if it is not yet, then embed.show(id) */ }
//
// The host page's side: the iframe alone works (it scrolls inside its fixed height); this
// optional script, once per page, makes every qkv-lab iframe as tall as its content:
//   <script>
//   addEventListener('message', (e) => {
//     if (!e.data || e.data.type !== 'qkv-lab:height') return;
//     for (const f of document.querySelectorAll('iframe'))
//       if (f.contentWindow === e.source) f.style.height = e.data.height + 'px';
//   });
//   </script>
export const HEIGHT_MESSAGE = 'qkv-lab:height';

/**
 * ?tools=1 (or tools, tools=true) with ?embed=1: the author's tools (Copy embed code, Export, the
 * section's # link) stay; without it an embedded section shows none of them to the post's readers.
 */
export function wantsAuthorTools(params) {
  return Boolean(params && params.has('tools') && ['', '1', 'true'].includes(params.get('tools')));
}

/** ?embed=1 (or embed, embed=true) turns iframe mode on. */
export function isEmbedMode(params) {
  if (!params || !params.has('embed')) return false;
  return ['', '1', 'true'].includes(params.get('embed'));
}

/**
 * applyEmbedMode({ root, sections, ctx, fallback, params, win })
 *   root      the page's root element (#app): everything in it but the shown section is hidden
 *   sections  the page's sections [{ id, element, setLanguage?, destroy? }]
 *   ctx       the sections' context (to build the fallback when it is asked for); optional
 *   fallback  a section definition { id, create(ctx) } shown without ?section= (the walkthrough);
 *             optional: without it (or without ctx) the first section is the default
 *   params    URLSearchParams of the page's address
 *   notice    optional element kept visible just above the shown section (the page's notices)
 * → { active, section, unknownSection, show(id), destroy() }. When ?embed is absent it does
 * nothing and returns { active: false }.
 */
export function applyEmbedMode({ root, sections, ctx = null, fallback = null, params, notice = null, win = window }) {
  if (!isEmbedMode(params)) return { active: false, section: null, unknownSection: null, show() {}, destroy() {} };
  const doc = root.ownerDocument;
  const hiddenByUs = [];
  let own = null;          // the walkthrough, when embed.js built it
  let offLanguage = null;
  let shown = null;

  doc.documentElement.classList.add('qkv-embed');
  doc.documentElement.classList.toggle('qkv-author-tools', wantsAuthorTools(params));
  doc.documentElement.dataset.embed = 'true';
  const restyled = [[doc.body, 'margin', '0'], [root, 'padding', '0'], [root, 'maxWidth', 'none']];
  const previous = restyled.map(([el, prop]) => el.style[prop]);
  for (const [el, prop, value] of restyled) el.style[prop] = value;  // CSSOM: allowed under a CSP

  function hide(el) {
    if (el.hidden || el === notice) return;
    el.hidden = true;
    el.style.display = 'none';
    hiddenByUs.push(el);
  }

  function unhideAll() {
    for (const el of hiddenByUs.splice(0)) {
      el.hidden = false;
      el.style.display = '';
    }
  }

  function sectionFor(id) {
    const found = sections.find((s) => s.id === id);
    if (found) return found;
    if (!ctx || !fallback) return sections[0];
    if (!own) {
      own = fallback.create(ctx);
      const story = sections[0] ? sections[0].element.parentNode : root;
      story.insertBefore(own.element, story.firstChild);
      if (ctx.i18n && ctx.i18n.onLanguageChange) offLanguage = ctx.i18n.onLanguageChange((lang) => own.setLanguage(lang));
    }
    return own;
  }

  /** Shows only section `id`: every sibling on the way up from it to root is hidden. */
  function show(id) {
    unhideAll();
    const section = sectionFor(id);
    if (!section) return;
    shown = section;
    for (let el = section.element; el && el !== root; el = el.parentElement) {
      for (const sibling of el.parentElement ? el.parentElement.children : []) {
        if (sibling !== el) hide(sibling);
      }
    }
    section.element.style.margin = '0';
    if (notice) section.element.before(notice);
    doc.documentElement.dataset.embedSection = section.id;
    postHeight();
  }

  let lastHeight = -1;
  function postHeight() {
    if (!shown || win.parent === win) return;
    const box = root.getBoundingClientRect();
    const height = Math.ceil(box.bottom + win.scrollY);
    if (height === lastHeight) return;
    lastHeight = height;
    win.parent.postMessage({ type: HEIGHT_MESSAGE, height, section: shown.id }, '*');
  }

  let observer = null;
  if (typeof ResizeObserver === 'function') {
    observer = new ResizeObserver(() => postHeight());
    observer.observe(root);
  }
  win.addEventListener('load', postHeight);

  const requested = params.get('section');
  const known = (id) => sections.some((s) => s.id === id) || (fallback && fallback.id === id);
  const unknownSection = requested && !known(requested) ? requested : null;
  show(requested || (fallback ? fallback.id : sections[0]?.id));

  return {
    active: true,
    unknownSection,
    get section() { return shown ? shown.id : null; },
    /** The section object shown (one of `sections`, or the walkthrough embed.js built). */
    get shownSection() { return shown; },
    show,
    destroy() {
      if (observer) observer.disconnect();
      win.removeEventListener('load', postHeight);
      unhideAll();
      restyled.forEach(([el, prop], k) => { el.style[prop] = previous[k]; });
      if (offLanguage) offLanguage();
      if (own) {
        own.destroy();
        own.element.remove();
      }
      if (notice) notice.remove();
      doc.documentElement.classList.remove('qkv-embed', 'qkv-author-tools');
      delete doc.documentElement.dataset.embed;
      delete doc.documentElement.dataset.embedSection;
    },
  };
}

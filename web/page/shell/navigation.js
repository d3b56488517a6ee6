// shell/navigation.js: finding one's way in a page about 10,000 px tall. A bar that stays at the top of
// the window (the page's name, a contents menu, the language switch, so all three are one tap away
// wherever the reader is), a table of contents under the title, a link (#id) beside every
// section's title, and the section in view marked in both lists. Deep links: #scores and
// ?section=scores both open the page at that section (main.js).
//
//   const nav = createNavigation({ i18n, langGroup, goTo });
//   app.prepend(nav.bar); header.append(nav.toc);
//   nav.setSections(sections); nav.setCurrent('scores'); nav.refresh();   // after a language change
import { h, clear, listeners } from './dom.js';
import { addStrings } from './i18n.js';
import { NAVIGATION_STRINGS } from './navigation.strings.js';

addStrings(NAVIGATION_STRINGS);

export function createNavigation({ i18n, langGroup, goTo }) {
  const events = listeners();
  const menuSummary = h('summary');
  const menuList = h('ol', { class: 'toc-list' });
  const menu = h('details', { class: 'toc-menu' }, menuSummary, menuList);
  const brand = h('a', { class: 'brand', attrs: { href: '#app' }, text: 'qkv-lab' });
  const bar = h('nav', { class: 'page-bar' }, brand, menu, langGroup);
  const tocTitle = h('h2', { class: 'toc-title' });
  const tocList = h('ol', { class: 'toc-list toc-columns' });
  const toc = h('nav', { class: 'toc', hidden: true }, tocTitle, tocList);   // shown once there are sections
  let entries = [];   // { id, title (the section's heading), links: [menu link, toc link], anchor }

  events.on(brand, 'click', (event) => {
    event.preventDefault();
    menu.open = false;
    bar.ownerDocument.defaultView.scrollTo({ top: 0, behavior: 'auto' });
  });
  // Escape closes the menu and gives focus back to its summary
  events.on(menu, 'keydown', (event) => {
    if (event.key === 'Escape' && menu.open) { menu.open = false; menuSummary.focus(); }
  });
  // a click outside the open menu closes it
  events.on(bar.ownerDocument, 'click', (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });

  function link(entry) {
    const a = h('a', { attrs: { href: `#${entry.id}` } });
    events.on(a, 'click', (event) => {
      event.preventDefault();
      menu.open = false;
      goTo(entry.id);
    });
    return a;
  }

  /**
   * sections: the page's story in order; a section not built yet (main.js builds those below the
   * fold after the first paint) is { id, titleKey? }, listed by its title until it is built. Called
   * again as sections are built: links are kept, each built section gets its #link once.
   */
  function setSections(sections) {
    clear(menuList);
    clear(tocList);
    const before = new Map(entries.map((entry) => [entry.id, entry]));
    entries = sections.map((section) => {
      const entry = before.get(section.id) || { id: section.id, anchor: null };
      entry.links ||= [link(entry), link(entry)];
      entry.title = section.element ? section.element.querySelector('.section-title') : null;
      entry.titleKey = section.titleKey || null;
      menuList.append(h('li', {}, entry.links[0]));
      tocList.append(h('li', {}, entry.links[1]));
      // the section's own link, for copying: #id (main.js scrolls there on load and on hashchange)
      if (section.element && !entry.anchor) {
        entry.anchor = h('a', { class: 'section-link', attrs: { href: `#${section.id}` }, text: '#' });
        section.element.append(entry.anchor);
      }
      return entry;
    });
    toc.hidden = entries.length === 0;
    refresh();
  }

  function refresh() {
    menuSummary.textContent = i18n.t('nav.contents');
    tocTitle.textContent = i18n.t('nav.contents');
    bar.setAttribute('aria-label', i18n.t('nav.bar'));
    toc.setAttribute('aria-label', i18n.t('nav.toc'));
    brand.setAttribute('aria-label', `qkv-lab: ${i18n.t('nav.top')}`);
    entries.forEach((entry, k) => {
      const title = `${k + 1}. ${entry.title ? entry.title.textContent : entry.titleKey ? i18n.t(entry.titleKey) : entry.id}`;
      for (const a of entry.links) a.textContent = title;
      if (!entry.anchor) return;
      entry.anchor.setAttribute('aria-label', i18n.t('nav.link', { title }));
      entry.anchor.title = i18n.t('nav.link', { title });
    });
  }

  /** Marks the section in view (aria-current) in both lists. */
  function setCurrent(id) {
    for (const entry of entries) {
      for (const a of entry.links) {
        if (entry.id === id) a.setAttribute('aria-current', 'location'); else a.removeAttribute('aria-current');
      }
    }
  }

  return { bar, toc, setSections, refresh, setCurrent, destroy: () => events.off() };
}

// shell/main.js: the one file that wires the page: loads the WebAssembly API, reads the URL state,
// builds the snapshot every section draws, creates the sections in story order, and switches
// the language. Sections never reach outside their own element; this file owns the document.
import { load } from '../../qkv-lab.js';
import { h, listeners } from './dom.js';
import { addSheet } from './sheets.js';

/** The sheets sections brought with them (definition.css), each added to the page's head once. */
const sectionSheets = new Set();
import { addStrings, createI18n, languageFromNavigator } from './i18n.js';
import { PAGE_STRINGS } from './main.strings.js';
import { createState } from './state.js';
import { createSectionContext } from './context.js';
import { PAGE_SECTIONS, WALKTHROUGH } from '../sections/index.js';
import { applyEmbedMode, isEmbedMode, wantsAuthorTools } from './embed.js';
import { sceneOf } from './scene.js';
import { createSectionTools } from './section-tools.js';
import { createNavigation } from './navigation.js';
import { toggle } from './section-shell.js';
import { QUIZ_STRINGS } from './quiz.strings.js';

addStrings(PAGE_STRINGS);


async function main() {
  const started = performance.now();
  // the WebAssembly first: it inflates and compiles while the header is built
  const loading = load();
  loading.catch(() => {});   // awaited below, where a failure is told
  const app = document.getElementById('app');
  const state = createState({
    search: location.search,
    write(query) {
      try { history.replaceState(null, '', location.pathname + query + location.hash); } catch { /* file:// may refuse */ }
    },
  });
  const i18n = createI18n(state.get('lang') || languageFromNavigator());
  const texts = i18n.binder();
  // the scene (step, steps, loop, autoplay: scene.js) is for the section the link names: in iframe
  // mode the one shown (the walkthrough without ?section=), on the page ?section=
  const params = new URLSearchParams(location.search);
  const sceneSection = isEmbedMode(params) ? (params.get('section') || WALKTHROUGH.id) : state.get('section');
  const scene = sceneOf(state);
  if (scene.outside) state.rejected.push('step');

  // header: title, language switch, notices
  const langButtons = [['zh', '中文'], ['en', 'English']].map(([code, name]) =>
    h('button', { class: 'lang-btn', text: name, attrs: { type: 'button', lang: code === 'zh' ? 'zh-CN' : 'en' }, dataset: { lang: code } }));
  const langGroup = h('div', { class: 'lang-switch', attrs: { role: 'group' } }, langButtons);
  const notice = h('p', { class: 'notice', attrs: { role: 'status' }, hidden: true });
  const status = h('p', { class: 'load-status', attrs: { role: 'status' } });
  const live = h('div', { class: 'visually-hidden', attrs: { 'aria-live': 'polite' } });
  // the bar at the top of the window carries the language switch and the contents (navigation.js)
  const nav = createNavigation({ i18n, langGroup, goTo: (id) => goTo(id) });
  // the exercises switch: every section asks before it reveals (state `quiz`, shell/quiz.js)
  addStrings(QUIZ_STRINGS);
  const quizSwitch = toggle(texts, 'quiz.switch', Boolean(state.get('quiz')), (on) => state.set('quiz', on), listeners());
  quizSwitch.input.dataset.role = 'quiz-switch';
  const header = h('header', { class: 'page-header' },
    h('div', { class: 'header-top' }, texts.set(h('h1'), 'page.title')),
    texts.set(h('p', { class: 'subtitle' }), 'page.subtitle'), h('div', { class: 'quiz-toggle' }, quizSwitch.element), nav.toc, notice, status);
  const story = h('div', { class: 'story' });
  const footer = h('footer', { class: 'page-footer' }, texts.set(h('p'), 'page.footer'));
  app.append(nav.bar, header, story, footer, live);
  texts.set(status, 'page.loading');

  // iframe mode hides the header: its notices go just above the one section shown (embed.js)
  const embedNotice = h('p', { class: 'notice embed-notice', attrs: { role: 'status' }, hidden: true });
  let embedNotices = () => [];
  function applyLanguage(lang) {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = i18n.t('page.title');
    for (const b of langButtons) b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
    langGroup.setAttribute('aria-label', i18n.t('page.lang'));
    texts.refresh();
    if (!notice.hidden) notice.textContent = i18n.t('page.notice', { names: state.rejected.join(', ') });
    const lines = embedNotices();
    embedNotice.textContent = lines.join(' ');
    embedNotice.hidden = lines.length === 0;
  }
  applyLanguage(i18n.lang);
  if (state.rejected.length) {
    notice.hidden = false;
    notice.textContent = i18n.t('page.notice', { names: state.rejected.join(', ') });
  }

  let qkv;
  try {
    qkv = await loading;
  } catch (error) {
    status.textContent = i18n.t('page.failed', { message: String(error && error.message) });
    return;
  }
  // which kernel build runs (SIMD128 on this page: tools/build-page.mjs, noRelaxed), for the tests
  document.body.dataset.kernels = qkv.kernels;

  const sections = [];
  // A jump (the contents, a #link, a data-flow stage, a deep link) must land, and stay, on its
  // section while the page around it is still settling: sections above or between grow as they are
  // built (the training sections when their model is ready, charts when they first draw), and a
  // smooth scroll that the page's growth interrupts ends short of its target, or never starts.
  // holdAt() scrolls, then checks once per frame: whenever nothing has moved for a few frames and the
  // section is not at the top, it scrolls there again. It lets go when the reader scrolls, types or
  // touches (or anything else scrolls the page once the section is in place), once the section has
  // stayed in place for 1 s, or after 8 s. Meanwhile the section-in-view
  // observer keeps quiet, so it does not overwrite the jump with the sections passed on the way.
  let observerQuiet = false;
  let holding = null;   // the jump under way's stop()
  function holdAt(element, { smooth }) {
    holding?.();
    const marginTop = () => parseFloat(getComputedStyle(element).scrollMarginTop) || 0;
    const offset = () => element.getBoundingClientRect().top - marginTop();
    element.scrollIntoView({ behavior: smooth ? 'smooth' : 'auto', block: 'start' });
    observerQuiet = true;
    const inputs = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
    let frame = 0;
    let timer = 0;
    const stop = () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      for (const type of inputs) removeEventListener(type, stop, true);
      observerQuiet = false;
      holding = null;
    };
    holding = stop;
    for (const type of inputs) addEventListener(type, stop, { capture: true, passive: true });
    timer = setTimeout(stop, 8000);
    let lastY = scrollY;
    let lastHeight = story.offsetHeight;
    let lastOff = offset();
    let inPlaceSince = null;
    let moved = false;   // whether the jump's own scroll has begun (a smooth one starts a frame or two late)
    let frames = 0;
    const tick = (now) => {
      const y = scrollY;
      const height = story.offsetHeight;
      // once in place, a scroll that no growth of the page explains is the reader's (a scrollbar
      // drag fires none of the inputs above) or a script's: theirs to keep
      if (inPlaceSince !== null && y !== lastY && height === lastHeight) return stop();
      // so is, at any time, a scroll away from the section by more than the page grew: the jump's
      // own scrolling only comes nearer, and growth moves it by at most what was added (sections
      // below may still be growing, a model arriving, so that the height never stays the same)
      const off = offset();
      if (y !== lastY && Math.abs(off) > Math.abs(lastOff) + Math.abs(height - lastHeight) + 2) return stop();
      lastOff = off;
      const scrolling = y !== lastY;
      if (scrolling) moved = true;
      frames++;
      lastY = y;
      lastHeight = height;
      // in place: at the top, or as near it as the page's end allows
      const atEnd = off > 0 && scrollY + innerHeight >= document.documentElement.scrollHeight - 1;
      if (Math.abs(off) < 2 || atEnd) {
        inPlaceSince ??= now;
        if (now - inPlaceSince >= 1000) return stop();
      } else {
        inPlaceSince = null;
        // a smooth scroll still under way moves scrollY every frame: let it finish first; once it
        // has, a section pushed off its place (the page grew or shrank above it) goes back at once
        if (!scrolling && (moved || frames >= 3)) element.scrollIntoView({ behavior: 'auto', block: 'start' });
      }
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
  }

  /** Scrolls to a section and puts focus on it (the contents, #links, the data-flow section). */
  function goTo(id) {
    const target = sections.find((s) => s.id === id);
    if (!target) {
      // below the fold and not built yet: there once the story is
      if (PAGE_SECTIONS.some((e) => e.id === id)) allBuilt.then(() => goTo(id));
      return;
    }
    holdAt(target.element, { smooth: !matchMedia('(prefers-reduced-motion: reduce)').matches });
    const stage = target.element.querySelector('.stage') || target.element;
    stage.focus({ preventScroll: true });
    state.set('section', id);
    nav.setCurrent(id);
  }

  // the shared snapshot: settings from the state, plus cells the reader edited (context.js)
  const ctx = createSectionContext({
    qkv, i18n, state, goTo,
    scene: sceneSection ? { section: sceneSection, live: false } : null,
    // a section may play itself once when first seen (the generated poem): on the page, not in
    // iframe mode, where the author's embed code chooses (autoplay), as in a widget
    playsOnOpen: !isEmbedMode(params),
    // the poet's training text, served beside the page (not from file://: the single file carries no poet)
    poetTextUrl: /^https?:$/.test(location.protocol) ? new URL('pretrained/tang-poet-train.bin', document.baseURI).href : null,
    // a step or range past the section's last step fell back (scene.js fitScene): the link's notice says so
    onSceneChecked(id, refused) {
      const names = refused.map((r) => r.name).filter((name) => !state.rejected.includes(name));
      if (!names.length) return;
      state.rejected.push(...names);
      notice.hidden = false;
      applyLanguage(i18n.lang);
    },
    // the author's tools; an embedded section (iframe mode) shows them only when asked (?tools=1)
    sectionTools: !isEmbedMode(params) || wantsAuthorTools(params) ? createSectionTools({ state, getSnapshot: () => ctx.getSnapshot() }) : null,
    announce(text) { live.textContent = ''; live.textContent = text; },
    onSnapshot(snapshot) {
      for (const section of sections) {
        try { section.update?.(snapshot); } catch (error) { console.warn(section.id, error); }
      }
    },
  });

  // The sections in view (and all through the one a link opens at) are built before the first
  // numbers show; the rest after the first paint, one per idle moment, so that the page answers
  // between them. Iframe mode shows one section and builds that one alone (the walkthrough, its
  // default, is embed.js's); another is built when a link inside it asks for it (ctx.goTo).
  const embedded = isEmbedMode(params);
  const fromHash = decodeURIComponent(location.hash.slice(1));
  const linked = PAGE_SECTIONS.some((e) => e.id === fromHash) ? fromHash : state.get('section');
  const linkedIndex = PAGE_SECTIONS.findIndex((e) => e.id === linked);
  let nextEntry = 0;
  let observer = null;   // the section-in-view observer, once it exists (below)
  async function buildNext() {
    await build(PAGE_SECTIONS[nextEntry++]);
  }
  async function build(entry) {
    try {
      const definition = await entry.load();
      // a section whose sheet travels with it (the GPT sections): added to the page once
      if (definition.css && !sectionSheets.has(definition.css)) {
        sectionSheets.add(definition.css);
        addSheet(document, definition.css);
      }
      const section = definition.create(ctx);
      sections.push(section);
      story.append(section.element);
      observer?.observe(section.element);
    } catch (error) {
      console.warn(error);
      // in its place, under its id, so that the contents and a link still find it (the single file
      // leaves out the fine-tuning section, which needs the pretrained model: it says so here)
      const failed = h('section', { class: 'qkv-section failed', dataset: { section: entry.id } }, h('p', { text: i18n.t('page.sectionFailed', { message: String(error.message) }) }));
      failed.id = entry.id;
      story.append(failed);
    }
  }
  const storyFillsView = () => story.getBoundingClientRect().bottom >= innerHeight;
  if (embedded) {
    const asked = PAGE_SECTIONS.find((entry) => entry.id === params.get('section'));
    if (asked) await build(asked);
    nextEntry = PAGE_SECTIONS.length;
  }
  while (nextEntry < PAGE_SECTIONS.length && (nextEntry <= linkedIndex || nextEntry === 0 || !storyFillsView())) await buildNext();
  // the contents list every section from the start (the ones still to come by their title)
  const listed = () => PAGE_SECTIONS.map((entry) => sections.find((s) => s.id === entry.id) || entry);
  status.hidden = true;
  nav.setSections(listed());
  // ?embed=1&section=…: one section without the page chrome, for iframes (embed.js)
  const embed = applyEmbedMode({ root: app, sections, ctx, fallback: await WALKTHROUGH.load(), params, notice: embedNotice });
  if (embed.active) {
    ctx.goTo = async (id) => {
      const entry = PAGE_SECTIONS.find((e) => e.id === id);
      if (entry && !sections.some((s) => s.id === id)) await build(entry);
      embed.show(id);
    };
    // what fell back, said where the reader of the iframe can see it ('walkthrough' is a section here)
    embedNotices = () => {
      const lines = [];
      const shownTitle = () => app.querySelector(`[data-section="${embed.section}"] .section-title`)?.textContent || embed.section;
      if (embed.unknownSection) lines.push(i18n.t('page.embedSection', { value: embed.unknownSection.slice(0, 40), fallback: `“${shownTitle()}”` }));
      const names = state.rejected.filter((name) => name !== 'section');
      if (names.length) lines.push(i18n.t('page.notice', { names: names.join(', ') }));
      return lines;
    };
    applyLanguage(i18n.lang);
  }
  // the first numbers are on screen (bench/page.mjs reads this)
  document.body.dataset.timeToNumbers = (performance.now() - started).toFixed(1);
  document.body.dataset.numbersAt = performance.now().toFixed(1);  // since navigation start
  document.body.dataset.sectionsAtNumbers = String(sections.length);

  for (const button of langButtons) {
    button.addEventListener('click', () => {
      i18n.setLanguage(button.dataset.lang);
      state.set('lang', button.dataset.lang);
    });
  }
  i18n.onLanguageChange((lang) => {
    // the reader stays where they were: the first section still on screen keeps its top. Sections
    // redraw now and in the frames after (their own schedulers); the browser's scroll anchoring
    // would hold some node inside that section instead (its title can change height with the
    // language), so for a few frames this holds the section's top itself, with anchoring off
    const barBottom = document.querySelector('.page-bar')?.getBoundingClientRect().bottom ?? 0;
    const anchor = embed.active ? null : sections.find((s) => s.element && s.element.getBoundingClientRect().bottom > barBottom + 1)?.element;
    const before = anchor?.getBoundingClientRect().top;
    const root = document.documentElement;
    if (anchor) root.style.overflowAnchor = 'none';
    applyLanguage(lang);
    for (const section of sections) section.setLanguage?.(lang);
    nav.refresh();
    if (!anchor) return;
    const keep = () => {
      const moved = anchor.getBoundingClientRect().top - before;
      if (Math.abs(moved) >= 0.5) scrollBy({ top: moved, behavior: 'instant' });
    };
    keep();
    const inputs = ['wheel', 'touchstart', 'keydown', 'pointerdown'];
    let frames = 0;
    const release = () => {
      for (const type of inputs) removeEventListener(type, release, true);
      root.style.overflowAnchor = '';
      frames = Infinity;
    };
    for (const type of inputs) addEventListener(type, release, { capture: true, passive: true });
    const tick = () => {
      if (frames === Infinity) return;
      keep();
      if (++frames < 12) requestAnimationFrame(tick);
      else release();
    };
    requestAnimationFrame(tick);
  });

  // the section in view goes into the URL; a link with #id or ?section=id opens there (built above)
  const initial = linked;
  if (initial && !embed.active) {
    const target = sections.find((s) => s.id === initial);
    if (target) holdAt(target.element, { smooth: false });
    state.set('section', initial);
    nav.setCurrent(initial);
  }
  if (!embed.active) {
    addEventListener('hashchange', () => {
      const id = decodeURIComponent(location.hash.slice(1));
      if (PAGE_SECTIONS.some((e) => e.id === id)) allBuilt.then(() => goTo(id));
    });
  }
  // autoplay: the scene's section plays while it is in view (as a widget does)
  const sceneShown = embed.active ? embed.shownSection : sections.find((s) => s.id === sceneSection);
  if (scene.autoplay && sceneShown?.stepper && 'IntersectionObserver' in window) {
    new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) sceneShown.stepper.play();
      else sceneShown.stepper.pause();
    }).observe(sceneShown.element);
  }
  // On the page, a link's scene is for the section it opens at: once the reader has moved on to
  // another section it no longer describes what they see, and leaves the address (in the two
  // training sections `step` is the run's, which stays)
  let sceneInLink = Boolean(sceneSection) && !embed.active;
  function leaveScene(id) {
    if (!sceneInLink || id === sceneSection) return;
    sceneInLink = false;
    if (sceneSection !== 'training' && sceneSection !== 'trainstep') state.set('step', 0);
    for (const [name, value] of [['steps', null], ['loop', false], ['autoplay', false]]) state.set(name, value);
  }
  if (!embed.active && 'IntersectionObserver' in window) {
    observer = new IntersectionObserver((entries) => {
      if (observerQuiet) return;
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        leaveScene(entry.target.dataset.section);
        state.set('section', entry.target.dataset.section || null);
        nav.setCurrent(entry.target.dataset.section);
      }
    }, { rootMargin: '-40% 0px -55% 0px' });
    for (const section of sections) observer.observe(section.element);
  }

  // the rest of the story, after the first paint: one section per idle moment (a busy page
  // still gets one within 100 ms); then every section is there (body[data-ready])
  const idle = () => new Promise((resolve) => (typeof requestIdleCallback === 'function'
    ? requestIdleCallback(() => resolve(), { timeout: 100 }) : setTimeout(resolve, 0)));
  while (nextEntry < PAGE_SECTIONS.length) {
    await idle();
    await buildNext();
    nav.setSections(listed());
  }
  finishBuilding();
  document.body.dataset.ready = 'true';
  document.body.dataset.readyAt = performance.now().toFixed(1);  // since navigation start
}

// a jump to a section still to be built waits for the rest of the story (main() resolves it)
let finishBuilding;
const allBuilt = new Promise((resolve) => { finishBuilding = resolve; });

main();

// shell/section-tools.js: the actions the page adds to every section's preamble (section-shell.js
// puts them there; the widget passes none, so none of this is in its script):
//   Copy embed code   the <qkv-lab> tag, its fallback picture and the iframe, for exactly what the
//                     reader sees (export/embed-code.js)
//   Export this step  an SVG of the step (export/svg-step.js), or a PNG at 2× when the section
//                     draws on a canvas
//   Export … as a GIF the step range (the scene's, else every step) as a looping GIF, encoded by
//                     export/animation.js, which is imported only when asked for
//
//   const sectionTools = createSectionTools({ state, getSnapshot, pageUrl });
//   createSectionContext({ …, sectionTools });
import { h } from './dom.js';
import { addStrings } from './i18n.js';
import { SECTION_TOOLS_STRINGS } from './section-tools.strings.js';
import { embedCode } from '../export/embed-code.js';
import { stepToSvg, svgImage, rasterize, backgroundOf } from '../export/svg-step.js';

addStrings(SECTION_TOOLS_STRINGS);

const FRAME_MS = 900;   // the stepper's own pace at 1×

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
const size = (bytes) => (bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`);

function download(blob, file) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { attrs: { href: url, download: file }, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * createSectionTools({ state, getSnapshot, pageUrl }) → sectionTools(options) → off, as
 * createSectionContext takes it. pageUrl: the address of the page an iframe should load
 * (default: this page's, without its query).
 */
export function createSectionTools({ state, getSnapshot = () => null, pageUrl = () => location.href.split(/[?#]/)[0] }) {
  /**
   * The tools of one section. stepper: its stepper, or null (a section with a frame of its own:
   * no GIF then); runStep(): the training step it shows, when its step is a run's; pictureParts():
   * the elements "Export this step" draws (default: the title, the narration and the stage).
   * settings: the state properties the section uses (its tag carries those only; null: all);
   * embedNote(): a line shown beside the code, saying what it cannot carry (null: nothing).
   * linkScene: false when a link cannot bring the stepper's steps back (the code has no step, no range).
   */
  return function sectionTools({ id, element, stage, toolbar, stepper, i18n, events, runStep = null, scene = () => null, pictureParts = null, settings = null, embedNote = null, linkScene = true }) {
    const texts = i18n.binder();
    const embedButton = texts.set(h('button', { class: 'tool-btn tool-embed', attrs: { type: 'button', 'aria-expanded': 'false' } }), 'tools.embed');
    const exportButton = texts.set(h('button', { class: 'tool-btn tool-export', attrs: { type: 'button' } }), 'tools.export');
    const gifButton = texts.set(h('button', { class: 'tool-btn tool-gif', attrs: { type: 'button' } }), 'tools.animate');
    const status = h('p', { class: 'tool-status', attrs: { role: 'status' } });
    const code = h('textarea', { class: 'embed-code', attrs: { readonly: '', rows: '7', spellcheck: 'false', id: `${id}-embed-code` } });
    const codeLabel = texts.set(h('label', { class: 'visually-hidden', attrs: { for: `${id}-embed-code` } }), 'tools.codeLabel');
    const codeNote = h('p', { class: 'note embed-note', attrs: { 'data-role': 'embed-note' }, hidden: true });
    // one figure per paste: the widget (tag and script), or the iframe where scripts are stripped
    const kindInput = (kind, key) => {
      const input = h('input', { attrs: { type: 'radio', name: `${id}-embed-kind`, value: kind, 'data-embed-kind': kind }, checked: kind === 'widget' });
      return [input, h('label', { class: 'embed-kind' }, input, texts.set(h('span'), key))];
    };
    const [widgetKind, widgetKindLabel] = kindInput('widget', 'tools.kindWidget');
    const [iframeKind, iframeKindLabel] = kindInput('iframe', 'tools.kindIframe');
    const kinds = h('fieldset', { class: 'embed-kinds' }, texts.set(h('legend', { class: 'visually-hidden' }), 'tools.kindLabel'), widgetKindLabel, iframeKindLabel);
    const panel = h('div', { class: 'embed-panel', hidden: true }, kinds, codeLabel, code, codeNote);
    toolbar.append(h('div', { class: 'tool-buttons', attrs: { role: 'group' } }, embedButton, exportButton, stepper ? gifButton : null), status, panel);
    toolbar.hidden = false;
    const label = () => toolbar.querySelector('.tool-buttons').setAttribute('aria-label', i18n.t('tools.label'));
    label();
    const offLanguage = i18n.onLanguageChange?.(() => { texts.refresh(); label(); });

    const canvasDrawn = () => Boolean(stage.querySelector('canvas'));
    const title = () => element.querySelector('.section-title')?.textContent.trim() || id;
    const narration = () => element.querySelector('.narration')?.textContent.trim() || '';
    /** The step as the reader sees it: the stepper's (1-based), or the training run's (runStep() gives it). */
    const shownStep = () => (runStep ? runStep() : stepper.index + 1);   // (a section without a stepper has a run)
    const fileName = (ext, suffix = `step-${shownStep()}`) => `qkv-lab-${id}-${suffix}.${ext}`;
    const picture = () => stepToSvg(element, { parts: pictureParts ? pictureParts() : [element.querySelector('.section-title'), element.querySelector('.narration'), stage] });
    const alt = () => (runStep || !stepper ? i18n.t('tools.altRun', { title: title(), i: shownStep() })
      : i18n.t('tools.alt', { title: title(), i: stepper.index + 1, n: stepper.count, narration: narration() }));

    events.on(embedButton, 'click', () => copyEmbed());
    for (const input of [widgetKind, iframeKind]) events.on(input, 'change', () => copyEmbed());
    async function copyEmbed() {
      const own = scene();
      const range = stepper ? stepper.range : { from: 0, to: 0 };
      const full = !stepper || (range.from === 0 && range.to === stepper.count - 1);
      // where the stepper is: the step, its range and loop (none when a link cannot bring them back)
      const at = linkScene
        ? { step: shownStep(), range: full ? null : { from: range.from + 1, to: range.to + 1 }, loop: Boolean(stepper?.loop) }
        : { step: 0, range: null, loop: false };
      const image = fileName(canvasDrawn() ? 'png' : 'svg');
      const result = embedCode({
        section: id, lang: i18n.lang, values: state.values(), keys: settings, step: at.step,
        scene: { range: at.range, loop: at.loop, autoplay: Boolean(own?.autoplay) },
        pageUrl: pageUrl(), image, alt: alt(), height: element.getBoundingClientRect().height + 24,
      });
      const iframe = iframeKind.checked;
      const text = iframe ? result.iframeText : result.text;
      code.value = text;
      const note = embedNote?.() || '';
      codeNote.textContent = note;
      codeNote.hidden = !note;
      panel.hidden = false;
      embedButton.setAttribute('aria-expanded', 'true');
      const edits = Object.keys(getSnapshot()?.edited || {}).length > 0;
      let copied = false;
      try {
        await navigator.clipboard.writeText(text);
        copied = true;
      } catch { /* file://, or no permission: the code is selected for the reader instead */ }
      if (!copied) code.select();
      status.textContent = [i18n.t(!copied ? 'tools.copyHere' : iframe ? 'tools.copiedIframe' : 'tools.copied'), iframe ? '' : i18n.t('tools.imageNote', { file: image }),
        edits ? i18n.t('tools.edits') : ''].filter(Boolean).join(i18n.lang === 'zh' ? '' : ' ');   // zh sentences end in 。 and need no space
    }

    events.on(exportButton, 'click', async () => {
      try {
        const { svg, width, height } = picture();
        const png = canvasDrawn();
        const blob = png ? await rasterize(svg, width, height, { scale: 2 }) : new Blob([svg], { type: 'image/svg+xml' });
        const file = fileName(png ? 'png' : 'svg');
        download(blob, file);
        status.textContent = i18n.t('tools.exported', { file, size: size(blob.size) });
      } catch (error) {
        status.textContent = i18n.t('tools.failed', { message: String(error && error.message) });
      }
    });

    events.on(gifButton, 'click', async () => {
      gifButton.disabled = true;
      const was = stepper.index;
      stepper.pause();
      try {
        const { encodeGif } = await import('../export/animation.js');
        const { from, to } = stepper.range;
        const pictures = [];
        for (let i = from; i <= to; i++) {
          status.textContent = i18n.t('tools.frame', { i: i - from + 1, n: to - from + 1 });
          stepper.go(i, false);
          await nextFrame();
          pictures.push(picture());
        }
        // one size for every frame: the largest; a smaller step sits at the top left on its background
        const width = Math.ceil(Math.max(...pictures.map((p) => p.width)));
        const height = Math.ceil(Math.max(...pictures.map((p) => p.height)));
        const frames = [];
        for (const p of pictures) {
          const canvas = h('canvas', { width, height });
          const c = canvas.getContext('2d', { willReadFrequently: true });
          c.fillStyle = backgroundOf(element);
          c.fillRect(0, 0, width, height);
          c.drawImage(await svgImage(p.svg), 0, 0, p.width, p.height);
          frames.push({ data: c.getImageData(0, 0, width, height).data, width, height });
        }
        const bytes = encodeGif(frames, { delay: FRAME_MS });
        const blob = new Blob([bytes], { type: 'image/gif' });
        const file = fileName('gif', `steps-${from + 1}-${to + 1}`);
        download(blob, file);
        status.textContent = i18n.t('tools.exported', { file, size: size(blob.size) });
      } catch (error) {
        status.textContent = i18n.t('tools.failed', { message: String(error && error.message) });
      } finally {
        stepper.go(was, false);
        gifButton.disabled = false;
      }
    });

    return () => offLanguage?.();
  };
}

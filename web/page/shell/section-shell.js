// shell/section-shell.js: the frame every section shares: a <section> with a heading, an intro, a
// focusable stage (keyboard steps while focus is inside) and a stepper. Renders only inside its
// own element, so a section works the same in the page and in a shadow root.
//
// defineSection() is the contract every stepped section follows (see sections/index.js):
//
//   export const scoresSection = defineSection({
//     id: 'scores', titleKey: 'scores.title', introKeys: ['scores.intro1'],
//     choices: ['kq'],            // optional: the snapshot.choices this section shows (context.js)
//     setup(frame) {            // once: build the DOM inside frame.stage / frame.controls
//       const view = frame.view({ name: 'S', label: 'S' });   // refreshed and destroyed for you
//       return {
//         count: (snap) => …,             // how many steps this snapshot has
//         draw(snap) { … },               // new numbers: fill the tables (no WASM calls here)
//         render(index, { animate }) { … return narration; },   // one step: highlight, narrate
//         stage: (index) => …,            // optional: a name for step `index` (progress events)
//         stepAfter(snap, previous, index) { … },   // optional: the step to show after new data
//                                                   // (default: stay at `index`)
//         onStep(index) { … },            // optional: the reader moved the stepper (write state here)
//         playsOnOpen: { ready(snap), watch },   // optional: on the page, play the steps once by
//                                         // themselves when they are first on screen (below)
//         ticker,                         // optional, with live: true: the ticker (shell/ticker.js) of
//                                         // the live process whose steps the stepper walks (the
//                                         // writer's run): space plays and pauses it, and the
//                                         // stepper has no play of its own
//         setLanguage() { … }, destroy() { … },                 // optional extras
//       };
//     },
//   });
//
// A section with a frame of its own (the training run: its own heading, controls and keys, no
// stepper) says `shell: false`: setup(frame) builds and returns its element, and defineSection
// gives it the rest of the contract (listeners and texts freed and refreshed for it, visibility,
// progress events, the language, teardown):
//
//   export const trainingSection = defineSection({
//     id: 'training', shell: false,
//     quiz: [ … ],               // optional: questions about the data as it stands (no atStep)
//     setup(frame) {             // frame: { id, ctx, i18n, events, texts, quiz, progress(detail) }
//       // frame.quiz.element goes where the section wants it; frame.quiz.onNewData() when its data moves
//       return { element, quizData() { … }, setVisible(visible) { … }, setLanguage() { … }, destroy() { … } };
//     },
//   });
//
// Data flows one way: WASM → snapshot (context.js, snapshot-derived.js) → draw / render → DOM.
// Sections read frame.snap and never call the WASM API or write state while drawing. A setting
// the reader picks in a section goes to ctx.setSetting and comes back in the snapshot
// (snap.choices): a section keeps no copy of a setting. A snapshot republished for choices the
// section does not show (same numbers, other choices) is taken without redrawing.
import { h, listeners, pendingLayout } from './dom.js';
import { createStepper } from './stepper.js';
import { createMatrixView } from '../views/matrix-view.js';
import { SCENE_KEYS, stepperScene, fitScene } from './scene.js';
import { createQuiz } from './quiz.js';

/**
 * introKeys: string keys, or [key, vars] pairs whose vars() is read again whenever the texts are
 * refreshed (new numbers, a new language).
 */
export function createShell({ id, i18n, titleKey, introKeys = [] }) {
  const texts = i18n.binder();
  const title = texts.set(h('h2', { class: 'section-title' }), titleKey);
  const intro = h('div', { class: 'section-intro' }, introKeys.map((k) => (Array.isArray(k) ? texts.set(h('p'), k[0], k[1]) : texts.set(h('p'), k))));
  const controls = h('div', { class: 'section-controls' });
  // the host's actions on the section (the page's "Copy embed code", "Export this step"): empty
  // and hidden unless the host fills it (shell/section-tools.js; the widget does not)
  const tools = h('div', { class: 'section-tools', hidden: true });
  const stage = h('div', { class: 'stage', attrs: { tabindex: '0' } });
  const element = h('section', { class: 'qkv-section', attrs: { 'aria-labelledby': `${id}-title` } }, title, intro, tools, controls, stage);
  title.id = `${id}-title`;
  element.dataset.section = id;
  element.id = id;
  return {
    element, stage, controls, intro, texts, tools,
    addStepper(options) {
      const stepper = createStepper({ i18n, host: element, ...options });
      element.insertBefore(stepper.element, stage);
      stage.setAttribute('aria-describedby', `${id}-narration`);
      stepper.element.querySelector('.narration').id = `${id}-narration`;
      return stepper;
    },
  };
}

/**
 * Links to other sections in the section's texts ([[id]] in a string: shell/i18n.js) go through
 * the host, which knows where a section is: the page scrolls to it, a widget switches to it.
 */
function followSectionRefs(events, element, ctx) {
  events.on(element, 'click', (event) => {
    const link = event.target.closest?.('a[data-section-ref]');
    if (!link || !element.contains(link)) return;
    event.preventDefault();
    ctx.goTo?.(link.dataset.sectionRef);
  });
}

/** A labelled switch (checkbox) whose label text follows the language. */
export function toggle(texts, key, checked, onChange, events) {
  const input = h('input', { attrs: { type: 'checkbox', role: 'switch' }, checked });
  const label = h('label', { class: 'switch' }, input, texts.set(h('span'), key));
  events.on(input, 'change', () => onChange(input.checked));
  return { element: label, input };
}

/** Column (or row) labels 0 … n−1. */
export function indexLabels(n) {
  return Array.from({ length: n }, (_, j) => String(j));
}

/**
 * Horizontal bars for a row of weights (0…1), each labelled with its token and value. Screen
 * readers read the labels and values as text; the bars themselves are decoration.
 */
export function bars(labels, values, { fmt, cls = '' } = {}) {
  return h('div', { class: `bars ${cls}` },
    values.map((v, j) => h('div', { class: 'bar-row' },
      h('span', { class: 'bar-label', text: labels[j] }),
      h('span', { class: 'bar-track', attrs: { 'aria-hidden': 'true' } }, h('span', { class: 'bar-fill', style: `width:${Math.max(0, Math.min(1, v)) * 100}%` })),
      h('span', { class: 'bar-value num', text: fmt(v) }))));
}

/**
 * The opening play (parts.playsOnOpen, above): armed where the host asks for it and the link sets
 * no scene for the section; disarmed by the reader's first click or key in the section, by a
 * stepper that has left its first step, or by reduced motion; played once when `watch` is on
 * screen and ready(snap). Checked again whenever the data or the stepper changes. Returns off().
 */
function playOnOpen(ctx, id, element, { ready, watch = element }, stepper, getSnap, events) {
  const scene = ctx.sceneFor?.(id) ?? null;
  const reduced = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  let armed = Boolean(ctx.playsOnOpen) && !reduced && !(scene && (scene.step || scene.range || scene.autoplay))
    && typeof IntersectionObserver === 'function';
  // what became of it, for whoever checks (tests): off (not here), armed, played, reader (the reader led first)
  element.dataset.opening = armed ? 'armed' : 'off';
  if (!armed) return () => {};
  let inView = false;
  let observer = null;
  const disarm = (why) => {
    armed = false;
    element.dataset.opening = why;
    observer?.disconnect();
    offStep();
  };
  const check = () => {
    if (!armed) return;
    if (stepper.index !== stepper.range.from || stepper.playing) { disarm('reader'); return; }
    if (!inView || stepper.count < 2 || !ready(getSnap())) return;
    disarm('played');
    stepper.play();
  };
  // the stepper's count changes after the section has drawn new data, and its position when the reader moves it
  const offStep = stepper.onChange(() => queueMicrotask(check));
  for (const type of ['pointerdown', 'keydown']) events.on(element, type, () => { if (armed) disarm('reader'); });
  observer = new IntersectionObserver((entries) => {
    inView = entries.some((e) => e.isIntersecting);
    check();
  });
  observer.observe(watch);
  return () => { if (armed) disarm('off'); };
}

/**
 * defineSection({ id, titleKey, introKeys, className, source, choices, quiz, setup }) → { id, quiz, create(ctx) }.
 * choices: the keys of snapshot.choices (context.js, CHOICE_KEYS) the section draws.
 * properties: the URL properties (shell/state.js's form) this section owns: state.js reads them
 * from the registry, so a new section's settings are declared in its own file.
 * quiz: the section's questions (shell/quiz.js), asked before the steps that reveal their answers
 * while the state's `quiz` setting is on; the one quiz view sits between the stepper and the stage.
 * source (optional): source(ctx) → { get(), subscribe(fn) → off, setVisible?(visible), destroy() }
 * gives the section its data instead of the attention snapshot (the training walkthrough draws
 * the shared training run): frame.snap is source.get(), redrawn whenever the source publishes,
 * and setVisible tells the source when the section is on screen (so it computes only then).
 * runStep (with a source whose data is a training run's, the walkthrough's): the scene's `step`
 * is the run's training step, not the stepper's (which then opens where it opens by itself); a
 * function (snap) → step says which step a link can reproduce (0: none).
 * linkScene (default true): false for a section whose steps a link cannot bring back (fine-tuning:
 * its stepper walks the samples of a run that a link makes again from step 0); its embed code
 * then carries no step and no range.
 * settings (optional): the state properties the section uses; its embed code carries only those
 * (default: every setting in effect). parts.positionKey: the string of the stepper's position
 * (default 'stepper.position', "step i of n"). parts.embedNote(snap) → text|null: a line the page shows
 * beside the copied code (what the code cannot carry).
 * Data with status 'waiting' or 'replaying' is still on its way: until other data arrives the
 * section is marked pending (dom.js pendingLayout), so its growth does not move the page.
 * parts.playsOnOpen { ready(snap) → bool, watch: element }: the section plays its steps once, from
 * its first, by itself (the generated poem writes itself): where the host asks for it
 * (ctx.playsOnOpen: the page, not a widget nor an iframe, whose authors choose with `autoplay`),
 * the first time `watch` is on screen with ready(snap) true. Not when the reader prefers reduced
 * motion, when the link sets a scene for the section (a step or a range), nor once the reader has
 * touched the section (a click, a key) or its stepper has left the first step: then the reader leads.
 * Once started it is an ordinary play: the stepper's own buttons pause it.
 * create(ctx) returns the section object every host (page, widget, iframe) uses:
 *   { id, element, stepper, update(snapshot), setLanguage(lang), destroy(), onProgress(fn) → off }
 * onProgress(fn) calls fn({ section, kind: 'step', step, count, stage? }) whenever the stepper
 * moves or changes length, whoever moved it.
 */
export function defineSection({ id, titleKey, introKeys = [], className = '', source = null, live = false, runStep = false, linkScene = true, settings = null, choices = [], properties = [], quiz = [], shell: shared = true, setup }) {
  function create(ctx) {
    if (!shared) return createOwnFrame(ctx);
    const { i18n } = ctx;
    const events = listeners();
    const data = source ? source(ctx) : null;
    let snap = data ? data.get() : ctx.getSnapshot();
    // intro texts with numbers read the current snapshot: [key, (snap, i18n) => vars]
    const keys = introKeys.map((k) => (Array.isArray(k) ? [k[0], () => k[1](snap, i18n)] : k));
    const shell = createShell({ id, i18n, titleKey, introKeys: keys });
    if (className) shell.element.classList.add(...className.split(' '));
    const views = [];
    const progress = new Set();
    let questions = null;  // the quiz, made once the stepper exists
    const frame = {
      id, ctx, i18n, events,
      element: shell.element, stage: shell.stage, controls: shell.controls, intro: shell.intro, texts: shell.texts,
      get snap() { return snap; },
      /** A matrix table owned by this section: refreshed on a language change, destroyed with it. */
      view(options) {
        const view = createMatrixView({ i18n, ...options });
        views.push(view);
        return view;
      },
      get stepper() { return stepper; },
      /**
       * Whether the quiz's question `questionId` is still open before the step that reveals it:
       * the section then hides what would answer it (render runs again when this changes).
       */
      quizHides: (questionId) => Boolean(questions?.hides(questionId)),
    };
    const parts = setup(frame);
    followSectionRefs(events, shell.element, ctx);
    parts.draw?.(snap);
    // the scene (scene.js) the host asks this section to show: its step, range and loop. With a
    // training run as its source, `step` is the run's (the training store reads it), not the stepper's.
    // A step or range past the section's last step falls back, and the host says so (scene.js).
    const sceneNow = () => {
      const asked = ctx.sceneFor?.(id) ?? null;
      if (!asked) return stepperScene(null);
      const { scene: fitted, refused } = fitScene(asked, parts.count(snap), { runStep: Boolean(runStep) });
      ctx.sceneChecked?.(id, refused);
      return stepperScene(fitted, { runStep: Boolean(runStep) });
    };
    const scene = sceneNow();
    const stepper = shell.addStepper({
      count: parts.count(snap),
      render: (index, options) => parts.render(index, options),
      initial: scene.initial ?? (typeof parts.initial === 'function' ? parts.initial(snap) : parts.initial ?? 0),
      range: scene.range, loop: scene.loop, live: parts.ticker ?? null, positionKey: parts.positionKey,
    });
    // predict-then-reveal: the stepper waits before a step whose question is open (quiz.js)
    questions = createQuiz({ id, i18n, events, questions: quiz, stepper, getSnap: () => snap, enabled: Boolean(ctx.state.get('quiz')) });
    shell.element.insertBefore(questions.element, shell.stage);
    stepper.onChange(({ index, count }) => {
      const detail = { section: id, kind: 'step', step: index, count };
      if (parts.stage) detail.stage = parts.stage(index);
      for (const fn of [...progress]) fn(detail);
    });
    // onStep is for what the reader did: a move the stepper makes because the data changed
    // (update below) is not the reader's, and must not write state
    let updating = false;
    if (parts.onStep) stepper.onChange(({ index }) => { if (!updating) parts.onStep(index); });
    // a section that opens on a later step (a scene's `step`, learnable at its link's factor) opens before its first question
    function holdForQuestions() {
      updating = true;
      try { stepper.go(questions.initialFor(stepper.index), false); } finally { updating = false; }
      questions.refresh();
    }
    holdForQuestions();
    const offQuiz = ctx.state.onChange((name, value) => {
      if (name !== 'quiz') return;
      questions.setEnabled(value);
      if (value) holdForQuestions();
    });
    function apply(next) {
      const previous = snap;
      snap = next;
      updating = true;
      try {
        shell.texts.refresh();
        parts.draw?.(snap);
        stepper.setCount(parts.count(snap), parts.stepAfter ? parts.stepAfter(snap, previous, stepper.index) : stepper.index);
      } finally {
        updating = false;
      }
      questions.onNewData();
    }
    // a widget's scene attributes may change after it is built: they reach the stepper through the state
    let offScene = () => {};
    if (ctx.sceneLive && ctx.sceneFor?.(id)) {
      offScene = ctx.state.onChange((name) => {
        if (!SCENE_KEYS.includes(name)) return;
        updating = true;
        try { stepper.setScene(sceneNow()); } finally { updating = false; }
      });
    }
    // the host's tools for this section (the page's embed code and exports), when it has any
    const offTools = ctx.sectionTools ? ctx.sectionTools({ id, element: shell.element, stage: shell.stage, toolbar: shell.tools, stepper, i18n, events, runStep: runStep ? () => (typeof runStep === 'function' ? runStep(snap) : typeof snap?.step === 'number' ? snap.step : ctx.state.get('step')) : null, scene: () => ctx.sceneFor?.(id) ?? null,
      settings, linkScene, embedNote: parts.embedNote ? () => parts.embedNote(snap) : null }) : null;
    const offOpening = parts.playsOnOpen ? playOnOpen(ctx, id, shell.element, parts.playsOnOpen, stepper, () => snap, events) : () => {};
    let offData = () => {};
    let observer = null;
    if (data) {
      // data still on its way ({ status: 'waiting' | 'replaying' }): the section will grow
      const pending = (d) => d?.status === 'waiting' || d?.status === 'replaying';
      const settle = pending(snap) ? pendingLayout(shell.element) : () => {};
      offData = data.subscribe((next) => {
        apply(next);
        if (!pending(next)) settle();
      });
      if (typeof IntersectionObserver === 'function') {
        observer = new IntersectionObserver((entries) => data.setVisible?.(entries.some((e) => e.isIntersecting)));
        observer.observe(shell.element);
      } else {
        data.setVisible?.(true);
      }
    }
    return {
      id,
      element: shell.element,
      stepper,
      /** A new attention snapshot (sections with their own source ignore it). */
      update(next) {
        if (data || next === snap) return;
        // the same numbers, republished for choices this section does not draw: nothing to redraw
        if (next.derived === snap.derived && choices.every((key) => next.choices?.[key] === snap.choices?.[key])) {
          snap = next;
          return;
        }
        apply(next);
      },
      setLanguage(lang) {
        shell.texts.refresh();
        for (const view of views) view.refresh();
        parts.setLanguage?.(lang);
        stepper.refresh();
        questions.refresh();
      },
      destroy() {
        progress.clear();
        offScene();
        offOpening();
        offTools?.();
        offQuiz();
        questions.destroy();
        observer?.disconnect();
        offData();
        data?.destroy();
        stepper.destroy();
        for (const view of views) view.destroy();
        events.off();
        parts.destroy?.();
      },
      onProgress(fn) {
        progress.add(fn);
        return () => progress.delete(fn);
      },
    };
  }

  /** A section that draws its own frame (shell: false): see the header. */
  function createOwnFrame(ctx) {
    const { i18n } = ctx;
    const events = listeners();
    const texts = i18n.binder();
    const progress = new Set();
    // its questions have no step to wait before: they ask about the section's data as it stands
    // (parts.quizData()); the section places frame.quiz.element and calls frame.quiz.onNewData()
    let parts = null;
    const questions = createQuiz({ id, i18n, events, questions: quiz, stepper: null,
      getSnap: () => parts?.quizData?.() ?? { status: 'waiting' }, enabled: Boolean(ctx.state.get('quiz')) });
    const offQuiz = ctx.state.onChange((name, value) => { if (name === 'quiz') questions.setEnabled(value); });
    const frame = {
      id, ctx, i18n, events, texts,
      quiz: questions,
      /** Reports progress to every onProgress watcher: detail is { section, kind, … }. */
      progress(detail) { for (const fn of [...progress]) fn(detail); },
    };
    parts = setup(frame);
    questions.refresh();
    const { element } = parts;
    followSectionRefs(events, element, ctx);
    // the host's tools (the page's embed code and export) after the heading and its intro; no
    // stepper here, so no GIF: the step is the training run's, the picture its title, its stage
    // and what draws its charts
    let offTools = null;
    if (ctx.sectionTools) {
      const toolbar = h('div', { class: 'section-tools', hidden: true });
      const title = element.querySelector('.section-title');
      (title?.nextElementSibling || title || element).after(toolbar);
      offTools = ctx.sectionTools({
        id, element, stage: element, toolbar, stepper: null, i18n, events, scene: () => null,
        runStep: () => ctx.training.run?.step ?? ctx.state.get('step'),
        pictureParts: () => [title, ...[...element.children].filter((c) => c.matches('.stage') || c.querySelector('canvas'))],
      });
    }
    let observer = null;
    if (parts.setVisible) {
      if (typeof IntersectionObserver === 'function') {
        observer = new IntersectionObserver((entries) => parts.setVisible(entries.some((e) => e.isIntersecting)));
        observer.observe(element);
      } else {
        queueMicrotask(() => parts.setVisible(true));
      }
    }
    return {
      id,
      element,
      stepper: null,
      update() {},   // its data is its own (the training run), not the attention snapshot
      setLanguage(lang) {
        texts.refresh();
        parts.setLanguage?.(lang);
        questions.refresh();
      },
      destroy() {
        progress.clear();
        offTools?.();
        offQuiz();
        questions.destroy();
        observer?.disconnect();
        events.off();
        parts.destroy?.();
      },
      onProgress(fn) {
        progress.add(fn);
        return () => progress.delete(fn);
      },
    };
  }

  // what the registry reads (sections/index.js): the URL properties this section owns, the
  // snapshot choices it draws, and its kind: 'attention' (draws the attention snapshot), 'data'
  // (a source of its own: scaling, the walkthrough of a step, the block, generation) or 'live'
  // (a process the reader plays on the shell's ticker: the training run, the writer)
  const kind = !shared || live ? 'live' : source ? 'data' : 'attention';
  return Object.freeze({ id, titleKey, kind, properties: Object.freeze([...properties]), choices: Object.freeze([...choices]), quiz: Object.freeze([...quiz]), create });
}

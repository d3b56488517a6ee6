// shell/quiz.js: predict-then-reveal. A section declares its questions as data (defineSection's
// `quiz`); with the `quiz` setting on (URL quiz=1, the widget's quiz attribute, the page's switch),
// the stepper holds before each step that reveals an answer until the reader has answered or
// skipped, and this one view asks, checks against the snapshot's numbers and explains.
//
//   quiz: [{
//     id: 'top',                               // unique within the section
//     atStep: (snap) => 3,                     // the step that reveals the answer (≥ 1), or a number
//     when: (snap) => true,                    // optional: whether these data can answer it
//     prompt: (snap, t) => t('quiz.walk.prompt', { w: snap.words[0] }),
//     choices: (snap, t) => [{ value, label }],   // a radio group, or
//     numeric: { tolerance: 0.01 },            // a labelled number input, right within ± tolerance
//     answer: (snap) => value,                 // from the snapshot (WASM numbers), never typed in
//     explain: (snap, t) => '…',               // why, with the numbers
//   }]
//
// Every function reads only the snapshot it is given (settings such as `heads` included, in
// snap.choices; t translates in the section's language); nothing here calls the WASM API or
// writes state.
import { h, clear, fmt } from './dom.js';
import { addStrings } from './i18n.js';
import { QUIZ_STRINGS } from './quiz.strings.js';

addStrings(QUIZ_STRINGS);

/** The step a question waits before (its atStep), for this snapshot. */
export const stepOf = (question, snap) => (typeof question.atStep === 'function' ? question.atStep(snap) : question.atStep);

/** Whether this snapshot can answer the question. */
export const askable = (question, snap) => (question.when ? Boolean(question.when(snap)) : true);

/** A typed number: "0.5", "0,5" (a decimal comma), or a number; NaN for anything else. */
const readNumber = (given) => (typeof given === 'number' ? given : String(given ?? '').trim() === '' ? NaN : Number(String(given).trim().replace(',', '.')));

/**
 * Checks a reader's answer: { correct, expected }. Choices compare values; a numeric answer is
 * right within ± tolerance of the snapshot's number. Not a number (empty, text) is wrong.
 */
export function checkAnswer(question, snap, given) {
  const expected = question.answer(snap);
  if (question.numeric) {
    const x = readNumber(given);
    const correct = String(given ?? '').trim() !== '' && Number.isFinite(x) && Math.abs(x - expected) <= question.numeric.tolerance;
    return { correct, expected };
  }
  return { correct: String(given) === String(expected), expected };
}

/** The label of the expected answer (a choice's label, or the number at the tolerance's decimals). */
function expectedLabel(question, snap, t, expected) {
  if (question.numeric) return fmt(expected, question.numeric.digits ?? 2);
  const choice = question.choices(snap, t).find((c) => String(c.value) === String(expected));
  return choice ? choice.label : String(expected);
}

let uid = 0;

/**
 * createQuiz({ id, i18n, events, questions, stepper, getSnap, enabled }) → { element,
 * refresh(), hides(questionId), setEnabled(on), onNewData(), initialFor(step), destroy() }. Installs the stepper's
 * gate; the view sits in the section's preamble, above the stage. stepper may be null (the
 * training run has none): its first askable question is shown, with nothing held.
 */
export function createQuiz({ id, i18n, events, questions, stepper, getSnap, enabled = false }) {
  const base = `${id}-quiz-${++uid}`;
  const t = (key, vars) => i18n.t(key, vars);
  let on = enabled;
  /** question id → { given, correct, expected, skipped } */
  const answers = new Map();

  const title = h('h3', { class: 'quiz-title', attrs: { id: `${base}-title` } });
  const body = h('form', { class: 'quiz-form', attrs: { novalidate: '' } });
  const feedback = h('p', { class: 'quiz-feedback', attrs: { 'aria-live': 'polite', 'aria-atomic': 'true', 'data-role': 'quiz-feedback' } });
  const reveal = h('button', { class: 'quiz-reveal', attrs: { type: 'button', 'data-role': 'quiz-reveal' } });
  const element = h('div', { class: 'quiz', attrs: { role: 'region', 'aria-labelledby': `${base}-title`, 'data-role': 'quiz' }, hidden: true },
    title, body, feedback, reveal);
  let shown = null;   // the question on screen
  let askedIn = null; // and the language it was asked in

  const available = (snap) => questions.filter((q) => askable(q, snap));
  const open = (q) => !answers.has(q.id);

  // the stepper may not pass a step whose question is still open (a section without a stepper,
  // the training run, asks about the run as it stands: its questions have no atStep)
  stepper?.setGate((from, to) => {
    if (!on) return to;
    const snap = getSnap();
    let limit = to;
    for (const q of available(snap)) {
      const at = stepOf(q, snap);
      if (open(q) && at > from && at <= limit) limit = at - 1;
    }
    // a move held here (→, ▶|, play) is told, where the answer's feedback will be
    if (limit < to && limit === from) {
      feedback.dataset.result = 'held';
      feedback.textContent = t('quiz.held');
    }
    return limit;
  });

  /** The question for the stepper's position: the one waiting at the next step, else the last answered. */
  function current(snap) {
    const list = available(snap);
    if (!stepper) return list[0] ?? null;
    const index = stepper.index;
    const waiting = list.find((q) => stepOf(q, snap) === index + 1 && open(q));
    if (waiting) return waiting;
    const done = list.filter((q) => !open(q) && stepOf(q, snap) - 1 <= index).sort((a, b) => stepOf(b, snap) - stepOf(a, snap));
    return done[0] ?? null;
  }

  function ask(q, snap) {
    clear(body);
    const name = `${base}-${q.id}`;
    const answered = answers.get(q.id);
    const prompt = q.prompt(snap, t);
    title.textContent = t('quiz.title');
    let field;
    if (q.numeric) {
      const input = h('input', { class: 'quiz-number', attrs: { type: 'text', inputmode: 'decimal', id: `${name}-input`, autocomplete: 'off', 'data-role': 'quiz-input' } });
      if (answered && !answered.skipped) input.value = String(answered.given);
      field = h('div', { class: 'quiz-field' },
        h('label', { class: 'quiz-prompt', attrs: { for: `${name}-input` }, text: prompt }),
        h('span', { class: 'quiz-hint', attrs: { id: `${name}-hint` }, text: q.numeric.tolerance === 0 ? t('quiz.numberHintExact') : t('quiz.numberHint', { tol: fmt(q.numeric.tolerance, q.numeric.digits ?? 2) }) }),
        input);
      input.setAttribute('aria-describedby', `${name}-hint`);
    } else {
      const choices = q.choices(snap, t);
      field = h('fieldset', { class: 'quiz-field' }, h('legend', { class: 'quiz-prompt', text: prompt }),
        h('div', { class: 'quiz-choices' }, choices.map((c, k) => h('label', { class: 'quiz-choice' },
          h('input', { attrs: { type: 'radio', name, value: String(c.value), id: `${name}-${k}`, 'data-role': 'quiz-choice' },
            checked: Boolean(answered && !answered.skipped && String(answered.given) === String(c.value)) }),
          h('span', { text: c.label })))));
    }
    const check = h('button', { class: 'quiz-check', attrs: { type: 'submit', 'data-role': 'quiz-check' }, text: t('quiz.check') });
    const skip = h('button', { class: 'quiz-skip', attrs: { type: 'button', 'data-role': 'quiz-skip' }, text: t('quiz.skip') });
    body.append(field, h('div', { class: 'quiz-actions' }, check, skip));
    body.onsubmit = (event) => {
      event.preventDefault();
      const given = q.numeric ? body.querySelector('input').value : body.querySelector('input:checked')?.value;
      if (given === undefined || String(given).trim() === '') {
        feedback.dataset.result = 'empty';
        feedback.textContent = t(q.numeric ? 'quiz.emptyNumber' : 'quiz.emptyChoice');
        return;
      }
      // a typing slip ("abc", "1..2") is not an answer: say so, and keep the question open
      if (q.numeric && !Number.isFinite(readNumber(given))) {
        feedback.dataset.result = 'empty';
        feedback.textContent = t('quiz.notNumber', { given: String(given).trim() });
        body.querySelector('input').setAttribute('aria-invalid', 'true');
        return;
      }
      if (q.numeric) body.querySelector('input').removeAttribute('aria-invalid');
      const { correct, expected } = checkAnswer(q, getSnap(), given);
      answers.set(q.id, { given, correct, expected, skipped: false });
      refresh();
      focusAfter();
    };
    skip.onclick = () => {
      answers.set(q.id, { given: null, correct: false, expected: q.answer(getSnap()), skipped: true });
      refresh();
      focusAfter();
    };
  }

  // the form's buttons are gone: focus goes to "show this step", or to the feedback itself
  function focusAfter() {
    if (!reveal.hidden) { reveal.focus(); return; }
    feedback.tabIndex = -1;
    feedback.focus();
  }

  function tell(q, snap) {
    const a = answers.get(q.id);
    if (!a) {
      feedback.textContent = '';
      delete feedback.dataset.result;
      reveal.hidden = true;
      return;
    }
    const answer = expectedLabel(q, snap, t, a.expected);
    const key = a.skipped ? 'quiz.skipped' : a.correct ? 'quiz.right' : 'quiz.wrong';
    feedback.dataset.result = a.skipped ? 'skipped' : a.correct ? 'right' : 'wrong';
    feedback.textContent = `${t(key, { answer })} ${q.explain(snap, t)}`;
    reveal.hidden = !stepper || stepper.index >= stepOf(q, snap);
    reveal.textContent = t('quiz.reveal');
    for (const input of body.querySelectorAll('input')) input.readOnly = true;
    for (const input of body.querySelectorAll('input[type=radio]')) input.disabled = !input.checked;
    body.querySelector('[data-role=quiz-check]').hidden = true;
    body.querySelector('[data-role=quiz-skip]').hidden = true;
  }

  /** Whether question qid is asked and still open before the step that reveals it: what answers it must not show yet. */
  function hides(qid) {
    if (!on || !stepper) return false;
    const snap = getSnap();
    const q = available(snap).find((x) => x.id === qid);
    return Boolean(q && open(q) && stepOf(q, snap) > stepper.index);
  }
  // the questions hiding their answers now; when that changes (an answer, the switch), the step is
  // drawn again so that the section shows or hides what it marked with frame.quizHides(id)
  let hiding = '';
  function hidingNow() {
    const snap = getSnap();
    return on && stepper ? available(snap).filter((q) => hides(q.id)).map((q) => q.id).join(' ') : '';
  }

  function refresh() {
    const now = hidingNow();
    if (now !== hiding) {
      hiding = now;
      stepper?.refresh();
    }
    const snap = getSnap();
    const q = on ? current(snap) : null;
    element.hidden = !q;
    element.dataset.question = q ? q.id : '';
    if (!q) { shown = null; return; }
    // keep the reader's focus and half-typed answer while the same question stays on screen
    const root = element.getRootNode();
    const focused = element.contains(root.activeElement ?? null);
    if (shown !== q || !focused || askedIn !== i18n.lang) ask(q, snap);
    shown = q;
    askedIn = i18n.lang;
    tell(q, snap);
  }

  events.on(reveal, 'click', () => {
    const q = shown;
    if (q && stepper) stepper.go(stepOf(q, getSnap()));
  });
  const offStep = stepper ? stepper.onChange(() => refresh()) : () => {};

  return {
    element,
    refresh,
    hides,
    /** Whether questions are asked (the `quiz` setting). */
    setEnabled(next) {
      on = Boolean(next);
      refresh();
    },
    /**
     * New numbers: an answer given for other numbers is asked again (its expected value changed);
     * the others keep their answer, explained with the new numbers.
     */
    onNewData() {
      const snap = getSnap();
      for (const q of questions) {
        const a = answers.get(q.id);
        if (!a) continue;
        if (!askable(q, snap) || String(q.answer(snap)) !== String(a.expected)) answers.delete(q.id);
      }
      refresh();
    },
    /** The step a stepper should open at: `initial`, held before the first open question. */
    initialFor(initial) {
      if (!on || !stepper) return initial;
      const snap = getSnap();
      const ats = available(snap).filter(open).map((q) => stepOf(q, snap)).filter((at) => at <= initial);
      return ats.length ? Math.min(...ats) - 1 : initial;
    },
    destroy() {
      offStep();
      stepper?.setGate(null);
    },
  };
}

// ---- helpers the sections' questions share ----

/** Yes / no choices; the answer is 'yes' or 'no'. */
export const yesNo = (t) => [{ value: 'yes', label: t('quiz.yes') }, { value: 'no', label: t('quiz.no') }];

/** The sentence's words as choices by position (a repeated word is told apart by its position). */
export function wordChoices(words) {
  return words.map((w, j) => ({ value: String(j), label: words.indexOf(w) !== words.lastIndexOf(w) ? `${w} (${j + 1})` : w }));
}

/** Index of a row's largest value (the first, on a tie). */
export function argmax(row) {
  let top = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[top]) top = j;
  return top;
}

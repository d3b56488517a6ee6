// pretrained/comparison.js: the 预训练 section's table, read from the measured data (no number
// typed in here): the pretrained poet (web/data/pretrained-report.json), the writer's default GPT
// (web/data/writer-reference.json), the counting baselines and the real poems
// (web/data/pretrained-baselines.json), all sampled at the same temperature from the end-of-text
// token alone. No DOM.
//
// Each row: { id, loss (五绝 validation, nats per character) | null, wellFormed, lines24 (lines 2
// and 4 rhyme, among the well-formed 五绝), copied (share of lines found in the model's training
// poems) }, where each figure is { value } or { range: [lo, hi] } or null (not measured / does not
// apply), and `of` says what the samples were (counts for the text).

const value = (v) => (v === null || v === undefined ? null : { value: v });
const range = (r) => (r ? (r[0] === r[1] ? { value: r[0] } : { range: [r[0], r[1]] }) : null);

/** The table's rows, in the order the section shows them. */
export function comparisonRows({ report, baselines, writer }) {
  const real = baselines.real.wujue;
  const positional = baselines.baselines.positional;
  const trigram = baselines.baselines.trigram;
  const oneForm = baselines.perForm.positional.wujue;
  const s = report.sampling;
  return [
    { id: 'real', loss: null, wellFormed: null, lines24: value(real.lines24), copied: value(real.novelty.lineShare),
      of: { poems: real.poems } },
    { id: 'pretrained', loss: value(report.validation.shipped.wujue.loss), wellFormed: value(s.wellFormed),
      lines24: value(s.rhyme.wujue.lines24), copied: value(s.novelty.lineShare),
      of: { samples: s.novelty.poems, wujue: s.byForm.wujue, temperature: s.temperature } },
    { id: 'writer', loss: range(writer.ranges.valLoss), wellFormed: range(writer.ranges.wellFormed),
      lines24: range(writer.ranges.lines24), copied: range(writer.ranges.lineShare), vocab: writer.runs[0].vocab,
      of: { samples: writer.sampling.samples, runs: writer.runs.length, valPoems: writer.runs[0].val.poems, temperature: writer.sampling.temperature } },
    { id: 'positionalOne', loss: value(oneForm.val.loss), wellFormed: range(oneForm.samples.ranges.wellFormed),
      lines24: range(oneForm.samples.ranges.lines24), copied: range(oneForm.samples.ranges.lineShare),
      of: { samples: oneForm.samples.count, runs: oneForm.samples.seeds.length, temperature: oneForm.samples.temperature } },
    { id: 'positional', loss: value(positional.val.wujue.loss), wellFormed: range(positional.samples.ranges.wellFormed),
      lines24: null, copied: range(positional.samples.ranges.lineShare),
      of: { samples: positional.samples.count, runs: positional.samples.seeds.length, temperature: positional.samples.temperature } },
    { id: 'trigram', loss: value(trigram.val.wujue.loss), wellFormed: range(trigram.samples.ranges.wellFormed),
      lines24: null, copied: range(trigram.samples.ranges.lineShare),
      of: { samples: trigram.samples.count, runs: trigram.samples.seeds.length, temperature: trigram.samples.temperature } },
    { id: 'chance', loss: null, wellFormed: null, lines24: value(real.chance), copied: null, of: {} },
  ];
}

/** The highest figure a row reaches (a range's top), or null. */
export const top = (figure) => (figure ? (figure.range ? figure.range[1] : figure.value) : null);

/**
 * What the table shows, as numbers for the narration: the form counting reaches when it is
 * trained on one form, its rhyme against chance, and the pretrained poet's.
 */
export function comparisonFindings(rows) {
  const row = (id) => rows.find((r) => r.id === id);
  return {
    countingForm: top(row('positionalOne').wellFormed),
    countingRhyme: top(row('positionalOne').lines24),
    chance: top(row('chance').lines24),
    poetForm: top(row('pretrained').wellFormed),
    poetRhyme: top(row('pretrained').lines24),
    realRhyme: top(row('real').lines24),
    writerForm: top(row('writer').wellFormed),
    writerRhyme: top(row('writer').lines24),
  };
}

/** The pretrained model's size, text and training, from its report. */
export function trainingFacts(report) {
  const { model, training } = report;
  return {
    layers: model.layers, heads: model.heads, dim: model.dim, context: model.context, vocab: model.vocab,
    parameters: model.parameters, steps: training.config.steps, batch: training.config.batch,
    poems: training.text.poems, characters: training.text.characters,
    cpuMinutes: Math.round(training.cpuSeconds / 60), wallMinutes: Math.round(training.wallSeconds / 60),
    hardware: training.hardware, bytes: model.bytes,
  };
}

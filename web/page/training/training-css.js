// training/training-css.js: the two training sections' sheet (trainstep, training),
// scoped under .qkv like style.css. It travels with the sections (their on-demand chunk, the
// widget's training add-on), not in the script every post loads: the page adds it to its head, a
// widget to its shadow root, when a training section is first built (definition.css).
export const TRAINING_CSS = `
/* training.css: the styles of the two training sections (trainstep: one step walked through;
 * training: the run). Colours derive from the
 * inherited text colour (currentColor), so light and dark schemes both work. Linked by the page,
 * adopted by the widget's shadow root: no inline <style>, so a strict CSP (style-src 'self') holds. */
.qkv-training { --tr-line: color-mix(in srgb, currentColor 18%, transparent);
  --tr-soft: color-mix(in srgb, currentColor 6%, transparent); --tr-muted: color-mix(in srgb, currentColor 70%, transparent); }
.qkv-training .tr-intro p { max-width: 46em; line-height: 1.65; }
.qkv-training .tr-controls { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: center; margin: 1rem 0 0.25rem; }
.qkv-training .tr-controls button, .qkv-training .tr-card button { min-height: 2.25rem; padding: 0.3rem 0.8rem; border-radius: 6px;
  border: 1px solid var(--tr-line); background: var(--tr-soft); color: inherit; font: inherit; cursor: pointer; }
.qkv-training .tr-controls button[data-role="play"] { min-width: 6.5em; font-weight: 600; }
.qkv-training button:disabled { opacity: 0.45; cursor: default; }
.qkv-training button:focus-visible, .qkv-training select:focus-visible, .qkv-training input:focus-visible,
.qkv-training .tr-stage:focus-visible, .qkv-training canvas:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.qkv-training .tr-controls label { display: inline-flex; gap: 0.4rem; align-items: center; }
.qkv-training select, .qkv-training input { font: inherit; color: inherit; background: var(--tr-soft);
  border: 1px solid var(--tr-line); border-radius: 6px; padding: 0.25rem 0.4rem; min-height: 2.25rem; box-sizing: border-box; }
.qkv-training input[data-role="seed"] { width: 8.5em; }
.qkv-training .tr-stage { border-radius: 6px; padding: 0 0.25rem; }
.qkv-training .tr-keys { color: var(--tr-muted); font-size: 0.9em; margin: 0.25rem 0; }
.qkv-training .tr-status { display: flex; flex-wrap: wrap; gap: 0.25rem 1.25rem; font-variant-numeric: tabular-nums;
  font-weight: 600; margin: 0.5rem 0; }
.qkv-training .tr-narration { min-height: 1.5em; color: var(--tr-muted); margin: 0.25rem 0 0.75rem; }
.qkv-training .tr-error { border: 2px solid #d1242f; border-radius: 8px; padding: 0.6rem 0.8rem; margin: 0.5rem 0;
  background: color-mix(in srgb, #d1242f 12%, transparent); }
.qkv-training .tr-grid { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; align-items: start; }
@media (min-width: 860px) { .qkv-training .tr-grid { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
.qkv-training .tr-stack { display: grid; gap: 1rem; min-width: 0; }
.qkv-training .tr-card { border: 1px solid var(--tr-line); border-radius: 10px; padding: 0.75rem; min-width: 0;
  contain: layout paint style; }
/* what changes every frame is contained, so a training frame re-lays out a card, not the page */
.qkv-training .tr-stage { contain: layout paint style; }
.qkv-training .tr-card h3 { font-size: 1rem; margin: 0 0 0.5rem; }
.qkv-training .tr-card p { margin: 0.25rem 0 0.5rem; font-size: 0.92em; }
.qkv-training .tr-note { color: var(--tr-muted); }
.qkv-training .tr-wide { grid-column: 1 / -1; }
.qkv-training .tr-chart { position: relative; height: 220px; }
.qkv-training .tr-chart.tr-square { height: auto; aspect-ratio: 1 / 1; max-height: 520px; }
.qkv-training .tr-batch ol { margin: 0.25rem 0; padding-left: 1.6em; }
.qkv-training .tr-batch li { margin: 0.1rem 0; }
.qkv-training .tr-updated { font-size: 0.92em; color: var(--tr-muted); overflow-wrap: anywhere; }
.qkv-training .tr-num { font-variant-numeric: tabular-nums; }
.qkv .heatmap { display: grid; grid-template-columns: 4.5em minmax(0, 1fr);
  grid-template-rows: repeat(var(--heat-rows, 1), 13px); max-width: 520px; }
.qkv .heat-canvas { grid-column: 2; grid-row: 1 / -1; width: 100%; height: 100%; image-rendering: pixelated; }
.qkv .heat-rows { display: contents; }
.qkv .heat-row { grid-column: 1 / -1; display: flex; align-items: center; font-size: 1em; line-height: 13px;
  border-radius: 2px; }
.qkv .heat-word { width: 4.5em; padding-right: 0.4em; text-align: right; white-space: nowrap; overflow: hidden;
  box-sizing: border-box; }
.qkv .heat-row[data-flashed] .heat-word { font-weight: 700; }
.qkv .heat-row[data-flashed] { box-shadow: inset 3px 0 0 #f0a500; }
@media (prefers-reduced-motion: reduce) {
  .qkv .heat-row[data-flashed] { box-shadow: inset 0 0 0 1px #f0a500, inset 3px 0 0 #f0a500; }
}
.qkv .heat-legend { display: flex; align-items: center; gap: 0.5rem; margin-top: 0.5rem; font-size: 0.85em; }
.qkv .heat-legend-bar { flex: 0 1 10em; height: 0.7em; border-radius: 3px; border: 1px solid var(--tr-line); }
.qkv-training form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.qkv-training form label { display: inline-flex; gap: 0.35rem; align-items: center; }
.qkv-training form input[type="text"] { width: 6.5em; }
.qkv-training form[data-role="analogy-form"] input[type="text"] { width: 5em; }
.qkv-training .tr-results { list-style: none; padding: 0; margin: 0.5rem 0 0; font-variant-numeric: tabular-nums; }
.qkv-training .tr-results li { display: flex; justify-content: space-between; max-width: 14em; padding: 0.1rem 0;
  border-bottom: 1px dashed var(--tr-line); }
.qkv-training .tr-inline-error { color: #d1242f; font-size: 0.92em; margin: 0.4rem 0 0; overflow-wrap: anywhere; }
@media (prefers-color-scheme: dark) { .qkv-training .tr-inline-error { color: #ff7b72; } }
.qkv-training .tr-group-legend, .qkv-training .tr-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem;
  padding: 0; margin: 0.5rem 0; font-size: 0.9em; }
.qkv-training .tr-legend { margin: 0 0 0.35rem; }
.qkv-training .tr-swatch { display: inline-block; width: 0.75em; height: 0.75em; border-radius: 50%; margin-right: 0.35em; vertical-align: -0.05em; }
/* a line chart's swatch is a short stroke like its line (colour, width and dash set by views/charts/theme.js) */
.qkv-training .tr-line-swatch { display: inline-block; width: 1.6em; height: 0; margin-right: 0.4em; vertical-align: 0.3em; }
/* the hover readout over a chart (placed by views/charts/hover-readout.js beside the point it names; colours from the
 * chart's theme); it never takes the pointer, so the canvas keeps receiving pointer moves */
.qkv-training .tr-readout { position: absolute; left: 0; top: 0; z-index: 1; pointer-events: none; max-width: 100%;
  box-sizing: border-box; overflow-wrap: anywhere; padding: 0.2rem 0.45rem; border: 1px solid var(--tr-line);
  border-radius: 5px; font-size: 0.85em; line-height: 1.4; font-variant-numeric: tabular-nums;
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.18); }
.qkv-training .tr-readout[hidden] { display: none; }
.qkv-training .tr-readout-swatch { display: inline-block; width: 0.6em; height: 0.6em; border-radius: 50%; margin-right: 0.35em; }
.qkv-training .tr-exports { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.qkv-training .tr-op { font-weight: 700; }

/* the heat map's word column: wider on the English page, where words carry their gloss */
.qkv .heatmap { grid-template-columns: var(--heat-word, 4.5em) minmax(0, 1fr); font-size: 11px; }  /* em = the labels' em */
.qkv-trainstep .heatmap { font-size: 10px; }
.qkv .heat-word { width: var(--heat-word, 4.5em); text-overflow: ellipsis; }
/* --heat-word itself is set by the view from its longest label (embedding-heatmap.js labelColumnEm) */
.qkv .heat-row[data-moment] { box-shadow: inset 3px 0 0 color-mix(in srgb, #f0a500 45%, transparent); }
.qkv .heat-row[data-moment] .heat-word { font-weight: 400; font-style: italic; }

/* the run's settings (TensorFlow Playground style), notices, the corpus, the claims, the seeds */
.qkv-training .tr-settings { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; margin: 0.75rem 0 0.25rem;
  padding: 0.5rem 0.75rem; border: 1px solid var(--tr-line); border-radius: 8px; background: var(--tr-soft); }
.qkv-training .tr-settings label { display: inline-flex; gap: 0.4rem; align-items: center; }
.qkv-training input[data-role="seed"] { width: 8.5em; }
.qkv-training .tr-seed-own, .qkv-training .tr-adam-note { margin: 0.25rem 0; max-width: 52em; font-size: 0.92em; }
.qkv-training .tr-adam-note { border-left: 3px solid #f0a500; padding-left: 0.6rem; }
.qkv-training .tr-notice { margin: 0.5rem 0; }
.qkv-training .tr-car-row { display: flex; flex-wrap: wrap; gap: 0.25rem 0.75rem; align-items: baseline; margin: 0.75rem 0 0.5rem; }
.qkv-training .tr-car-row .tr-note { flex: 1 1 24em; margin: 0; font-size: 0.92em; }
.qkv-training .tr-car { min-height: 2.25rem; padding: 0.3rem 0.8rem; border-radius: 6px; font-weight: 600;
  border: 1px solid var(--tr-line); background: var(--tr-soft); color: inherit; font: inherit; cursor: pointer; }
.qkv-training .tr-corpus { border: 1px solid var(--tr-line); border-radius: 10px; padding: 0.5rem 0.75rem; margin: 0 0 1rem; }
.qkv-training .tr-corpus summary { cursor: pointer; font-weight: 600; min-height: 1.75rem; }
.qkv-training .tr-corpus-body { display: grid; gap: 0.5rem; margin-top: 0.5rem; }
.qkv-training .tr-corpus-row { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: center; }
.qkv-training .tr-corpus-row label { display: inline-flex; gap: 0.4rem; align-items: center; }
.qkv-training .tr-corpus-row button { min-height: 2.25rem; padding: 0.3rem 0.8rem; border-radius: 6px;
  border: 1px solid var(--tr-line); background: var(--tr-soft); color: inherit; font: inherit; cursor: pointer; }
.qkv-training .tr-corpus textarea { width: 100%; box-sizing: border-box; font: inherit; line-height: 1.5; color: inherit;
  background: var(--tr-soft); border: 1px solid var(--tr-line); border-radius: 6px; padding: 0.4rem 0.5rem; resize: vertical; }
.qkv-training .tr-corpus textarea[aria-invalid="true"] { border-color: #d1242f; }
.qkv-training .tr-problems.bad { color: #d1242f; overflow-wrap: anywhere; }
@media (prefers-color-scheme: dark) { .qkv-training .tr-problems.bad { color: #ff7b72; } }
.qkv-training .tr-problems p, .qkv-training .tr-problems ul { margin: 0.25rem 0; }
.qkv-training .tr-claims { margin: 0.25rem 0; padding-left: 1.4em; font-variant-numeric: tabular-nums; }
.qkv-training .tr-baseline { margin-top: 0.6rem; border-top: 1px solid var(--tr-line); padding-top: 0.4rem; }
.qkv-training .tr-seed-table th[scope="row"] { text-align: left; }
/* the card on counting: a table of words and numbers that wraps; on a phone each measure a block */
.qkv-training .tr-counting-table { border-collapse: collapse; width: 100%; font-size: 0.9rem; margin: 0.4rem 0; font-variant-numeric: tabular-nums; }
.qkv-training .tr-counting-table th, .qkv-training .tr-counting-table td { text-align: left; vertical-align: top;
  padding: 0.3rem 0.45rem; border-bottom: 1px solid var(--tr-line); }
.qkv-training .tr-counting-table thead th { vertical-align: bottom; color: var(--tr-muted); font-weight: 600; font-size: 0.85rem; }
.qkv-training .tr-counting-table tbody th { font-weight: normal; width: 26%; }
.qkv-training .tr-counting-table td[data-column="seeds"] { color: var(--tr-muted); }
@media (max-width: 640px) {
  .qkv-training .tr-counting-table thead { display: none; }
  .qkv-training .tr-counting-table, .qkv-training .tr-counting-table tbody, .qkv-training .tr-counting-table tr,
  .qkv-training .tr-counting-table th, .qkv-training .tr-counting-table td { display: block; width: auto; }
  .qkv-training .tr-counting-table tr { border-bottom: 1px solid var(--tr-line); padding: 0.3rem 0; }
  .qkv-training .tr-counting-table tbody th { font-weight: 600; padding-bottom: 0.1rem; width: auto; }
  .qkv-training .tr-counting-table th, .qkv-training .tr-counting-table td { border: 0; padding: 0.1rem 0.2rem; }
  .qkv-training .tr-counting-table td::before { content: attr(data-label); color: var(--tr-muted); font-family: system-ui, sans-serif; }
}
.qkv-training .tr-finding { margin-top: 0.6rem; border-top: 1px solid var(--tr-line); padding-top: 0.4rem; max-width: 52em; }
.qkv-training .tr-finding-title { font-size: 0.95rem; margin: 0.25rem 0; }
.qkv-training .tr-results li { max-width: 18em; gap: 0.75rem; }

/* the one-step walkthrough */
.qkv-trainstep .section-controls p { margin: 0; flex-basis: 100%; }
.qkv-trainstep .ts-sentence { max-width: 100%; }
.qkv-trainstep .ts-flow .flow-stage { min-height: 2.25rem; }
.qkv-trainstep .ts-body { display: grid; grid-template-columns: minmax(0, 1fr); gap: 1rem; align-items: start; }
.qkv-trainstep .ts-panels { min-width: 0; }
.qkv-trainstep .ts-panel { min-width: 0; }
.qkv-trainstep .ts-row { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: flex-start; margin: 0.5rem 0; }
.qkv-trainstep .ts-row > * { min-width: 0; max-width: 100%; }
.qkv-trainstep .ts-table { flex: 1 1 16rem; max-width: 26rem; }
.qkv-trainstep .sub-title { font-size: 0.95rem; margin: 0 0 0.35rem; }
.qkv-trainstep .heatmap { grid-template-rows: repeat(var(--heat-rows, 1), 11px); max-width: 26rem; }
.qkv-trainstep .heat-row { line-height: 11px; }
.qkv-trainstep .heat-row[data-flashed] { background: color-mix(in srgb, #f0a500 30%, transparent); }
.qkv-trainstep .heat-row[data-flashed] .heat-word { font-weight: 700; }
.qkv-trainstep .ts-cards { grid-template-columns: repeat(auto-fit, minmax(min(100%, 17rem), 1fr)); }
.qkv-trainstep .ts-card h3 { font-size: 0.92rem; overflow-wrap: anywhere; }
.qkv-trainstep .bar-row { grid-template-columns: minmax(3.5em, 6.5em) minmax(3em, 1fr) 3.4em; }
.qkv-trainstep .bar-row.ts-mark .bar-label, .qkv-trainstep .bar-row.ts-mark .bar-value { color: inherit; font-weight: 700; }
.qkv-trainstep .bar-row.ts-mark .bar-fill { background: var(--good); }
.qkv-trainstep .ts-bars .bar-row { grid-template-columns: minmax(6em, 12em) 1fr 3.6em; }
.qkv-trainstep .ts-card .bar-row { grid-template-columns: minmax(4.5em, 8.5em) minmax(2em, 1fr) 3.4em; }
.qkv-trainstep .ts-card .bar-label { white-space: normal; text-overflow: clip; line-height: 1.2; }  /* a long label wraps, never cut */
.qkv-trainstep .ts-readoff, .qkv-trainstep .ts-mean { font-weight: 600; font-variant-numeric: tabular-nums; }
.qkv-trainstep .ts-mean.good { color: var(--good); }
.qkv-trainstep .ts-zero { font-weight: 600; }
.qkv-trainstep .ts-pairs, .qkv-trainstep .ts-pairs > * { min-width: 0; }
.qkv-trainstep .ts-pairs { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 15rem), 1fr)); gap: 0.25rem 1rem; }
.qkv-trainstep .ts-pair-title { margin: 0.35rem 0 0; font-size: 0.9rem; overflow-wrap: anywhere; }
.qkv-trainstep .ts-compare h3 { margin-top: 0; }
.qkv-trainstep .ts-sides { display: flex; flex-wrap: wrap; gap: 0.75rem 2rem; }
.qkv-trainstep .ts-compare { margin-top: 0.5rem; }
.qkv-trainstep .ts-compare .note { max-width: 48em; }
.qkv-trainstep .ts-side { min-width: 0; max-width: 100%; }
.qkv-trainstep .ts-side p { margin: 0.2rem 0; font-size: 0.85rem; }
.qkv-trainstep .ts-gloss { color: var(--muted); }
.qkv table.heat-table td.heat { background: color-mix(in srgb, var(--accent) calc(var(--w, 0) * 1%), var(--soft)); }
.qkv table.heat-table td.masked { color: var(--muted); background: transparent; text-align: center; }
.qkv table.heat-table th { font-size: 0.75rem; }
.qkv table.heat-table td { min-width: 3.4em; padding: 0.15rem 0.3rem; }
/* the timeline (sections/training/timeline.js): a slider over the steps taken */
.qkv .tr-timeline { margin: 0.75rem 0; }
.qkv .tr-timeline > summary { cursor: pointer; font-weight: 600; }
.qkv .tl-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; margin: 0.5rem 0; }
.qkv .tl-controls .range { display: inline-flex; align-items: center; gap: 0.5rem; flex: 1 1 16rem; }
.qkv .tl-slider { flex: 1; min-width: 8rem; accent-color: var(--accent); }
.qkv .tl-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: 0.75rem 1.25rem; align-items: start; }

.qkv .tl-scatter { width: 100%; max-width: 20rem; border: 1px solid var(--line); border-radius: 4px; background: var(--card); }
.qkv .tl-scatter circle { fill: var(--accent); }
.qkv .tl-scatter text { font-size: 7px; fill: var(--fg); }
.qkv .tl-scatter .tl-grey { fill: var(--muted); }
.qkv .tl-scatter .tl-leader { stroke: var(--fg); stroke-width: 0.6; }
.qkv .tl-runs { display: grid; gap: 0.75rem 1.5rem; }
/* the timeline's attention: compact cells, so a sentence of six fits its column at 1280 px */
.qkv .tl-attention td, .qkv .tl-attention th { padding: 0.15rem 0.25rem; font-size: 0.85em; }
.qkv .tl-grid > * { min-width: 0; }
.qkv .tl-two .tl-runs { grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); }
.qkv .tl-two .tl-grid { grid-template-columns: 1fr; }
.qkv .tl-run-title { margin: 0.25rem 0; font-size: 0.95rem; }
.qkv .tl-run h5 { margin: 0.25rem 0; font-size: 0.9rem; }
/* the walkthrough's table of every parameter's change */
.qkv-trainstep table.ts-changes { border-collapse: collapse; font-size: 0.85rem; margin: 0.25rem 0 0.5rem; }
.qkv-trainstep table.ts-changes th, .qkv-trainstep table.ts-changes td { padding: 0.15rem 0.75rem 0.15rem 0; text-align: right; }
.qkv-trainstep table.ts-changes th[scope="row"] { text-align: left; font-weight: 600; }
/* the car experiment's reading (sections/training/car-reading.js) */
.qkv .tr-car-reading { margin-top: 0.5rem; }
.qkv .tr-car-reading[hidden] { display: none; }
.qkv .tr-car-drawing { width: 100%; max-width: 280px; height: 80px; display: block; border: 1px solid var(--tr-line, #ccc); border-radius: 4px; }
.qkv .tr-car-here { stroke: #d9822b; stroke-width: 1.5; }
.qkv .tr-car-base { stroke: currentColor; stroke-width: 1.2; stroke-dasharray: 4 3; opacity: 0.7; }
.qkv .tr-car-zero { stroke: currentColor; stroke-width: 0.5; opacity: 0.3; }
`;

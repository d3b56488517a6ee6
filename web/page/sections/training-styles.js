// training-styles.js: the styles of section 9, injected as a <style> inside the section's own
// element, so they apply the same in the page and inside a widget's shadow root. Colours derive
// from the inherited text colour (currentColor), so light and dark schemes both work without
// knowing which one is active.
export const TRAINING_CSS = `
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
.qkv-training .heatmap { display: grid; grid-template-columns: 4.5em minmax(0, 1fr);
  grid-template-rows: repeat(var(--heat-rows, 1), 13px); max-width: 520px; }
.qkv-training .heat-canvas { grid-column: 2; grid-row: 1 / -1; width: 100%; height: 100%; image-rendering: pixelated; }
.qkv-training .heat-rows { display: contents; }
.qkv-training .heat-row { grid-column: 1 / -1; display: flex; align-items: center; font-size: 11px; line-height: 13px;
  border-radius: 2px; }
.qkv-training .heat-word { width: 4.5em; padding-right: 0.4em; text-align: right; white-space: nowrap; overflow: hidden;
  box-sizing: border-box; }
.qkv-training .heat-row[data-flashed] .heat-word { font-weight: 700; }
.qkv-training .heat-row[data-flashed] { box-shadow: inset 3px 0 0 #f0a500; }
@media (prefers-reduced-motion: reduce) {
  .qkv-training .heat-row[data-flashed] { box-shadow: inset 0 0 0 1px #f0a500, inset 3px 0 0 #f0a500; }
}
.qkv-training .heat-legend { display: flex; align-items: center; gap: 0.5rem; margin-top: 0.5rem; font-size: 0.85em; }
.qkv-training .heat-legend-bar { flex: 0 1 10em; height: 0.7em; border-radius: 3px; border: 1px solid var(--tr-line); }
.qkv-training form { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.qkv-training form label { display: inline-flex; gap: 0.35rem; align-items: center; }
.qkv-training form input[type="text"] { width: 6.5em; }
.qkv-training form[data-role="analogy-form"] input[type="text"] { width: 5em; }
.qkv-training .tr-results { list-style: none; padding: 0; margin: 0.5rem 0 0; font-variant-numeric: tabular-nums; }
.qkv-training .tr-results li { display: flex; justify-content: space-between; max-width: 14em; padding: 0.1rem 0;
  border-bottom: 1px dashed var(--tr-line); }
.qkv-training .tr-inline-error { color: #d1242f; font-size: 0.92em; margin: 0.4rem 0 0; overflow-wrap: anywhere; }
@media (prefers-color-scheme: dark) { .qkv-training .tr-inline-error { color: #ff7b72; } }
.qkv-training .tr-group-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; padding: 0; margin: 0.5rem 0; font-size: 0.9em; }
.qkv-training .tr-swatch { display: inline-block; width: 0.75em; height: 0.75em; border-radius: 50%; margin-right: 0.35em; vertical-align: -0.05em; }
.qkv-training .tr-exports { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.qkv-training .tr-op { font-weight: 700; }
`;

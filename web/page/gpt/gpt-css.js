// gpt/gpt-css.js: the three GPT sections' sheet (block, writer, generate), scoped under .qkv like
// style.css. It travels with the sections (their on-demand chunk, the widget's GPT add-on), not in
// the script every post loads: the page adds it to its head, a widget to its shadow root, when a
// GPT section is first built (definition.css).
export const GPT_CSS = `
/* gpt/gpt.css: the three GPT sections (block, writer, generate). Scoped under .qkv like style.css. */
.qkv .block-controls, .qkv .writer-controls, .qkv .gen-controls { display: flex; flex-wrap: wrap; gap: 0.5rem 0.9rem; align-items: center; }
.qkv .block-choice, .qkv .gpt-choice { display: inline-flex; align-items: center; gap: 0.4rem; }
.qkv .gpt-choice .pending { color: var(--muted); font-size: 0.85rem; }
.qkv .block-path { display: grid; gap: 0.6rem; }
.qkv .block-row { min-width: 0; }
.qkv .block-row-title { font-size: 0.95rem; margin: 0.2rem 0; color: var(--muted); font-weight: 600; }
.qkv .block-stats { margin: 0.2rem 0; }
.qkv .block-heads { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0.5rem 1rem; }
.qkv .block-head-title { margin: 0; font-size: 0.9rem; }
.qkv .gelu-curve { max-width: 22rem; }
.qkv .gelu-svg { width: 100%; height: auto; display: block; }
.qkv .gelu-svg .axis { stroke: var(--line); stroke-width: 1; }
.qkv .gelu-svg .gelu-line { fill: none; stroke: var(--accent); stroke-width: 2; }
.qkv .gelu-svg .gelu-dot { fill: var(--q); }
.qkv .gelu-svg .axis-label { fill: var(--muted); font-size: 10px; }
.qkv .block-parts-box { margin-top: 1rem; }
.qkv table.block-parts { border-collapse: collapse; font-size: 0.92rem; }
.qkv table.block-parts caption { text-align: left; color: var(--muted); font-size: 0.85rem; }
.qkv table.block-parts th, .qkv table.block-parts td { border-bottom: 1px solid var(--line); padding: 0.25rem 0.6rem; text-align: left; }
.qkv table.block-parts td:last-child { text-align: right; }
.qkv table.block-parts tr.hl-part { background: var(--row); }
.qkv table.block-parts tr.total th, .qkv table.block-parts tr.total td { font-weight: 600; }
.qkv .block-lacked p { max-width: 48em; margin: 0.3rem 0; }

/* the writer */
.qkv .writer-status { margin: 0.5rem 0; }
.qkv .writer-grid { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; align-items: start; }
@media (max-width: 760px) { .qkv .writer-grid { grid-template-columns: minmax(0, 1fr); } }
.qkv .loss-plot svg { width: 100%; height: auto; display: block; }
.qkv .loss-plot .axis { stroke: var(--line); }
.qkv .loss-plot .tick { fill: var(--muted); font-size: 10px; }
.qkv .loss-plot .batch { fill: none; stroke: var(--accent); stroke-width: 1.5; }
.qkv .loss-plot .val { fill: var(--v); }
.qkv .loss-plot .train-eval { fill: var(--k); }
.qkv .loss-plot .baseline { stroke: var(--q); stroke-dasharray: 5 4; }
.qkv .loss-plot .uniform { stroke: var(--muted); stroke-dasharray: 2 4; }
.qkv .legend { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; font-size: 0.85rem; color: var(--muted); margin: 0.2rem 0; padding: 0; list-style: none; }
.qkv .legend .swatch { display: inline-block; width: 1.2em; height: 0.25em; vertical-align: middle; margin-right: 0.3em; background: currentColor; }
.qkv .samples { list-style: none; margin: 0; padding: 0; max-height: 24rem; overflow-y: auto; border: 1px solid var(--line); border-radius: 8px; }
.qkv .samples li { padding: 0.35rem 0.6rem; border-bottom: 1px solid var(--line); }
.qkv .samples li.current { background: var(--row); }
.qkv .sample-step { color: var(--muted); font-size: 0.8rem; display: block; }
.qkv .sample-poem { font-size: 1.05rem; letter-spacing: 0.05em; overflow-wrap: anywhere; }
.qkv .sample-poem .poem-line, .qkv .poem-grid .poem-line { display: block; }
.qkv .poem-set { list-style: none; margin: 0.4rem 0 0; padding: 0; display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: 0.5rem; }
@media (max-width: 560px) { .qkv .poem-set { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
.qkv .poem-set li { border: 1px solid var(--line); border-radius: 8px; padding: 0.35rem 0.5rem; }
.qkv .poem-set li.good { border-color: var(--accent); }
.qkv .poem-seed { display: block; color: var(--muted); font-size: 0.8rem; }
.qkv .poem-grid { font-size: 1.05rem; letter-spacing: 0.12em; overflow-wrap: anywhere; }
.qkv .share { font-size: 1.1rem; margin: 0.4rem 0; }
.qkv .gpt-error { color: var(--bad); border-left: 4px solid var(--bad); background: var(--soft); padding: 0.4rem 0.7rem; border-radius: 4px; margin: 0.4rem 0; overflow-wrap: anywhere; }
.qkv .gpt-ask { border-left: 4px solid var(--focus); background: var(--soft); padding: 0.5rem 0.75rem; border-radius: 4px; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.qkv .gpt-ask p { margin: 0; flex-basis: 100%; }
.qkv .own-text textarea { width: 100%; min-height: 6rem; font: inherit; color: inherit; background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem; }
.qkv .own-text .row { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.4rem; }
.qkv .attn-line input[type="text"] { width: min(22em, 100%); }
.qkv .attn-chars { display: flex; flex-wrap: wrap; gap: 0.15rem; margin: 0.4rem 0; }
.qkv .attn-chars button { min-width: 2.25rem; padding: 0.1rem 0.3rem; }
.qkv .attn-chars button[aria-pressed="true"] { background: var(--accent); color: var(--on-accent); }
.qkv .attn-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.5rem 1rem; }
.qkv .attn-head-title { margin: 0; font-size: 0.85rem; color: var(--muted); }
.qkv .attn-strip { display: flex; flex-wrap: wrap; gap: 1px; }
.qkv .attn-strip span { display: inline-block; min-width: 1.6rem; text-align: center; padding: 0.1rem 0; border-radius: 3px; position: relative; }
.qkv .attn-strip span .w { position: absolute; inset: 0; background: var(--accent); border-radius: 3px; z-index: 0; }
.qkv .attn-strip span .c { position: relative; z-index: 1; }
.qkv .gpt-file { display: inline-flex; align-items: center; gap: 0.4rem; }
.qkv .gpt-file input[type="file"] { max-width: 14rem; }

/* generation */
.qkv .gen-cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; align-items: start; }
@media (max-width: 760px) { .qkv .gen-cols { grid-template-columns: minmax(0, 1fr); } }
.qkv .gen-text { font-size: 1.3rem; letter-spacing: 0.05em; overflow-wrap: anywhere; }
.qkv .gen-text .prompt { color: var(--muted); }
.qkv .gen-text .new { background: var(--row); border-radius: 3px; }
.qkv table.dist { border-collapse: collapse; font-size: 0.9rem; width: 100%; }
.qkv table.dist th, .qkv table.dist td { border-bottom: 1px solid var(--line); padding: 0.15rem 0.4rem; text-align: right; }
.qkv table.dist th:first-child, .qkv table.dist td:first-child { text-align: center; }
.qkv table.dist tr.cut td { color: var(--muted); text-decoration: line-through; }
.qkv table.dist tr.chosen { background: var(--row); font-weight: 600; }
.qkv .cost-note { border-left: 4px solid var(--k); background: var(--soft); padding: 0.5rem 0.75rem; border-radius: 4px; font-size: 0.92rem; }
.qkv .legend-batch .swatch { color: var(--accent); }
.qkv .legend-trainEval .swatch { color: var(--k); height: 0.6em; width: 0.6em; border-radius: 50%; }
.qkv .legend-val .swatch { color: var(--v); height: 0.6em; width: 0.6em; border-radius: 50%; }
.qkv .legend-unigram .swatch { color: var(--q); background: repeating-linear-gradient(to right, currentColor 0 5px, transparent 5px 9px); }
.qkv .legend-uniform .swatch { color: var(--muted); background: repeating-linear-gradient(to right, currentColor 0 2px, transparent 2px 6px); }
.qkv .gen-dist { margin: 0.8rem 0; max-width: 44rem; }
/* the form's say at a step, and the poem as the metrics read it: a rhyme is boxed (dashed when
   lines 2 and 4 do not rhyme), a line found in the training poems underlined: shown, never hidden */
.qkv .gen-mask { margin: 0.3rem 0; padding: 0.3rem 0.6rem; border-left: 4px solid var(--line); background: var(--soft); border-radius: 4px; }
.qkv .gen-mask.overruled { border-left-color: var(--k); }
.qkv .gen-text .rhyme, .qkv .gen-poem .rhyme { outline: 2px solid var(--k); outline-offset: 1px; border-radius: 3px; }
.qkv .gen-poem .rhyme-miss { outline: 2px dashed var(--muted); outline-offset: 1px; border-radius: 3px; }
.qkv .gen-poem .copied, .qkv .gen-reading .copied { text-decoration: underline wavy var(--bad); text-underline-offset: 0.25em; }
.qkv .gen-reading { margin: 0.6rem 0; padding: 0.5rem 0.75rem; border: 1px solid var(--line); border-radius: 6px; max-width: 44rem; }
.qkv .gen-poem { font-size: 1.2rem; letter-spacing: 0.08em; overflow-wrap: anywhere; margin: 0.3rem 0; }
.qkv .gen-read-list { margin: 0.3rem 0; padding-left: 1.2rem; }
.qkv .gen-read-list q { color: var(--muted); }
.qkv .own-text { margin-top: 1rem; }
`;

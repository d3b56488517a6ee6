// finetune/finetune-css.js: the fine-tuning section's sheet, scoped under .qkv like style.css; it
// travels with the section (its on-demand chunk, the widget's fine-tuning add-on).
export const FINETUNE_CSS = `
.qkv [data-section="finetune"] .gpt-choice { max-width: 100%; }
.qkv [data-section="finetune"] .gpt-choice select { max-width: min(16rem, 60vw); }
.qkv .ft-targets { display: flex; flex-wrap: wrap; gap: 0.3rem 0.8rem; align-items: center; border: 1px solid var(--line); border-radius: 6px; padding: 0.3rem 0.6rem; margin: 0.4rem 0; }
.qkv .ft-targets legend { font-size: 0.9rem; color: var(--muted); padding: 0 0.3rem; }
.qkv .ft-target { display: inline-flex; gap: 0.25rem; align-items: center; }
.qkv .ft-chart { position: relative; height: 240px; min-width: 0; }
.qkv .ft-chart canvas { width: 100%; height: 100%; }
.qkv .ft-grid { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
.qkv [data-section="finetune"] .stepper .step-play, .qkv [data-section="finetune"] .stepper .speed { display: none; }
/* a card fits a line of 浣溪沙 (seven characters and a stop); a longer line wraps, its rest indented */
.qkv .poem-set.ft-poems { grid-template-columns: repeat(auto-fill, minmax(10.5rem, 1fr)); }
.qkv .ft-poems .poem-line, .qkv .ft-col .poem-line { display: block; padding-left: 1em; text-indent: -1em; overflow-wrap: anywhere; }
.qkv .ft-poems mark, .qkv .ft-col mark { background: transparent; border-bottom: 2px solid var(--muted); color: inherit; }
.qkv .ft-poems mark.rhyme, .qkv .ft-col mark.rhyme { border-bottom-color: var(--accent); font-weight: 700; }
.qkv .ft-matrices { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 0.6rem; margin: 0.5rem 0; }
.qkv .ft-lowrank { display: flex; align-items: center; gap: 0.3rem; }
.qkv .ft-figure { margin: 0; display: flex; flex-direction: column; align-items: center; gap: 0.2rem; }
.qkv .ft-caption { font-size: 0.8rem; color: var(--muted); max-width: 10rem; text-align: center; }
.qkv .ft-map { image-rendering: pixelated; border: 1px solid var(--line); }
.qkv .ft-op { font-size: 1.3rem; color: var(--muted); }
.qkv .ft-columns { display: grid; grid-template-columns: 1fr 1fr; gap: 0.8rem; }
.qkv .ft-col { min-width: 0; }
.qkv .ft-col ol, .qkv .ft-col li { list-style: none; padding: 0; margin: 0; }
.qkv .ft-col-title { margin: 0.2rem 0; font-size: 0.95rem; }
.qkv .ft-compare, .qkv .ft-change { margin-top: 1rem; }
@media (max-width: 600px) {
  .qkv .ft-grid, .qkv .ft-columns { grid-template-columns: 1fr; }
  .qkv .ft-chart { height: 200px; }
}
`;

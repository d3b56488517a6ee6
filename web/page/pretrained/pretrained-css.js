// pretrained/pretrained-css.js: the 预训练 section's sheet, scoped under .qkv like style.css. It
// travels with the section (its on-demand chunk, its widget add-on), as gpt/gpt-css.js does.
export const PRETRAINED_CSS = `
.qkv .pre-part { margin: 0.5rem 0; }
.qkv .pre-controls { display: flex; flex-wrap: wrap; gap: 0.5rem 0.9rem; align-items: center; margin: 0.5rem 0; }
.qkv .pre-choice { display: inline-flex; align-items: center; gap: 0.4rem; flex-wrap: wrap; }
.qkv .pre-poem { flex: 1 1 20em; }
.qkv .pre-poem input { flex: 1 1 16em; min-width: 0; max-width: 100%; font-size: 1rem; }
.qkv .pre-error { color: var(--bad); border-left: 4px solid var(--bad); background: var(--soft); padding: 0.4rem 0.7rem; border-radius: 4px; margin: 0.4rem 0; overflow-wrap: anywhere; }
.qkv table.pre-table, .qkv table.pre-grid { border-collapse: collapse; font-size: 0.92rem; }
.qkv table.pre-table caption, .qkv table.pre-grid caption { text-align: left; color: var(--muted); font-size: 0.85rem; caption-side: bottom; padding-top: 0.3rem; }
.qkv table.pre-table th, .qkv table.pre-table td, .qkv table.pre-grid th, .qkv table.pre-grid td { border-bottom: 1px solid var(--line); padding: 0.3rem 0.55rem; text-align: left; vertical-align: top; }
.qkv table.pre-table td.num, .qkv table.pre-grid td.num { text-align: right; white-space: nowrap; }
.qkv table.pre-table th[scope=row] { font-weight: normal; min-width: 12em; }
.qkv table.pre-table tr.pre-poet th, .qkv table.pre-table tr.pre-poet td { font-weight: 600; background: var(--row); }
.qkv table.pre-grid td.pre-best { font-weight: 700; }
.qkv table.pre-grid th { white-space: nowrap; }
.qkv table.pre-grid td.pre-shown { outline: 2px solid var(--accent); outline-offset: -2px; }
.qkv .pre-facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.3rem 1rem; margin: 0.5rem 0; }
.qkv .pre-facts dt { color: var(--muted); }
.qkv .pre-facts dd { margin: 0; }
@media (max-width: 560px) { .qkv .pre-facts { grid-template-columns: minmax(0, 1fr); } .qkv .pre-facts dd { margin-bottom: 0.4rem; } }
.qkv .pre-cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; align-items: start; }
@media (max-width: 760px) { .qkv .pre-cols { grid-template-columns: minmax(0, 1fr); } }
.qkv .pre-map { width: 100%; max-width: 30rem; height: auto; display: block; }
.qkv .pre-map .pre-cell { fill: var(--accent); }
.qkv .pre-map .pre-axis { fill: var(--muted); font-size: 7px; }
.qkv .pre-map .pre-mark { fill: none; stroke: var(--q); stroke-width: 2; }
.qkv .pre-bars .bar-row.pre-rhyme .bar-label, .qkv .pre-bars .bar-row.pre-rhyme .bar-value { font-weight: 700; text-decoration: underline; }
/* on a phone, the table's rows as cards: the name, then the four figures two by two, each with its column's name */
@media (max-width: 560px) {
  .qkv table.pre-table, .qkv table.pre-table tbody, .qkv table.pre-table caption { display: block; width: 100%; }
  .qkv table.pre-table thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .qkv table.pre-table tr { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 0.5rem; width: 100%; box-sizing: border-box; border-bottom: 1px solid var(--line); padding: 0.3rem 0; }
  .qkv table.pre-table th[scope=row] { grid-column: 1 / -1; border: 0; min-width: 0; padding-bottom: 0; }
  .qkv table.pre-table td.num { border: 0; text-align: left; white-space: normal; }
  .qkv table.pre-table td.num::before { content: attr(data-label); display: block; color: var(--muted); font-size: 0.78rem; font-family: system-ui, sans-serif; }
}
`;

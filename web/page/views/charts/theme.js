// views/charts/theme.js: the charts' colours on a light page and a dark one, which a chart's
// container decides, and how each line chart draws its series (shared with the HTML legends).
/** Colours that read on a light page and on a dark one. */
export const THEMES = {
  light: {
    dark: false, text: '#24292f', muted: '#57606a', grid: 'rgba(0,0,0,0.10)', background: '#ffffff',
    series: ['#0b63c5', '#c2410c', '#1a7f37', '#8250df', '#6e7781'],
  },
  dark: {
    dark: true, text: '#e6edf3', muted: '#9da7b1', grid: 'rgba(255,255,255,0.13)', background: '#15191f',
    series: ['#6cb6ff', '#ffa657', '#56d364', '#d2a8ff', '#8b949e'],
  },
};

/**
 * The theme for charts drawn inside `element`: judged by the text colour it actually inherits
 * (a page may set its own scheme, a widget may be forced light or dark), falling back to
 * prefers-color-scheme when the colour cannot be read.
 */
export function themeOf(element, prefersDark = false) {
  const colour = getComputedStyle(element).color;
  const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)/.exec(colour);
  const lightText = m ? (0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3]) > 140 : prefersDark;
  return lightText ? THEMES.dark : THEMES.light;
}

/** How each line chart draws its series: colour (an index into theme.series), width, dash. */
export const LOSS_SERIES = Object.freeze([{ colour: 4, width: 1 }, { colour: 0, width: 2 }]);
/** Fine-tuning: batch loss (thin), held-out loss of the fine-tuning text, loss on the Tang poems (dashed); the evaluated ones with dots. */
export const FINETUNE_SERIES = Object.freeze([{ colour: 4, width: 1 }, { colour: 0, width: 2, points: 3 }, { colour: 1, width: 2, dash: [6, 3], points: 3 }]);
export const SIMILARITY_SERIES = Object.freeze([{ colour: 0, width: 2 }, { colour: 1, width: 2, dash: [6, 3] }]);

/** Makes an HTML legend's swatch look like its series' line: colour, width, solid or dashed. */
export function styleSwatch(el, theme, spec, i = 0) {
  const colour = theme.series[spec.colour ?? i];
  el.style.borderTop = `${Math.max(2, spec.width ?? 1.5)}px ${spec.dash && spec.dash.length ? 'dashed' : 'solid'} ${colour}`;
}

// code-panel.strings.js: the words of code-panel.js (a view), zh and en (web/page/views/code-panel.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const CODE_PANEL_STRINGS = {
  zh: {
    'code.summary': '代码：NumPy 与 qkv-lab',
    'code.numpy': 'NumPy（Python）',
    'code.js': 'JavaScript（qkv-lab）',
    'code.setup': '要先运行的几行（复制后可以原样运行）',
    'code.note': '两段代码都得出这一节显示的数：NumPy 用 float64，qkv-lab 用 float32，到这里显示的 3 位小数都一样。',
  },
  en: {
    'code.summary': 'Code: NumPy and qkv-lab',
    'code.numpy': 'NumPy (Python)',
    'code.js': 'JavaScript (qkv-lab)',
    'code.setup': 'The lines to run first (copy them and they run as they are)',
    'code.note': 'Both give the numbers this section shows: NumPy in float64, qkv-lab in float32, the same to the 3 decimals on the page.',
  },
};

// matrix-view.strings.js: the words of matrix-view.js (a view), zh and en (web/page/views/matrix-view.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const MATRIX_VIEW_STRINGS = {
  zh: {
    'matrix.csv': '下载 CSV', 'matrix.csvLabel': '下载 CSV：矩阵 {name}',  // the name starts with the visible text (label in name)
    'matrix.empty': '{cell}：空的单元格不是数字，保留原值 {old}。',
    'matrix.nan': '{cell}：“{text}”不是数字，保留原值 {old}。',
    'matrix.range': '{cell}：{text} 超出范围（−1000 到 1000），保留原值 {old}。',
    'matrix.shape': '{name}：{rows}×{cols}',
    'matrix.editHint': '可编辑：点一下数字，输入新值，按回车。',
    'matrix.scrolls': '表格较宽，可左右滚动：显示 {shown} / {cols} 列 →',
    'matrix.scrollsPicture': '表格太宽，图里只有第 {from}–{to} 列（共 {cols} 列）；其余的在页面上左右滚动可以看到 …',
  },
  en: {
    'matrix.csv': 'CSV', 'matrix.csvLabel': 'Download {name} as a CSV file',
    'matrix.empty': '{cell}: an empty cell is not a number; kept {old}.',
    'matrix.nan': '{cell}: “{text}” is not a number; kept {old}.',
    'matrix.range': '{cell}: {text} is out of range (−1000 to 1000); kept {old}.',
    'matrix.shape': '{name}: {rows}×{cols}',
    'matrix.editHint': 'Editable: click a number, type a new value, press Enter.',
    'matrix.scrolls': 'Wider than the page: scroll sideways for the rest ({shown} of {cols} columns in view) →',
    'matrix.scrollsPicture': 'Too wide for a picture: columns {from}–{to} of {cols} shown; the rest scroll into view on the page …',
  },
};

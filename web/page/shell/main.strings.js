// main.strings.js: the words of the page around the sections (header, contents, footer, notices), zh and en (web/page/shell/main.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const PAGE_STRINGS = {
  zh: {
    'page.title': 'qkv-lab：注意力是怎么算出来的',
    'page.subtitle': '从查字典的直觉，到 Q、K、V、Q·Kᵀ、softmax、加权求和，再到 embedding 表怎么学出来。页面上的每个数都由 WebAssembly 模块在你的浏览器里现算。',
    'page.lang': '语言', 'page.loading': '正在加载 WebAssembly 模块…',
    'page.failed': '加载失败：{message}',
    'page.notice': '链接里的这些参数无效，已改用默认值：{names}。',
    'page.footer': '数字以 float32 计算，显示到小数点后 3 位。下载整页单文件版本：./build.sh 生成 web/dist/qkv-lab.html。',
    'page.sectionFailed': '这一节出错了：{message}',
    'page.embedSection': '“{value}”不是这里的一节，改为显示{fallback}。',
  },
  en: {
    'page.title': 'qkv-lab: how attention is computed',
    'page.subtitle': 'From the dictionary look-up intuition to Q, K, V, Q·Kᵀ, softmax and the weighted sum, and on to how an embedding table is learned. Every number on this page is computed in your browser by a WebAssembly module.',
    'page.lang': 'Language', 'page.loading': 'Loading the WebAssembly module…',
    'page.failed': 'Could not load: {message}',
    'page.notice': 'These link parameters were not valid and fell back to their defaults: {names}.',
    'page.footer': 'Numbers are computed in float32 and shown to 3 decimals. The whole page as one file: ./build.sh writes web/dist/qkv-lab.html.',
    'page.sectionFailed': 'This section failed: {message}',
    'page.embedSection': '“{value}” is not a section here; showing {fallback} instead.',
  },
};

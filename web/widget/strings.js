// strings.js: the widget's own words (its frame and its notices), zh and en. The sections bring
// their own strings.
import { addStrings } from '../page/shell/i18n.js';

addStrings({
  zh: {
    'widget.loading': '正在加载 WebAssembly 模块…',
    'widget.failed': 'qkv-lab 加载失败：{message}',
    'widget.invalid': '属性 {name}="{value}" 无效，已改用默认值 {fallback}。',
    'widget.invalidNone': '属性 {name}="{value}" 无效，已改用默认值。',
    'widget.credit': 'qkv-lab · 数字由 WebAssembly 现算',
    'widget.label': '注意力交互演示：{section}',
  },
  en: {
    'widget.loading': 'Loading the WebAssembly module…',
    'widget.failed': 'qkv-lab could not load: {message}',
    'widget.invalid': '{name}="{value}" is not valid; using the default, {fallback}.',
    'widget.invalidNone': '{name}="{value}" is not valid; using the default.',
    'widget.credit': 'qkv-lab · numbers computed live in WebAssembly',
    'widget.label': 'Interactive attention demo: {section}',
  },
});

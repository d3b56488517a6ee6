// navigation.strings.js: the words of the navigation bar, zh and en (web/page/shell/navigation.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const NAVIGATION_STRINGS = {
  zh: {
    'nav.contents': '目录',
    'nav.bar': '页面导航',
    'nav.toc': '目录',
    'nav.link': '本节链接：{title}',
    'nav.top': '回到页首',
  },
  en: {
    'nav.contents': 'Contents',
    'nav.bar': 'Page navigation',
    'nav.toc': 'Table of contents',
    'nav.link': 'Link to this section: {title}',
    'nav.top': 'Back to the top',
  },
};

// roles.strings.js: the words of the section "roles", zh and en (web/page/sections/roles.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const ROLES_STRINGS = {
  zh: {
    'roles.title': '三个角色：查询、键、值',
    'roles.intro1': '想象在图书馆找书。你心里的需求（“我想找讲深度学习的书”）是查询 Query；每本书书脊上的分类标签是键 Key；书里的正文是值 Value。',
    'roles.intro2': '找书就是拿需求去和每个标签比对，越匹配的书分量越重，再按分量把各本书的内容取来合在一起。自注意力里，句子里的每个词都同时做这三件事：用自己的 Q 去问，用自己的 K 被找到，用自己的 V 交出内容。',
    'roles.need': '需求：深度学习', 'roles.book1': '深度学习', 'roles.book2': '童话', 'roles.book3': '机器学习',
    'roles.content': '正文', 'roles.result': '取回的内容',
    'roles.s0': '查询 Q：读者带着一个需求来（“我要找讲深度学习的书”）。',
    'roles.s1': '键 K：把需求和每本书的标签比对，标签越像需求，匹配度越高。',
    'roles.s2': 'softmax：匹配度变成分量，全部分量加起来是 1。',
    'roles.s3': '值 V：按分量从每本书里取内容，合成一份答案。这就是 Q·Kᵀ → softmax → A·V。',
  },
  en: {
    'roles.title': 'Three roles: query, key, value',
    'roles.intro1': 'Picture looking for a book in a library. What you have in mind (“a book about deep learning”) is the query; the subject label on each book’s spine is its key; the text inside is its value.',
    'roles.intro2': 'You compare your wish with every label, give more weight to the books that match better, and take content from each book in proportion. In self-attention every token in the sentence does all three at once: asks with its Q, is found by its K, hands over its V.',
    'roles.need': 'need: deep learning', 'roles.book1': 'deep learning', 'roles.book2': 'fairy tales', 'roles.book3': 'machine learning',
    'roles.content': 'text', 'roles.result': 'retrieved',
    'roles.s0': 'Query Q: a reader arrives with a wish (“a book about deep learning”).',
    'roles.s1': 'Key K: the wish is compared with every book’s label; the closer the label, the better the match.',
    'roles.s2': 'Softmax: the matches become shares that add up to 1.',
    'roles.s3': 'Value V: take content from each book by its share and combine it into one answer. That is Q·Kᵀ → softmax → A·V.',
  },
};

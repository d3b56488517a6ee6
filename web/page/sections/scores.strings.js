// scores.strings.js: the words of the section "scores", zh and en (web/page/sections/scores.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const SCORES_STRINGS = {
  zh: {
    'scores.title': '为什么是 Q×Kᵀ，而不是 Q×K',
    'scores.intro1': '我们要的是一张 n×n 的打分表：S[i][j] 表示第 i 个词的查询和第 j 个词的键有多匹配，也就是两个向量的点积。方向越接近，点积越大；垂直为 0；相反为负。',
    'scores.intro2': '矩阵乘法要求左边的列数等于右边的行数。Q 和 K 都是 [n, d_k]，直接相乘一般不成立；把 K 转置成 [d_k, n]，Kᵀ 的第 j 列正是第 j 个词的键，Q·Kᵀ 一次就算完所有配对。把鼠标移到（或用 Tab 键走到）S 的任意格子上，看它的点积逐项展开。',
    'scores.tryFail': '试一下 Q × K：库直接拒绝了——',
    'scores.tryFits': '这个例子里 n = d_k = {n}，Q × K 的形状碰巧对得上，但算出来的是 Q 的第 i 行和 K 的第 j 列（所有词的第 j 个分量）的点积，没有意义。换成 {m} 个词的句子“{sentence}”，库会拒绝：',
    'scores.refusalMeaning': '（库的报错是英文，意思是：A 是 {ar}×{ac}，B 是 {br}×{bc}；A 的列数必须等于 B 的行数。）',
    'scores.step0': 'Q 和 K 都是 [{n}, {dk}]：左边 {dk} 列，右边 {n} 行，不能直接相乘。',
    'scores.step0fits': 'Q × K 在这里形状碰巧成立（n = d_k），但配对的是错误的东西；我们需要 Kᵀ。',
    'scores.step1': '转置：K 的第 j 行变成 Kᵀ 的第 j 列。Kᵀ 是 [{dk}, {n}]，Q·Kᵀ 成立，结果是 [{n}, {n}]。',
    'scores.cell': 'S[{a}][{b}] = q_{a} · k_{b} = {terms} = {value}',
    'scores.hover': '把鼠标移到 S 的格子上看它的点积。',
    'scores.done': '打分表完成：每一行是一个词对全句每个词的原始打分，可正可负。',
    'scores.kq': '也算 K·Qᵀ',
    'scores.kqNote': 'K·Qᵀ 和 S 是同一批数，只是行列互换：(K·Qᵀ)[j][i] = k_j·q_i = q_i·k_j = S[i][j]，因为点积不在乎先后。约定用 Q·Kᵀ，是因为这样第 i 行正好是第 i 个词给全句每个词的打分，下一步可以直接按行做 softmax；对 K·Qᵀ 按行做 softmax，分配的就成了每个键被各个查询看了多少，不是我们要的。',
    'scores.kqPair': '，也就是 (K·Qᵀ)[{b}][{a}]',
  },
  en: {
    'scores.title': 'Why Q×Kᵀ and not Q×K',
    'scores.intro1': 'We want an n×n score table: S[i][j] says how well token i’s query matches token j’s key, which is the dot product of the two vectors. Pointing the same way gives a large dot product, at right angles zero, opposite ways a negative one.',
    'scores.intro2': 'A matrix product needs the left matrix’s columns to equal the right one’s rows. Q and K are both [n, d_k], so Q×K generally does not exist. Transposed, K becomes [d_k, n], column j of Kᵀ is token j’s key, and Q·Kᵀ computes every pairing at once. Hover over (or Tab to) any cell of S to see its dot product written out.',
    'scores.tryFail': 'Try Q × K: the library refuses —',
    'scores.tryFits': 'Here n = d_k = {n}, so Q × K happens to have matching shapes, but it pairs row i of Q with column j of K (component j of every token): meaningless. With the {m}-token sentence “{sentence}” the library refuses:',
    'scores.refusalMeaning': '',   // the library's message is English already
    'scores.step0': 'Q and K are both [{n}, {dk}]: {dk} columns on the left, {n} rows on the right, so they cannot be multiplied.',
    'scores.step0fits': 'Q × K fits here only because n = d_k, and it pairs the wrong things; we need Kᵀ.',
    'scores.step1': 'Transpose: row j of K becomes column j of Kᵀ. Kᵀ is [{dk}, {n}], so Q·Kᵀ works and gives [{n}, {n}].',
    'scores.cell': 'S[{a}][{b}] = q_{a} · k_{b} = {terms} = {value}',
    'scores.hover': 'Hover over a cell of S to see its dot product.',
    'scores.done': 'The score table is complete: each row holds one token’s raw scores for every token, positive or negative.',
    'scores.kq': 'Also compute K·Qᵀ',
    'scores.kqNote': 'K·Qᵀ holds the same numbers as S with rows and columns swapped: (K·Qᵀ)[j][i] = k_j·q_i = q_i·k_j = S[i][j], since a dot product does not care about order. Q·Kᵀ is the convention because its row i is token i’s scores for every token, ready for a softmax by rows; a softmax over the rows of K·Qᵀ would share out how much each key is looked at by the queries, which is not what attention needs.',
    'scores.kqPair': ', which is (K·Qᵀ)[{b}][{a}]',
  },
};

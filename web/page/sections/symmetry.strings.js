// symmetry.strings.js: the words of the section "symmetry", zh and en (web/page/sections/symmetry.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const SYMMETRY_STRINGS = {
  zh: {
    'sym.title': '为什么要三个不同的矩阵',
    'sym.intro1': '既然每个词已经有向量 X，为什么不直接让 Q = K = V = X？因为一个词同时扮演三种身份：提问的人（我要找什么）、被检索的标签（别人找我时我亮出什么）、提供的内容（被关注后我交出什么）。三件事需要的特征不同，W_Q、W_K、W_V 让模型分别去学。',
    'sym.intro2': '更要命的是方向：“我”问“你”和“你”问“我”是两回事。如果 Q = K，那么 S[i][j] = qᵢ·qⱼ = S[j][i]，打分表变成对称的，注意力就没有方向了。打开开关看看。',
    'sym.switch': '共用一个投影：Q = K = X·W_Q',
    'sym.real': 'S = Q·Kᵀ（三个不同矩阵）', 'sym.same': 'S = Q·Qᵀ（Q = K = X·W_Q）',
    'sym.weights': 'A = softmax(S)',
    'sym.stepEq': 'S[{a}][{b}] = {x}，S[{b}][{a}] = {y}：相等。Q = K 时打分表是对称的，“{a}”看“{b}”和“{b}”看“{a}”一模一样。',
    'sym.stepNe': 'S[{a}][{b}] = {x}，S[{b}][{a}] = {y}：不相等。用不同的 W_Q、W_K，“{a}”看“{b}”和“{b}”看“{a}”可以不同。',
    'sym.note': '注意：即使打分对称，softmax 按行归一化之后的权重一般也不再对称，但这只是各行总量不同的结果，打分本身已经丢掉了方向。',
    'sym.diag': '共用投影时，对角线上是长度的平方，S[i][i] = |q_i|² ≥ 0；而且由 |q_i − q_j|² ≥ 0 可得 S[i][j] ≤ (S[i][i] + S[j][j]) / 2：任何一格都不超过它两端对角线的平均。对角线因此占上风：这里 {n} 行里有 {k} 行的最大打分在对角线上（加粗的是每行最大的一格）。{self}{others}',
    'sym.diagSelf': '多数词最关注的是自己。',
    'sym.diagOther': '“{a}”这一行最大的却是“{b}”：“{b}”的向量更长（S[{b}][{b}] = {bb}，大于 S[{a}][{a}] = {aa}）。',
    'sym.realTop': '三个不同矩阵时，{n} 行里有 {k} 行的最大打分在对角线上（加粗的是每行最大的一格）：没有什么规律逼它这样。',
  },
  en: {
    'sym.title': 'Why three different matrices',
    'sym.intro1': 'Each token already has a vector X, so why not Q = K = V = X? Because a token plays three parts at once: the asker (what am I looking for), the label others search (what do I show when someone looks for me) and the content (what do I hand over once chosen). Each part needs different features; W_Q, W_K and W_V let the model learn them separately.',
    'sym.intro2': 'Worse, direction is lost: “I ask you” and “you ask me” are different questions. If Q = K then S[i][j] = qᵢ·qⱼ = S[j][i]: the score table becomes symmetric and attention has no direction. Flip the switch.',
    'sym.switch': 'Share one projection: Q = K = X·W_Q',
    'sym.real': 'S = Q·Kᵀ (three different matrices)', 'sym.same': 'S = Q·Qᵀ (Q = K = X·W_Q)',
    'sym.weights': 'A = softmax(S)',
    'sym.stepEq': 'S[{a}][{b}] = {x} and S[{b}][{a}] = {y}: equal. With Q = K the table is symmetric: “{a}” looking at “{b}” scores the same as “{b}” looking at “{a}”.',
    'sym.stepNe': 'S[{a}][{b}] = {x} but S[{b}][{a}] = {y}: different. With separate W_Q and W_K, “{a}” looking at “{b}” need not equal “{b}” looking at “{a}”.',
    'sym.note': 'Even when the scores are symmetric, the weights after the row-wise softmax usually are not; but that only reflects each row’s total, the scores themselves have lost direction.',
    'sym.diag': 'With one shared projection the diagonal holds squared lengths, S[i][i] = |q_i|² ≥ 0, and |q_i − q_j|² ≥ 0 gives S[i][j] ≤ (S[i][i] + S[j][j]) / 2: no cell exceeds the average of the two diagonal cells at its ends. So the diagonal dominates: here {k} of the {n} rows have their largest score on the diagonal (each row’s largest is in bold). {self}{others}',
    'sym.diagSelf': 'Most tokens attend to themselves most. ',
    'sym.diagOther': 'The row of “{a}” peaks at “{b}” instead: “{b}”’s vector is longer (S[{b}][{b}] = {bb} against S[{a}][{a}] = {aa}).',
    'sym.realTop': 'With three different matrices, {k} of the {n} rows have their largest score on the diagonal (each row’s largest is in bold): nothing forces it.',
  },
};

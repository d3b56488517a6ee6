// embedding.strings.js: the words of the section "embedding", zh and en (web/page/sections/embedding.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const EMBEDDING_STRINGS = {
  zh: {
    'emb.title': 'X 从哪里来：embedding 表',
    'emb.intro1': '网络只认数字。每个词先换成一个编号（token id），再拿编号当行号，去 embedding 表里取出那一行。这个“查表”等价于用 one-hot 向量乘整张表：one-hot 里只有一个 1，乘出来正好是被选中的那一行。所以它可以求导，反向传播时也只有被选中的行会收到梯度。',
    'emb.intro2': '文章的例子直接给了 3 个 4 维向量：我 = [1, 0, 0, 0]，love = [0, 1, 0, 0]，猫 = [0, 0, 1, 0.2]，这里就把它们当作表里的三行；其他词的行由 rng(种子).randn × 0.5 生成。位置向量（由 rng × 0.1 生成，每个位置一行）告诉模型“我在第几个”，打开开关后加到 X 上。',
    'emb.sentence': '句子', 'emb.pos': '加上位置向量',
    'emb.tokens': '词 → 编号',
    'emb.step': '“{word}”的编号是 {id}：one-hot 第 {r} 行在第 {id} 列是 1，乘上表，取出表的第 {id} 行{plus}，成为 X 的第 {r} 行。',
    'emb.plus': '，再加上位置 {p} 的向量',
    'emb.stepEdited': '“{word}”的编号是 {id}：one-hot 乘上表，取出表的第 {id} 行{plus}。但 X 的第 {r} 行在[[projections]]一节里被手动改过（标出的格子），所以它已不再是查表的结果，而是你输入的数。',
  },
  en: {
    'emb.title': 'Where X comes from: the embedding table',
    'emb.intro1': 'A network only reads numbers. Each word becomes an id, and the id picks a row of the embedding table. That look-up is the same as multiplying a one-hot vector by the whole table: the one-hot row has a single 1, so the product is exactly the chosen row. That is why it can be differentiated, and why only the chosen rows receive gradients.',
    'emb.intro2': 'The article gives its three 4-number vectors directly: 我 = [1, 0, 0, 0], love = [0, 1, 0, 0], 猫 = [0, 0, 1, 0.2]; here they are those three rows of the table, and the other words’ rows come from rng(seed).randn × 0.5. Position vectors (rng × 0.1, one row per position) tell the model where a token sits; switch them on to add them to X.',
    'emb.sentence': 'Sentence', 'emb.pos': 'Add position vectors',
    'emb.tokens': 'word → id',
    'emb.step': '“{word}” has id {id}: row {r} of the one-hot matrix has its 1 in column {id}; times the table, it picks row {id}{plus}, which becomes row {r} of X.',
    'emb.plus': ', plus the vector of position {p}',
    'emb.stepEdited': '“{word}” has id {id}: times the table, its one-hot row picks row {id}{plus}. But row {r} of X was edited by hand in the section [[projections]] (the marked cells), so it is no longer that look-up: it holds what you typed.',
  },
};

// refusals.strings.js: the GPT engine's refusals as the Chinese page says them (gpt/refusals.js
// matches the engine's message and fills these; the English page shows the engine's own words).
// Written for this page; the numbers come from the engine's message.
export const GPT_REFUSAL_STRINGS = {
  zh: {
    'gpt.refusal.fewLines': '这段文本只有 {n} 个非空行，至少要 {min} 行（一行一篇；每第 10 行留作验证）',
    'gpt.refusal.tooLongText': '文本超过了 {max} 个字的上限',
    'gpt.refusal.tooManyChars': '文本里有 {n} 种不同的字，一个 GPT 最多能收 {max} 种（还要留一个给结束符）',
    'gpt.refusal.fewTokens': '{part}只有 {n} 个词元，不够一个上下文 {context} 的窗口：给更多文本，或者选小一点的上下文',
    'gpt.refusal.part.training': '训练部分', 'gpt.refusal.part.validation': '验证部分（每第 10 行）',
    'gpt.refusal.tooMuchWork': '一步训练（一批 {batch} 段、每段 {context} 个字，{layers} 层、宽 {dim}，词表 {vocab} 个字）要做约 {work} 次乘加，超过了一次调用 2^30 的上限',
    'gpt.refusal.noMemory': 'WebAssembly 内存不够放这么大的 GPT：少几层或窄一点',
    'gpt.refusal.longInput': '{name}有 {n} 个字，这个模型的上下文（{context} 个位置，第一个是结束符）最多放 {max} 个',
    'gpt.refusal.unknownChars': '{name}里有 {n} 个字不在词表里（词表是从训练文本建的，共 {vocab} 个）：{chars}',
    'gpt.refusal.unknownChar': '{name}里有 1 个字不在词表里（词表是从训练文本建的，共 {vocab} 个）：{chars}',
    'gpt.refusal.name.prompt': '开头', 'gpt.refusal.name.text': '这一行',
    'gpt.refusal.notAFile': '这 {n} 个字节不是 qkv-lab 的 GPT 文件',
    'gpt.refusal.version': '文件格式是第 {version} 版，这个 qkv-lab 只读第 {reads} 版',
    'gpt.refusal.badHeader': '文件头描述的 GPT 不可能存在，文件坏了',
    'gpt.refusal.tooLarge': '文件头描述的 GPT 太大：训练它一步的计算量超过了上限，这里也建不出这么大的模型，所以不载入',
    'gpt.refusal.badWeights': '文件里压缩成八位整数的权重坏了（比例不是有限的非负数，或者数值、填充不对）',
    'gpt.refusal.size': '文件有 {n} 个字节，文件头说应该有 {expected} 个：文件不完整或多了东西',
    'gpt.refusal.checksum': '校验和不符：文件的内容被改过',
    'gpt.refusal.utf8': '文件里的词表不是有效的 UTF-8',
  },
  // the English page shows the engine's own message (it speaks English and names the operation)
  en: {},
};

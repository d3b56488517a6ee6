// view.strings.js: the words of the training section's the charts, scatter and heat map, zh and en (web/page/sections/training/view.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const TRAINING_VIEW_STRINGS = {
  zh: {
    'training.group.animals': '动物', 'training.group.vehicles': '交通工具', 'training.group.people': '王室与人',
    'training.group.royalty': '王室', 'training.group.food': '食物',
    'training.scatterCapped': '词表很大：灰点只画前 {shown} 个普通词（共 {plain} 个）。',
    'training.scatterNote2': '每个点是一个词，短尾巴是它刚走过的路。灰点是其他词（指上去看名字）；画面按彩色的词缩放，更远的灰点和句子边界 <s> 不画。紫色箭头是类比的平行四边形：男人 → 女人、国王 → 女王，虚线把它补全。这是把 {d} 维压成 2 维的投影，形状只是真实几何的影子。',
  },
  en: {
    'training.group.animals': 'animals', 'training.group.vehicles': 'vehicles', 'training.group.people': 'royalty and people',
    'training.group.royalty': 'royalty', 'training.group.food': 'food',
    'training.scatterCapped': 'A large vocabulary: of its {plain} plain words, the grey dots are the first {shown}.',
    'training.scatterNote2': 'Each point is a word; its short tail is where it just moved. Grey dots are the other words (hover to name them); the view fits the coloured words, so grey words further out, and the sentence boundary <s>, are not drawn. The purple arrows are the analogy’s parallelogram, 男人 → 女人 (man → woman) and 国王 → 女王 (king → queen), closed by the dashed sides. This projects {d} dimensions onto 2: the shape is only a shadow of the real geometry.',
  },
};

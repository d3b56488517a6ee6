// stepper.strings.js: the words of the stepper every section uses, zh and en (web/page/shell/stepper.js uses them).
// Written for this page in our own words; numbers and formulas come in through {placeholders}.
export const STEPPER_STRINGS = {
  zh: {
    'stepper.first': '回到开头', 'stepper.back': '上一步', 'stepper.play': '播放', 'stepper.pause': '暂停',
    'stepper.forward': '下一步', 'stepper.speed': '速度', 'stepper.position': '第 {i} / {n} 步', 'stepper.positionSample': '第 {i} / {n} 批样本',
    'stepper.keys': '键盘：空格 播放/暂停，← → 单步',
  },
  en: {
    'stepper.first': 'Back to the start', 'stepper.back': 'Step back', 'stepper.play': 'Play', 'stepper.pause': 'Pause',
    'stepper.forward': 'Step forward', 'stepper.speed': 'Speed', 'stepper.position': 'step {i} of {n}', 'stepper.positionSample': 'sample {i} of {n}',
    'stepper.keys': 'Keys: space plays/pauses, ← → step',
  },
};

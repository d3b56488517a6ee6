// pretrained/pretrained-sections.js: the 预训练 section and all that only it needs (the measured data it
// reads, its sheet). The registry (sections/index.js) loads this module on demand; the classic
// widget fetches it as its own add-on (qkv-lab-widget-pretrained-section.js, web/widget/addon.js),
// and the model's weights come later still, through qkv.loadPretrained(), when the section is seen.
import { pretrainedSection } from '../sections/pretrained.js';
import { PRETRAINED_CSS } from './pretrained-css.js';

/** { [id]: definition } of the sections this module holds, each with its sheet. */
export function pretrainedSections() {
  return { [pretrainedSection.id]: Object.freeze({ ...pretrainedSection, css: PRETRAINED_CSS }) };
}

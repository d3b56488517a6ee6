// widget.ts: the <qkv-lab> declarations (web/widget/qkv-lab-widget.d.ts) as a post's script uses
// them: the scene's properties (step, steps, loop, autoplay) and the settings, each typed.
import type { QkvLabElement, QkvLabStepDetail } from '../../web/widget/qkv-lab-widget.js';

const el: QkvLabElement = document.createElement('qkv-lab');
el.section = 'softmax';
el.step = 4;
el.steps = '2-5';
el.loop = true;
el.autoplay = true;
el.steps = null;
el.temp = 2;
el.kq = true;
el.opt = 'adam';
el.corpus = 'cars';
el.addEventListener('qkv-step', (e) => { const d: QkvLabStepDetail = e.detail; console.log(d.step + 1, d.count); });
// @ts-expect-error a step is a number
el.step = '4';
// @ts-expect-error a range is written 'a-b', as text
el.steps = [2, 5];
// @ts-expect-error loop is a boolean
el.loop = 'yes';
// @ts-expect-error the optimizers are 'sgd' and 'adam'
el.opt = 'rmsprop';
document.body.append(el);

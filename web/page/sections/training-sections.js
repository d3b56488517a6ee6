// training-sections.js: the two training sections (one step walked through; the run) and all
// that only they need: Chart.js, the heat maps, the run's panels. The registry (index.js) loads
// this module on demand, so that a bundle can keep it apart: the widget's classic script leaves
// it to qkv-lab-widget-training.js, and the ES-module widget to a chunk a bundler splits off.
// The page's own bundle simply includes it.
import { trainstepSection } from './trainstep.js';
import { trainingSection } from './training.js';
import { TRAINING_CSS } from '../training/training-css.js';
import { provideTrainingStore } from '../shell/context.js';
import { createTrainingStore } from '../training/store.js';
import { Model } from '../../model.js';
import { provideModel } from '../../engine-sources.js';

// the shared training run (ctx.training) lives with the sections that show it
provideTrainingStore(createTrainingStore);
// and so does the trainable model, which the API loads only on demand (loadModelEngine) and the
// classic widget's core leaves out: createModel builds the class provided here
provideModel(Model);

/** { [id]: registry entry } of the sections this module holds. */
export function trainingSections() {
  // css: their sheet, which the page adds to its head and a widget to its shadow root
  const withCss = (definition) => Object.freeze({ ...definition, css: TRAINING_CSS });
  return { [trainstepSection.id]: withCss(trainstepSection), [trainingSection.id]: withCss(trainingSection) };
}

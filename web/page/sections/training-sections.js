// training-sections.js: the two training sections (one step walked through; the run) and all
// that only they need: Chart.js, the heat maps, the run's panels. The registry (index.js) loads
// this module on demand, so that a bundle can keep it apart: the widget's classic script leaves
// it to qkv-lab-widget-training.js, and the ES-module widget to a chunk a bundler splits off.
// The page's own bundle simply includes it.
import { trainstepSection } from './trainstep.js';
import { trainingSection } from './training.js';

/** { [id]: registry entry } of the sections this module holds. */
export function trainingSections() {
  return { [trainstepSection.id]: trainstepSection, [trainingSection.id]: trainingSection };
}

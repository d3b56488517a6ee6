// sections.js: which factory draws each value of the widget's `section` attribute. The page's
// sections are imported as they are (the widget reuses them, it does not copy them); the
// default, 'walkthrough', is the widget's compact tour built from the page's pieces.
import { createWalkthroughSection } from './walkthrough-section.js';
import { createRolesSection } from '../page/sections/roles.js';
import { createEmbeddingSection } from '../page/sections/embedding.js';
import { createProjectionsSection } from '../page/sections/projections.js';
import { createScoresSection } from '../page/sections/scores.js';
import { createSoftmaxSection } from '../page/sections/softmax.js';
import { createMixingSection } from '../page/sections/mixing.js';
import { createLearnableSection } from '../page/sections/learnable.js';
import { createSymmetrySection } from '../page/sections/symmetry.js';
import { createTrainingSection } from '../page/sections/training.js';
import { createFlowSection } from '../page/sections/flow.js';

export const SECTION_FACTORIES = Object.freeze({
  walkthrough: createWalkthroughSection,
  roles: createRolesSection,
  embedding: createEmbeddingSection,
  projections: createProjectionsSection,
  scores: createScoresSection,
  softmax: createSoftmaxSection,
  mixing: createMixingSection,
  learnable: createLearnableSection,
  symmetry: createSymmetrySection,
  training: createTrainingSection,
  flow: createFlowSection,
});

// gpt/sections.js: the three GPT sections (the Transformer block; a Transformer that writes;
// generation token by token) and all that only they need: the training worker with the
// quatrains. The registry (sections/index.js) loads this module on demand, so that a bundle can
// keep it apart from the attention sections.
import { blockSection } from '../sections/block.js';
import { writerSection } from '../sections/writer.js';
import { generateSection } from '../sections/generate.js';

/** { [id]: registry entry } of the sections this module holds. */
export function gptSections() {
  return { [blockSection.id]: blockSection, [writerSection.id]: writerSection, [generateSection.id]: generateSection };
}

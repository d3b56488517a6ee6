// sections/training/exports.js: what the training section lets a reader take away: each chart as a PNG,
// the trained table as vectors.tsv + metadata.tsv for TensorFlow's Embedding Projector, and the
// corpus as corpus.txt (one sentence a line, the same text the corpus editor takes back).
//
//   const exports = createTrainingExports({ texts, events, store, charts: () => view.charts });
//   layout.slots.exports.append(exports.card);  exports.update();
import { h, download } from '../../shell/dom.js';
import { vectorsTSV, metadataTSV, dataURLToBlob } from '../../training/embedding-export.js';

export function createTrainingExports({ texts, events, store, charts }) {
  const button = (role, key) => texts.set(h('button', { attrs: { type: 'button', 'data-export': role } }), key);
  const png = {
    loss: button('loss-png', 'training.exportLossPNG'),
    similarity: button('similarity-png', 'training.exportSimPNG'),
    scatter: button('scatter-png', 'training.exportScatterPNG'),
  };
  const vectors = button('vectors', 'training.exportVectors');
  const metadata = button('metadata', 'training.exportMetadata');
  const corpus = button('corpus', 'training.corpus.export');
  const card = h('div', { class: 'tr-card tr-export-card' },
    texts.set(h('h3'), 'training.export'),
    h('div', { class: 'tr-exports' }, vectors, metadata, corpus),
    texts.set(h('p', { class: 'tr-note' }), 'training.exportNote'));

  const doc = () => card.ownerDocument;
  const exportPNG = (which, name) => () => {
    const c = charts();
    if (c) download(doc(), dataURLToBlob(c[which].toPNG()), name);
  };
  events.on(png.loss, 'click', exportPNG('loss', 'qkv-lab-loss.png'));
  events.on(png.similarity, 'click', exportPNG('similarity', 'qkv-lab-similarity.png'));
  events.on(png.scatter, 'click', exportPNG('scatter', 'qkv-lab-embeddings-pca.png'));
  events.on(vectors, 'click', () => { if (store.run) download(doc(), vectorsTSV(store.run.table), 'vectors.tsv'); });
  events.on(metadata, 'click', () => { if (store.run) download(doc(), metadataTSV(store.run.vocab), 'metadata.tsv'); });
  events.on(corpus, 'click', () => download(doc(), `${store.corpus.text}\n`, 'corpus.txt', 'text/plain;charset=utf-8'));

  return {
    card,
    png,
    /** The corpus button also sits in the corpus panel: one more element that downloads it. */
    corpusButton() {
      const b = button('corpus-file', 'training.corpus.export');
      events.on(b, 'click', () => download(doc(), `${store.corpus.text}\n`, 'corpus.txt', 'text/plain;charset=utf-8'));
      return b;
    },
    update() {
      const ready = store.run !== null && !store.replaying;
      vectors.disabled = metadata.disabled = !ready;
    },
  };
}

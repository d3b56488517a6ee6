// export/animation.js: a section's steps as one looping animated GIF, for slides and social
// posts. Loaded on demand (import() from shell/section-tools.js: a chunk of its own, page-animation-*.js)
// with its encoder, gifenc (the npm package: a quantizer and an LZW encoder, 4 KiB gzipped with
// this file), so neither the page's first load nor the widget carries it. Each frame is one step
// as export/svg-step.js draws it.
import { GIFEncoder, quantize, applyPalette } from 'gifenc';

/**
 * encodeGif(frames, { delay }) → Uint8Array: frames are { data (RGBA bytes), width, height }, all
 * the same size; each is shown for `delay` ms and the animation repeats forever. Each frame gets
 * its own palette (the pictures are flat colours and text: no dithering). From the second frame
 * on, a pixel that did not change is written as the transparent index over the frame before
 * (kept: disposal 1), so a step that highlights one row costs little more than that row.
 */
export function encodeGif(frames, { delay = 900 } = {}) {
  if (!frames.length) throw new RangeError('encodeGif: no frames');
  const gif = GIFEncoder();
  let previous = null;
  for (const [k, { data, width, height }] of frames.entries()) {
    if (width !== frames[0].width || height !== frames[0].height) {
      throw new RangeError(`encodeGif: frame ${k} is ${width}×${height}, the first is ${frames[0].width}×${frames[0].height}`);
    }
    if (!previous) {
      const palette = quantize(data, 256);
      gif.writeFrame(applyPalette(data, palette), width, height, { palette, delay, repeat: 0 });
    } else {
      const palette = quantize(data, 255);
      const index = applyPalette(data, palette);
      const clear = palette.length;       // one more entry: "as before"
      palette.push([0, 0, 0]);
      for (let p = 0, i = 0; p < index.length; p++, i += 4) {
        if (data[i] === previous[i] && data[i + 1] === previous[i + 1] && data[i + 2] === previous[i + 2]) index[p] = clear;
      }
      gif.writeFrame(index, width, height, { palette, delay, transparent: true, transparentIndex: clear, dispose: 1 });
    }
    previous = data;
  }
  gif.finish();
  return gif.bytes();
}

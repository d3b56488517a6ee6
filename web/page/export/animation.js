// export/animation.js: a section's steps as one looping animated GIF, for slides and social
// posts. Loaded on demand (import() from shell/section-tools.js) with its encoder, gifenc (the
// npm package: a quantizer and an LZW encoder, 5 KiB before gzip), so neither the page's first
// load nor the widget carries it. Each frame is one step as export/svg-step.js draws it.
import { GIFEncoder, quantize, applyPalette } from 'gifenc';

/**
 * encodeGif(frames, { delay }) → Uint8Array: frames are { data (RGBA bytes), width, height }, all
 * the same size; each is shown for `delay` ms and the animation repeats forever. Each frame gets
 * its own palette of at most 256 colours (the pictures are flat colours and text: no dithering).
 */
export function encodeGif(frames, { delay = 900 } = {}) {
  if (!frames.length) throw new RangeError('encodeGif: no frames');
  const gif = GIFEncoder();
  for (const [k, frame] of frames.entries()) {
    const palette = quantize(frame.data, 256);
    const index = applyPalette(frame.data, palette);
    gif.writeFrame(index, frame.width, frame.height, { palette, delay, repeat: k === 0 ? 0 : undefined });
  }
  gif.finish();
  return gif.bytes();
}

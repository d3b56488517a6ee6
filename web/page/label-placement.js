// label-placement.js: where to print the words of a scatter plot so that no two labels overlap,
// and a label never covers another word's point when there is room elsewhere. Pure geometry, no
// DOM (tests/label-placement.test.js checks it).
//
//   const placed = placeLabels(items, { width, height });
//   // items: [{ x, y, w, h }]: a point (pixels) and the size of its label
//   // placed[i]: { x, y, w, h, leader } the label's box (top-left), or null when it found no room
//   // (the hover readout still names that word); leader: true when the box sits away from its
//   // point, and a line should join them
//
// Greedy, nearest first: each label tries the 8 places around its point, then rings further out
// (16 directions each); the first box that stays inside the plot and overlaps no placed label
// (nor, in the first pass, any point) wins. Labels are placed in order of how crowded their
// neighbourhood is, so the crowded ones pick first.

const NEAR = 6;                        // gap between a point and a label beside it
const RINGS = [16, 28, 42, 58, 76, 96, 120, 150];
const POINT_R = 5;

function candidates(x, y, w, h) {
  const out = [
    [x + NEAR, y - h / 2], [x - NEAR - w, y - h / 2], [x - w / 2, y - NEAR - h], [x - w / 2, y + NEAR],
    [x + NEAR, y - NEAR - h], [x + NEAR, y + NEAR], [x - NEAR - w, y - NEAR - h], [x - NEAR - w, y + NEAR],
  ].map(([bx, by]) => ({ x: bx, y: by, leader: false }));
  for (const r of RINGS) {
    for (let k = 0; k < 16; k++) {
      const a = (k / 16) * 2 * Math.PI;
      const cx = x + r * Math.cos(a), cy = y + r * Math.sin(a);
      // the box's side facing the point sits on the ring
      out.push({ x: Math.cos(a) >= 0 ? cx : cx - w, y: cy - h / 2, leader: true });
    }
  }
  return out;
}

const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

export function placeLabels(items, { width, height, margin = 2 } = {}) {
  const points = items.map((it) => ({ x: it.x - POINT_R, y: it.y - POINT_R, w: 2 * POINT_R, h: 2 * POINT_R }));
  // crowded first: the number of other points within 60 px
  const crowd = items.map((a) => items.reduce((n, b) => n + (Math.hypot(a.x - b.x, a.y - b.y) < 60 ? 1 : 0), 0));
  const order = items.map((_, i) => i).sort((i, j) => crowd[j] - crowd[i] || items[i].y - items[j].y || i - j);
  const placed = new Array(items.length).fill(null);
  const boxes = [];
  const inside = (b) => b.x >= margin && b.y >= margin && b.x + b.w <= width - margin && b.y + b.h <= height - margin;
  for (const i of order) {
    const { x, y, w, h } = items[i];
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    const options = candidates(x, y, w, h);
    let chosen = null;
    for (const avoidPoints of [true, false]) {
      for (const c of options) {
        const box = { x: c.x, y: c.y, w, h };
        if (!inside(box) || boxes.some((b) => overlaps(box, b))) continue;
        if (avoidPoints && points.some((p, k) => k !== i && overlaps(box, p))) continue;
        chosen = { ...box, leader: c.leader };
        break;
      }
      if (chosen) break;
    }
    if (chosen) {
      placed[i] = chosen;
      boxes.push(chosen);
    }
  }
  return placed;
}

/** The point of box b nearest to (x, y): where a leader line from the point ends. */
export function nearestOnBox(b, x, y) {
  return { x: Math.max(b.x, Math.min(x, b.x + b.w)), y: Math.max(b.y, Math.min(y, b.y + b.h)) };
}

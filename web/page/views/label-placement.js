// views/label-placement.js: where to print the words of a scatter plot so that no two labels overlap,
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
// (16 directions each); the first box that stays inside the plot, overlaps no placed label, covers
// no other point, and points unambiguously at its own point wins. Unambiguous: a label beside its
// point is nearer to it than to any other point (by GAP px); a label with a leader line has a line
// that passes no other point closer than CLEAR px. `others` are points without a label (the plot's
// grey words), which labels must not point at either. Labels are placed in order of how crowded
// their neighbourhood is, so the crowded ones pick first; one with no such place is left out.

const NEAR = 6;                        // gap between a point and a label beside it
const RINGS = [16, 28, 42, 58, 76, 96, 120, 150];
const POINT_R = 5;
const GAP = 3;                         // a label beside its point: this much nearer to it than to any other
const CLEAR = POINT_R + 1;             // a leader line passes no other point closer than this

// the 8 places beside a point (offsets of the box's top-left, in units of NEAR, w and h), then
// 16 directions on each ring
const BESIDE = [[1, 0, 0, -0.5], [-1, -1, 0, -0.5], [0, -0.5, -1, -1], [0, -0.5, 1, 0],
  [1, 0, -1, -1], [1, 0, 1, 0], [-1, -1, -1, -1], [-1, -1, 1, 0]];
const DIRECTIONS = Array.from({ length: 32 }, (_, k) => [Math.cos((k / 32) * 2 * Math.PI), Math.sin((k / 32) * 2 * Math.PI)]);
const COUNT = BESIDE.length + RINGS.length * DIRECTIONS.length;

/** Candidate c (0 … COUNT−1) for a w×h label of the point (x, y): writes its top-left into out; true for a leader. */
function candidate(c, x, y, w, h, out) {
  if (c < BESIDE.length) {
    const [nx, wx, ny, hy] = BESIDE[c];
    out[0] = x + nx * NEAR + wx * w;
    out[1] = y + ny * NEAR + hy * h;
    return false;
  }
  const k = c - BESIDE.length;
  const r = RINGS[Math.floor(k / DIRECTIONS.length)];
  const [dx, dy] = DIRECTIONS[k % DIRECTIONS.length];
  const cx = x + r * dx;
  out[0] = dx >= 0 ? cx : cx - w;  // the box's side facing the point sits on the ring
  out[1] = y + r * dy - h / 2;
  return true;
}


/** Distance from (px, py) to box b (0 inside). */
function boxDistance(b, px, py) {
  const dx = Math.max(b.x - px, 0, px - (b.x + b.w)), dy = Math.max(b.y - py, 0, py - (b.y + b.h));
  return Math.hypot(dx, dy);
}

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
function segmentDistance(ax, ay, bx, by, px, py) {
  const vx = bx - ax, vy = by - ay, len2 = vx * vx + vy * vy;
  const t = len2 ? Math.max(0, Math.min(1, ((px - ax) * vx + (py - ay) * vy) / len2)) : 0;
  return Math.hypot(ax + t * vx - px, ay + t * vy - py);
}

export function placeLabels(items, { width, height, margin = 2, others = [] } = {}) {
  const n = items.length;
  // every point a label must not be taken for: the labelled ones and the others
  const points = [...items, ...others].filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  // crowded first: the number of other points within 60 px
  const crowd = items.map((a) => items.reduce((m, b) => m + (Math.hypot(a.x - b.x, a.y - b.y) < 60 ? 1 : 0), 0));
  const order = items.map((_, i) => i).sort((i, j) => crowd[j] - crowd[i] || items[i].y - items[j].y || i - j);
  const placed = new Array(n).fill(null);
  const boxes = [];
  const at = [0, 0];
  const free = (bx, by, w, h, own, leader) => {
    if (bx < margin || by < margin || bx + w > width - margin || by + h > height - margin) return false;
    for (const b of boxes) if (bx < b.x + b.w && b.x < bx + w && by < b.y + b.h && b.y < by + h) return false;
    const box = { x: bx, y: by, w, h };
    const end = nearestOnBox(box, own.x, own.y);
    const mine = boxDistance(box, own.x, own.y);
    for (const p of points) {
      if (p === own) continue;
      // a box over another point hides it; a box beside two points names neither
      const d = boxDistance(box, p.x, p.y);
      if (d <= POINT_R) return false;
      if (!leader && d < mine + GAP) return false;
      // a point whose dot touches this one's cannot be told apart by any line: only the others count
      if (leader && Math.hypot(p.x - own.x, p.y - own.y) > 2 * POINT_R + 1 &&
          segmentDistance(own.x, own.y, end.x, end.y, p.x, p.y) < CLEAR) return false;
    }
    return true;
  };
  for (const i of order) {
    const { x, y, w, h } = items[i];
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    let chosen = null;
    for (let c = 0; c < COUNT; c++) {
      const leader = candidate(c, x, y, w, h, at);
      if (free(at[0], at[1], w, h, items[i], leader)) {
        chosen = { x: at[0], y: at[1], w, h, leader };
        break;
      }
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

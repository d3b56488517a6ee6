// views/label-placement.js: where to print the words of a scatter plot so that no two labels overlap,
// and a label never covers another word's point when there is room elsewhere. Pure geometry, no
// DOM (tests/label-placement.test.js checks it).
//
//   const placed = placeLabels(items, { width, height });
//   // items: [{ x, y, w, h, shortW? }]: a point (pixels) and the size of its label; shortW, the
//   // width of a shorter form of it (the word without its gloss), tried when the label finds no room
//   // placed[i]: { x, y, w, h, leader, short? } the label's box (top-left; short: the shorter form),
//   // or null when it found no room
//   // (the hover readout still names that word); leader: true when the box sits away from its
//   // point, and a line should join them
//
// Greedy, nearest first: each label tries the 8 places around its point, then rings further out
// (32 directions each, starting from the one away from its neighbours, so that lines fan out); the
// first box that stays inside the plot, overlaps no placed label nor leader line, covers no other
// point, and points unambiguously at its own point wins. Unambiguous: a label beside its point is
// nearer to it than to any other point (by GAP px); a label with a leader line has a line that
// passes no other point's disc closer than CLEAR px. A line that crosses no placed label nor line is
// preferred: labels that cannot have one are placed after all that can. `others` are points without
// a label (the plot's grey words), which labels must not point at either; a point may give its
// radius r (POINT_R else). An item that names several dots that touch (`dots: [{ x, y, r }]`) is
// placed for their centre (x, y), and its lines need not avoid them. Labels are placed in order
// of how crowded their neighbourhood is, so the crowded ones pick first; one with no such place
// tries its shorter form, else is left out (the hover names it).

const NEAR = 6;                        // gap between a point and a label beside it
const RINGS = [16, 22, 28, 35, 42, 50, 58, 67, 76, 86, 96, 108, 120, 135, 150, 170, 190];
const POINT_R = 5;                     // a point's radius, unless it gives its own (r)
const GAP = 8;                         // a label beside its point: this much nearer to it than to any other
const CLEAR = 1.5;                     // a label or a leader line keeps this clear of any other point's disc

// the 8 places beside a point (offsets of the box's top-left, in units of NEAR, w and h), then
// 16 directions on each ring
const BESIDE = [[1, 0, 0, -0.5], [-1, -1, 0, -0.5], [0, -0.5, -1, -1], [0, -0.5, 1, 0],
  [1, 0, -1, -1], [1, 0, 1, 0], [-1, -1, -1, -1], [-1, -1, 1, 0]];
const DIRECTIONS = Array.from({ length: 32 }, (_, k) => [Math.cos((k / 32) * 2 * Math.PI), Math.sin((k / 32) * 2 * Math.PI)]);
const COUNT = BESIDE.length + RINGS.length * DIRECTIONS.length;

// on a ring, directions nearest the preferred one first: 0, +1, −1, +2, −2, …
const FAN = Array.from({ length: DIRECTIONS.length }, (_, k) => (k % 2 ? (k + 1) / 2 : -k / 2));

/**
 * Candidate c (0 … COUNT−1) for a w×h label of the point (x, y): writes its top-left into out; true
 * for a leader. On the rings, directions start at `away` (an index into DIRECTIONS: away from the
 * crowd), so that leader lines fan out rather than cross.
 */
function candidate(c, x, y, w, h, out, away = 0) {
  if (c < BESIDE.length) {
    const [nx, wx, ny, hy] = BESIDE[c];
    out[0] = x + nx * NEAR + wx * w;
    out[1] = y + ny * NEAR + hy * h;
    return false;
  }
  const k = c - BESIDE.length;
  const r = RINGS[Math.floor(k / DIRECTIONS.length)];
  const m = DIRECTIONS.length;
  const [dx, dy] = DIRECTIONS[(((away + FAN[k % m]) % m) + m) % m];
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

/** True when the segments a–b and c–d cross (touching ends count). */
function segmentsCross(ax, ay, bx, by, cx, cy, dx, dy) {
  const side = (px, py, qx, qy, rx, ry) => Math.sign((qx - px) * (ry - py) - (qy - py) * (rx - px));
  return side(ax, ay, bx, by, cx, cy) !== side(ax, ay, bx, by, dx, dy) &&
    side(cx, cy, dx, dy, ax, ay) !== side(cx, cy, dx, dy, bx, by);
}

/** True when the segment a–b enters box b (shrunk by 1 px, so a line ending on its side does not count). */
function segmentEntersBox(ax, ay, bx, by, box) {
  const x0 = box.x + 1, y0 = box.y + 1, x1 = box.x + box.w - 1, y1 = box.y + box.h - 1;
  if (x1 <= x0 || y1 <= y0) return false;
  const inside = (x, y) => x > x0 && x < x1 && y > y0 && y < y1;
  if (inside(ax, ay) || inside(bx, by)) return true;
  return segmentsCross(ax, ay, bx, by, x0, y0, x1, y0) || segmentsCross(ax, ay, bx, by, x1, y0, x1, y1) ||
    segmentsCross(ax, ay, bx, by, x1, y1, x0, y1) || segmentsCross(ax, ay, bx, by, x0, y1, x0, y0);
}

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
function segmentDistance(ax, ay, bx, by, px, py) {
  const vx = bx - ax, vy = by - ay, len2 = vx * vx + vy * vy;
  const t = len2 ? Math.max(0, Math.min(1, ((px - ax) * vx + (py - ay) * vy) / len2)) : 0;
  return Math.hypot(ax + t * vx - px, ay + t * vy - py);
}

export function placeLabels(items, { width, height, margin = 2, others = [] } = {}) {
  const n = items.length;
  // every point a label must not be taken for: the labelled ones (an item's own dots, where it
  // names several) and the others; owner: the item a point belongs to (−1: none)
  const points = [...items.flatMap((it, i) => (it.dots || [it]).map((d) => ({ x: d.x, y: d.y, r: d.r, owner: i }))),
    ...others.map((d) => ({ x: d.x, y: d.y, r: d.r, owner: -1 }))].filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  // crowded first: the number of other points within 60 px
  const crowd = items.map((a) => items.reduce((m, b) => m + (Math.hypot(a.x - b.x, a.y - b.y) < 60 ? 1 : 0), 0));
  const order = items.map((_, i) => i).sort((i, j) => crowd[j] - crowd[i] || items[i].y - items[j].y || i - j);
  const placed = new Array(n).fill(null);
  const boxes = [];
  const lines = [];  // the leader lines placed so far: [x0, y0, x1, y1]
  const at = [0, 0];
  const free = (bx, by, w, h, i, leader, strict) => {
    const own = items[i];
    const ownDots = points.filter((p) => p.owner === i);
    if (bx < margin || by < margin || bx + w > width - margin || by + h > height - margin) return false;
    for (const b of boxes) if (bx < b.x + b.w && b.x < bx + w && by < b.y + b.h && b.y < by + h) return false;
    const box = { x: bx, y: by, w, h };
    // a label never sits on another's leader line, and its own line crosses no label nor line
    for (const l of lines) if (segmentEntersBox(l[0], l[1], l[2], l[3], box)) return false;
    const end = nearestOnBox(box, own.x, own.y);
    if (leader && strict) {
      for (const b of boxes) if (segmentEntersBox(own.x, own.y, end.x, end.y, b)) return false;
      for (const l of lines) if (segmentsCross(own.x, own.y, end.x, end.y, l[0], l[1], l[2], l[3])) return false;
    }
    const mine = boxDistance(box, own.x, own.y);
    // a leader line starts outside the point's dots: there must be room for it before the box
    if (leader && mine <= leaderStart(ownDots, own.x, own.y)) return false;
    for (const p of points) {
      if (p.owner === i) continue;
      // a box over another point hides it; a box beside two points names neither
      const d = boxDistance(box, p.x, p.y);
      const r = p.r ?? POINT_R;
      if (d <= r + CLEAR) return false;
      if (!leader && d < mine + GAP) return false;
      // a point whose dot touches this one's cannot be told apart by any line: only the others count
      if (leader && ownDots.every((o) => Math.hypot(p.x - o.x, p.y - o.y) > (o.r ?? POINT_R) + r + 1) &&
          segmentDistance(own.x, own.y, end.x, end.y, p.x, p.y) < r + CLEAR) return false;
    }
    return true;
  };
  // the direction away from the points within 60 px (their mean), as an index into DIRECTIONS
  const awayFrom = ({ x, y }) => {
    let sx = 0, sy = 0;
    for (const p of points) {
      if (p.x === x && p.y === y) continue;
      const d = Math.hypot(p.x - x, p.y - y);
      if (d < 60 && d > 0) { sx += (x - p.x) / d; sy += (y - p.y) / d; }
    }
    if (sx === 0 && sy === 0) return 0;
    const m = DIRECTIONS.length;
    return ((Math.round((Math.atan2(sy, sx) / (2 * Math.PI)) * m) % m) + m) % m;
  };
  const place = (i, w, short, strict) => {
    const { x, y, h } = items[i];
    const away = awayFrom(items[i]);
    for (let c = 0; c < COUNT; c++) {
      const leader = candidate(c, x, y, w, h, at, away);
      if (free(at[0], at[1], w, h, i, leader, strict)) {
        const chosen = { x: at[0], y: at[1], w, h, leader, ...(short ? { short: true } : {}) };
        placed[i] = chosen;
        boxes.push(chosen);
        if (leader) {
          const end = nearestOnBox(chosen, x, y);
          lines.push([x, y, end.x, end.y]);
        }
        return;
      }
    }
  };
  // first every label whose leader line would cross no label nor line, then those whose line
  // must cross one; then, for the ones still left out, the shorter form (the word without its gloss)
  const finite = (i) => Number.isFinite(items[i].x) && Number.isFinite(items[i].y);
  for (const [short, strict] of [[false, true], [false, false], [true, true], [true, false]]) {
    for (const i of order) {
      if (placed[i] || !finite(i)) continue;
      if (!short) place(i, items[i].w, false, strict);
      else if (items[i].shortW > 0 && items[i].shortW < items[i].w) place(i, items[i].shortW, true, strict);
    }
  }
  return placed;
}

/**
 * How far from (x, y), a point (the middle of the dots it stands for), its leader line starts:
 * past the farthest of those dots' discs ({ x, y, r }; r defaults to 5), and a pixel more.
 */
export function leaderStart(dots, x, y) {
  return Math.max(...dots.map((d) => Math.hypot(d.x - x, d.y - y) + (d.r ?? POINT_R))) + 1;
}

/** The point of box b nearest to (x, y): where a leader line from the point ends. */
export function nearestOnBox(b, x, y) {
  return { x: Math.max(b.x, Math.min(x, b.x + b.w)), y: Math.max(b.y, Math.min(y, b.y + b.h)) };
}

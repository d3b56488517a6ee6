// label-placement.test.js: the scatter's labels (web/page/views/label-placement.js) never overlap one
// another and stay inside the plot, for spread-out words, for words that gathered into one spot,
// and at a phone's width; a label moved away from its point asks for a leader line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeLabels, nearestOnBox } from '../web/page/views/label-placement.js';

const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** A seeded generator (mulberry32), so a failure names a case that can be run again. */
function random(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function check(items, size, label) {
  const placed = placeLabels(items, size);
  const boxes = placed.filter(Boolean);
  for (let i = 0; i < boxes.length; i++) {
    const b = boxes[i];
    assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= size.width && b.y + b.h <= size.height, `${label}: box ${i} inside`);
    for (let j = i + 1; j < boxes.length; j++) assert.ok(!overlap(b, boxes[j]), `${label}: boxes ${i} and ${j} overlap`);
  }
  placed.forEach((b, i) => {
    if (!b) return;
    assert.equal(b.w, items[i].w);
    // beside its point, or marked for a leader line
    const end = nearestOnBox(b, items[i].x, items[i].y);
    const gap = Math.hypot(end.x - items[i].x, end.y - items[i].y);
    if (!b.leader) assert.ok(gap <= 12, `${label}: label ${i} sits ${gap.toFixed(1)} px away without a leader`);
  });
  return placed;
}

test('spread-out and gathered words: no two labels overlap, all inside the plot', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rnd = random(seed);
    const size = { width: 460, height: 460 };
    const gathered = seed % 2 === 0;
    const items = Array.from({ length: 14 }, () => ({
      x: gathered ? 200 + rnd() * 40 : 20 + rnd() * 420,
      y: gathered ? 220 + rnd() * 40 : 20 + rnd() * 420,
      w: 30 + Math.round(rnd() * 60), h: 16,
    }));
    const placed = check(items, size, `seed ${seed}`);
    assert.equal(placed.filter(Boolean).length, items.length, `seed ${seed}: every label found room`);
  }
});

test('a phone\'s scatter (about 300 px): glossed English labels of a tight cluster still fit, with leaders', () => {
  const words = ['猫 cat', '狗 dog', '兔 rabbit', '鸟 bird', '汽车 car', '卡车 truck', '国王 king', '女王 queen', '男人 man', '女人 woman'];
  const items = words.map((w, i) => ({ x: 140 + (i % 4) * 6, y: 150 + Math.floor(i / 4) * 5, w: w.length * 7 + 4, h: 16 }));
  const placed = check(items, { width: 300, height: 300 }, 'phone');
  assert.equal(placed.filter(Boolean).length, words.length);
  assert.ok(placed.some((b) => b.leader), 'a cluster this tight needs leader lines');
});

test('labels that cannot fit are left out (the hover names them), never drawn over another', () => {
  const items = Array.from({ length: 60 }, (_, i) => ({ x: 30 + (i % 6), y: 30, w: 40, h: 16 }));
  const placed = check(items, { width: 80, height: 80 }, 'crowded');
  assert.ok(placed.some((b) => b === null));
});

/** Distance from (px, py) to box b (0 inside), and to the segment a–b. */
const boxDistance = (b, px, py) => Math.hypot(Math.max(b.x - px, 0, px - (b.x + b.w)), Math.max(b.y - py, 0, py - (b.y + b.h)));
function segmentDistance(a, b, p) {
  const vx = b.x - a.x, vy = b.y - a.y, len2 = vx * vx + vy * vy;
  const t = len2 ? Math.max(0, Math.min(1, ((p.x - a.x) * vx + (p.y - a.y) * vy) / len2)) : 0;
  return Math.hypot(a.x + t * vx - p.x, a.y + t * vy - p.y);
}
const DOT = 5;  // the scatter's dot radius (embedding-scatter.js draws 5 px; a grey word's, 3, is given as r)

/** Every placed label points at its own dot only: see the rule in label-placement.js. */
function checkUnambiguous(items, placed, others, label) {
  const dots = [...items, ...others];
  placed.forEach((b, i) => {
    if (!b) return;
    const own = items[i];
    const end = nearestOnBox(b, own.x, own.y);
    const mine = boxDistance(b, own.x, own.y);
    for (const p of dots) {
      if (p === own) continue;
      const d = boxDistance(b, p.x, p.y), r = p.r ?? DOT;
      assert.ok(d > r, `${label}: label ${i} covers the dot at (${p.x.toFixed(0)}, ${p.y.toFixed(0)})`);
      if (!b.leader) assert.ok(d > mine, `${label}: label ${i} (no leader) is as near another dot (${d.toFixed(1)}) as its own (${mine.toFixed(1)})`);
      // a leader line passes no other dot (one whose disc touches its own cannot be told apart by any line)
      else if (Math.hypot(p.x - own.x, p.y - own.y) > DOT + r + 1) {
        assert.ok(segmentDistance(own, end, p) > r, `${label}: label ${i}'s leader line runs through another dot`);
      }
    }
  });
}

test('every label points at its own dot only: beside it, nearer it than any other dot; or by a leader line that crosses no other dot (the dense cluster of the car preset)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rnd = random(seed);
    const size = { width: 460, height: 460 };
    // a dense cluster (as 猫, 香蕉, 汽车, 卡车, 萝卜 and 鸟 gather at seed 1, 1,500 steps) among grey words
    const items = Array.from({ length: 12 }, () => ({ x: 200 + rnd() * 60, y: 200 + rnd() * 60, w: 20 + Math.round(rnd() * 50), h: 16 }));
    const others = Array.from({ length: 30 }, () => ({ x: 150 + rnd() * 160, y: 150 + rnd() * 160, r: 3 }));
    const placed = check(items, size, `seed ${seed}`);
    const withOthers = placeLabels(items, { ...size, others });
    checkUnambiguous(items, withOthers, others, `seed ${seed}, grey words`);
    checkUnambiguous(items, placed, [], `seed ${seed}`);
    assert.ok(withOthers.filter(Boolean).length >= items.length - 2, `seed ${seed}: most labels found room (${withOthers.filter(Boolean).length} of ${items.length})`);
  }
});

// A label may stand for dots that touch (the scatter names them together, "兔 · 女人", from their
// middle). Its leader line starts outside all of their discs, so a box must leave room for it
// there: one placed nearer would have a line with nothing to draw (the scatter then drew none,
// and the label sat as near a grey word's dot as its own).
test('a label for dots that touch, pushed away, leaves room for its leader line outside all of them', () => {
  let leaders = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const rnd = random(seed);
    const size = { width: 460, height: 460 };
    const items = Array.from({ length: 12 }, () => {
      const x = 200 + rnd() * 60, y = 200 + rnd() * 60, a = rnd() * 2 * Math.PI;
      const dots = [{ x: x - 4 * Math.cos(a), y: y - 4 * Math.sin(a), r: DOT }, { x: x + 4 * Math.cos(a), y: y + 4 * Math.sin(a), r: DOT }];
      return { x, y, w: 20 + Math.round(rnd() * 50), h: 16, dots };
    });
    const others = Array.from({ length: 30 }, () => ({ x: 150 + rnd() * 160, y: 150 + rnd() * 160, r: 3 }));
    placeLabels(items, { ...size, others }).forEach((b, i) => {
      if (!b || !b.leader) return;
      leaders++;
      const own = items[i];
      const start = Math.max(...own.dots.map((d) => Math.hypot(d.x - own.x, d.y - own.y) + d.r)) + 1;
      const room = boxDistance(b, own.x, own.y);
      assert.ok(room > start, `seed ${seed}: label ${i}'s box is ${room.toFixed(1)} px from its dots' middle, its line would start at ${start.toFixed(1)}`);
    });
  }
  assert.ok(leaders > 20, `leader lines were asked for (${leaders})`);
});

// views/charts/capped-series.js: a growing series of chart points with a cap.
/**
 * A growing series with a cap: when it holds more than `max` points, every other point is dropped
 * and from then on only every stride-th step is kept, so a long run costs the chart a bounded
 * number of points while its whole shape stays visible.
 */
export class CappedSeries {
  constructor(max = 600) {
    this.max = max;
    this.reset();
  }

  reset() {
    this.points = [];
    this.stride = 1;
  }

  push(x, y) {
    if (x % this.stride !== 0) return false;
    this.points.push({ x, y });
    if (this.points.length > this.max) {
      this.stride *= 2;
      this.points = this.points.filter((p) => p.x % this.stride === 0);
    }
    return true;
  }
}

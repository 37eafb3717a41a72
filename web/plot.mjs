// The page's plot area: draws what web/plot.py sends (through web/worker.mjs) on a canvas: series of points as
// lines, autoscaled axes with their ranges, a legend and a title. Redraws at most once per frame while a program
// runs, so a loss curve grows as the model trains. The canvas's dataset.points counts the points drawn (for tests).
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];

export class Plot {
  constructor(canvas) {
    this.canvas = canvas;
    this.clear();
  }

  clear() {
    this.series = new Map(); // name -> {x: [], y: []}
    this.title = '';
    this.schedule();
  }

  /** items: [{kind: 'point' | 'line' | 'title' | 'clear', series, x, y}] */
  apply(items) {
    for (const { kind, series, x, y } of items) {
      if (kind === 'clear') this.clear();
      else if (kind === 'title') this.title = series;
      else {
        if (kind === 'line' || !this.series.has(series)) this.series.set(series, { x: [], y: [] });
        const s = this.series.get(series);
        s.x.push(...x);
        s.y.push(...y);
      }
    }
    this.schedule();
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  draw() {
    const c = this.canvas, g = c.getContext('2d');
    const W = c.width, H = c.height, L = 56, R = 12, T = 24, B = 28;
    g.fillStyle = '#fff';
    g.fillRect(0, 0, W, H);
    let n = 0, x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of this.series.values()) {
      s.x.forEach((v, i) => {
        const w = s.y[i];
        if (!Number.isFinite(v) || !Number.isFinite(w)) return;
        n++;
        x0 = Math.min(x0, v); x1 = Math.max(x1, v); y0 = Math.min(y0, w); y1 = Math.max(y1, w);
      });
    }
    c.dataset.points = String(n);
    c.hidden = n === 0 && !this.title;
    if (!n) return;
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { y0 -= 1; y1 += 1; }
    const px = (v) => L + ((v - x0) / (x1 - x0)) * (W - L - R), py = (v) => H - B - ((v - y0) / (y1 - y0)) * (H - T - B);
    g.strokeStyle = '#999';
    g.strokeRect(L, T, W - L - R, H - T - B);
    g.fillStyle = '#333';
    g.font = '11px system-ui, sans-serif';
    const fmt = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : String(+v.toPrecision(4)));
    g.textAlign = 'right';
    g.fillText(fmt(y1), L - 4, T + 8);
    g.fillText(fmt(y0), L - 4, H - B);
    g.textAlign = 'center';
    g.fillText(fmt(x0), L, H - B + 14);
    g.fillText(fmt(x1), W - R, H - B + 14);
    if (this.title) { g.font = '13px system-ui, sans-serif'; g.fillText(this.title, W / 2, 16); }
    let k = 0;
    for (const [name, s] of this.series) {
      const color = COLORS[k % COLORS.length];
      g.strokeStyle = color;
      g.lineWidth = 1.5;
      g.beginPath();
      let started = false;
      s.x.forEach((v, i) => {
        if (!Number.isFinite(v) || !Number.isFinite(s.y[i])) { started = false; return; }
        if (started) g.lineTo(px(v), py(s.y[i])); else g.moveTo(px(v), py(s.y[i]));
        started = true;
      });
      g.stroke();
      g.fillStyle = color;
      g.textAlign = 'left';
      g.fillText(name, L + 8, T + 14 + 14 * k);
      k++;
    }
  }
}

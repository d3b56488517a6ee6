// pca.js: the principal axes of a table's rows, in double: what Model.project2d (model.js) projects
// the embeddings on, and the cyclic Jacobi eigen-solver under it (which the counting baseline's
// PPMI-SVD, web/page/training/counting.js, uses too). Not part of the package's API.

/** a · b over their length */
export function dot(a, b) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * The first k principal axes of the V rows of the V×d table `data` (row-major, float32 or
 * float64), centred over the rows: { axes (k unit Float64Arrays of length d, largest variance
 * first; fewer when min(V, d) < k), centredRow(i) (row i minus the mean, in one reused array:
 * read it before the next call), mean }. Signs are the solver's: the caller chooses its own.
 * The solver works on the smaller of the d×d covariance and the V×V Gram matrix (the same
 * non-zero eigenvalues; a Gram eigenvector u gives the axis Cᵀu / |Cᵀu|), so a wide table (dim
 * 1024 over a small vocabulary) costs V³, not d³.
 */
export function principalAxes(data, V, d, k) {
  const mean = new Float64Array(d);
  for (let i = 0; i < V; i++) for (let j = 0; j < d; j++) mean[j] += data[i * d + j] / V;
  // a row of the centred table, made when needed (the same doubles a V×d copy would hold): a
  // 9,000-word table's copy was 1.1 MB of garbage per projection, and the page projects every step
  const row = new Float64Array(d);
  const centredRow = (i) => {
    for (let j = 0; j < d; j++) row[j] = data[i * d + j] - mean[j];
    return row;
  };
  let axes;
  if (d <= V) {
    const cov = new Float64Array(d * d);
    for (let i = 0; i < V; i++) {
      const x = centredRow(i);
      for (let p = 0; p < d; p++) {
        const xp = x[p];
        for (let q = p; q < d; q++) cov[p * d + q] += xp * x[q];
      }
    }
    for (let p = 0; p < d; p++) for (let q = 0; q < p; q++) cov[p * d + q] = cov[q * d + p];
    axes = topEigenvectors(cov, d, Math.min(k, d));
  } else {
    const centred = new Float64Array(V * d);
    for (let i = 0; i < V; i++) centred.set(centredRow(i), i * d);
    const gram = new Float64Array(V * V);
    for (let a = 0; a < V; a++) {
      for (let b = a; b < V; b++) {
        let sum = 0;
        for (let j = 0; j < d; j++) sum += centred[a * d + j] * centred[b * d + j];
        gram[a * V + b] = sum;
        gram[b * V + a] = sum;
      }
    }
    axes = topEigenvectors(gram, V, Math.min(k, V)).map((u) => {
      const axis = new Float64Array(d);
      for (let i = 0; i < V; i++) for (let j = 0; j < d; j++) axis[j] += u[i] * centred[i * d + j];
      const norm = Math.sqrt(dot(axis, axis));
      for (let j = 0; j < d; j++) axis[j] = norm > 0 ? axis[j] / norm : 0;
      return axis;
    });
  }
  return { axes, centredRow, mean };
}

/**
 * The k eigenvectors of the symmetric d×d matrix A with the largest eigenvalues (cyclic Jacobi).
 * The counting baseline's PPMI-SVD (web/page/training/counting.js) uses it too.
 */
export function topEigenvectors(A, d, k) {
  const a = Float64Array.from(A);
  const v = new Float64Array(d * d);
  for (let i = 0; i < d; i++) v[i * d + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0, total = 0;
    for (let p = 0; p < d; p++) for (let q = 0; q < d; q++) {
      total += a[p * d + q] ** 2;
      if (p !== q) off += a[p * d + q] ** 2;
    }
    if (off <= 1e-22 * total || off === 0) break;
    for (let p = 0; p < d - 1; p++) {
      for (let q = p + 1; q < d; q++) {
        const apq = a[p * d + q];
        if (apq === 0) continue;
        const theta = (a[q * d + q] - a[p * d + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let r = 0; r < d; r++) {  // A <- A J (columns p, q)
          const arp = a[r * d + p], arq = a[r * d + q];
          a[r * d + p] = c * arp - s * arq;
          a[r * d + q] = s * arp + c * arq;
        }
        for (let r = 0; r < d; r++) {  // A <- J^T A (rows p, q)
          const apr = a[p * d + r], aqr = a[q * d + r];
          a[p * d + r] = c * apr - s * aqr;
          a[q * d + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < d; r++) {  // V <- V J
          const vrp = v[r * d + p], vrq = v[r * d + q];
          v[r * d + p] = c * vrp - s * vrq;
          v[r * d + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const order = Array.from({ length: d }, (_, i) => i).sort((x, y) => a[y * d + y] - a[x * d + x] || x - y);
  return order.slice(0, k).map((col) => {
    const out = new Float64Array(d);
    for (let r = 0; r < d; r++) out[r] = v[r * d + col];
    return out;
  });
}

/**
 * Delaunay triangulation (Bowyer-Watson) of a few hundred points: the custom face's mesh over its 468
 * landmarks plus a frame of fixed points around them. O(n^2), run once per face (a few ms for ~520 points).
 * Returns triangles as index triples into `pts`.
 */
export function delaunay(pts: ReadonlyArray<readonly [number, number]>): number[] {
  const n = pts.length;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of pts) { minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); }
  const d = Math.max(maxX - minX, maxY - minY) * 20, cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
  // A super-triangle around everything (indices n, n+1, n+2), removed at the end.
  const P: Array<readonly [number, number]> = [...pts, [cx - d, cy - d], [cx + d, cy - d], [cx, cy + d]];
  type Tri = { a: number; b: number; c: number; x: number; y: number; r2: number };
  const tri = (a: number, b: number, c: number): Tri => {
    const [ax, ay] = P[a], [bx, by] = P[b], [qx, qy] = P[c];
    const D = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by)) || 1e-12;
    const x = ((ax * ax + ay * ay) * (by - qy) + (bx * bx + by * by) * (qy - ay) + (qx * qx + qy * qy) * (ay - by)) / D;
    const y = ((ax * ax + ay * ay) * (qx - bx) + (bx * bx + by * by) * (ax - qx) + (qx * qx + qy * qy) * (bx - ax)) / D;
    return { a, b, c, x, y, r2: (ax - x) ** 2 + (ay - y) ** 2 };
  };
  let tris: Tri[] = [tri(n, n + 1, n + 2)];
  for (let i = 0; i < n; i++) {
    const [px, py] = P[i];
    const edges = new Map<number, [number, number]>();
    const keep: Tri[] = [];
    for (const t of tris) {
      if ((px - t.x) ** 2 + (py - t.y) ** 2 <= t.r2 * (1 + 1e-9)) {
        // An edge shared by two removed triangles is inside the hole: it cancels out.
        for (const [u, v] of [[t.a, t.b], [t.b, t.c], [t.c, t.a]]) {
          const k = Math.min(u, v) * (n + 3) + Math.max(u, v);
          if (edges.has(k)) edges.delete(k); else edges.set(k, [u, v]);
        }
      } else keep.push(t);
    }
    for (const [u, v] of edges.values()) keep.push(tri(u, v, i));
    tris = keep;
  }
  const out: number[] = [];
  for (const t of tris) if (t.a < n && t.b < n && t.c < n) out.push(t.a, t.b, t.c);
  return out;
}

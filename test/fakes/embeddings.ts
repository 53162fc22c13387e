// Deterministic fake embeddings: a hashed bag of words, L2-normalised, so texts sharing words
// point the same way and similarity search behaves sensibly in tests.
export const FAKE_EMBEDDING_DIMS = 64;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
  return h;
}

export function fakeEmbedding(text: string, dims = FAKE_EMBEDDING_DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = fnv1a(word);
    v[h % dims] += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  // An empty text still gets a unit vector, as real providers never return zeros.
  if (norm === 0) { v[0] = 1; return v; }
  return v.map((x) => x / norm);
}

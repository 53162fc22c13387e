/**
 * Vector rows for exact search with a quantised first pass. Each row is kept twice: in float32 (for the
 * exact score) and as int8 with a per-row scale (max |x| / 127) in WebAssembly memory, where a SIMD kernel
 * scans it. The int8 scan reads a quarter of the bytes of a float32 scan, and the scan is bound by memory
 * bandwidth: 100k 512-d rows are 51 MB per query instead of 205 MB.
 *
 * The module (WebAssembly SIMD, in every Node since 16) is this, in text form:
 *   (memory (export "mem") 1)
 *   (func (export "dots8") (param $data i32) (param $q i32) (param $n i32) (param $stride i32) (param $out i32)
 *     for each of $n rows of $stride int8 at $data: per 16 bytes, v128.load, i16x8.extend_low_i8x16_s and
 *     i16x8.extend_high_i8x16_s, i32x4.dot_i16x8_s with the query (stored already widened to int16, 32 bytes
 *     per step), i32x4.add into two accumulators; summed lanes stored as one i32 at $out, $out += 4)
 * Rows are padded with zeros to a multiple of 16 bytes, which leaves every dot product unchanged. Sums fit
 * in i32: |127 * 127| * 4096 dimensions is about 66 million. Encoded by hand (no build step); the tests
 * compare the search with plain JS arithmetic.
 */
const WASM = 'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcPAgNtZW0CAAVkb3RzOAAACs4BAcsBAgN/A3sgBCACQQJ0aiEFAkAgBCAFTw0AA0AgACADaiEGIAEhB/0MAAAAAAAAAAAAAAAAAAAAACEI/QwAAAAAAAAAAAAAAAAAAAAAIQkDQCAA/QAAACEKIAggCv2HASAH/QAEAP26Af2uASEIIAkgCv2IASAH/QAEEP26Af2uASEJIABBEGohACAHQSBqIQcgACAGSQ0ACyAIIAn9rgEhCCAEIAj9GwAgCP0bAWogCP0bAmogCP0bA2o2AgAgBEEEaiIEIAVJDQALCws=';

let compiled: WebAssembly.Module | null = null;

/** Rows scored per kernel call; the scores buffer holds this many i32. */
export const BLOCK = 1024;
const PAGE = 65536;

export class VectorMatrix {
  /** Bytes per int8 row (the dimension rounded up to 16). */
  readonly stride: number;
  private mem: WebAssembly.Memory;
  private dots: (data: number, q: number, n: number, stride: number, out: number) => void;
  private i8!: Int8Array;
  private i16!: Int16Array;
  private i32!: Int32Array;
  private floats: Float32Array;
  private scales: Float32Array;
  private capacity = 0;
  // Byte offsets of the three regions in WebAssembly memory: query (int16), scores (i32), int8 rows.
  private readonly qAt = 0;
  private readonly outAt: number;
  private readonly dataAt: number;

  constructor(readonly dim: number, rows = 16) {
    compiled ??= new WebAssembly.Module(Buffer.from(WASM, 'base64'));
    const inst = new WebAssembly.Instance(compiled);
    this.mem = inst.exports.mem as WebAssembly.Memory;
    this.dots = inst.exports.dots8 as VectorMatrix['dots'];
    this.stride = Math.ceil(dim / 16) * 16;
    this.outAt = this.stride * 2;
    this.dataAt = this.outAt + BLOCK * 4;
    this.floats = new Float32Array(0);
    this.scales = new Float32Array(0);
    this.reserve(rows);
  }

  /** Bytes one row takes: float32 copy, int8 copy, scale. */
  get bytesPerRow(): number {
    return this.dim * 4 + this.stride + 4;
  }

  /** Makes room for `rows` rows (grows by doubling so appends stay amortised O(1)). */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const want = Math.max(rows, this.capacity * 2, 16);
    const pages = Math.ceil((this.dataAt + want * this.stride) / PAGE) - this.mem.buffer.byteLength / PAGE;
    if (pages > 0) this.mem.grow(pages);
    // Growing detaches the old ArrayBuffer: take new views.
    this.i8 = new Int8Array(this.mem.buffer);
    this.i16 = new Int16Array(this.mem.buffer);
    this.i32 = new Int32Array(this.mem.buffer);
    const floats = new Float32Array(want * this.dim);
    floats.set(this.floats);
    this.floats = floats;
    const scales = new Float32Array(want);
    scales.set(this.scales);
    this.scales = scales;
    this.capacity = want;
  }

  setRow(row: number, v: Float32Array): void {
    this.floats.set(v, row * this.dim);
    const at = this.dataAt + row * this.stride;
    this.scales[row] = quantise(v, this.dim, this.i8, at);
    this.i8.fill(0, at + this.dim, at + this.stride);
  }

  moveRow(from: number, to: number): void {
    this.floats.copyWithin(to * this.dim, from * this.dim, (from + 1) * this.dim);
    const src = this.dataAt + from * this.stride;
    this.i8.copyWithin(this.dataAt + to * this.stride, src, src + this.stride);
    this.scales[to] = this.scales[from];
  }

  /** Quantises the query for `approximate` (its own scale is left out: it is the same for every row). */
  setQuery(q: Float32Array): void {
    const at = this.qAt / 2;
    quantise(q, this.dim, this.i16, at);
    this.i16.fill(0, at + this.dim, at + this.stride);
  }

  /**
   * Approximate scores of rows [start, start + count) against the query, in `out` (count <= BLOCK):
   * the int8 dot product times the row's scale, proportional to the cosine up to quantisation error.
   */
  approximate(start: number, count: number, out: Float64Array): void {
    this.dots(this.dataAt + start * this.stride, this.qAt, count, this.stride, this.outAt);
    const o = this.outAt / 4;
    for (let j = 0; j < count; j++) out[j] = this.i32[o + j] * this.scales[start + j];
  }

  /** The exact dot product of one row with a float32 query. */
  exact(row: number, q: Float32Array): number {
    const f = this.floats;
    const at = row * this.dim;
    let s = 0;
    for (let d = 0; d < this.dim; d++) s += f[at + d] * q[d];
    return s;
  }
}

/** Writes round(x / scale) of each value at `out[at..]` (|result| <= 127) and returns the scale, max |x| / 127. */
function quantise(v: Float32Array, dim: number, out: Int8Array | Int16Array, at: number): number {
  let max = 0;
  for (let i = 0; i < dim; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max / 127;
  for (let i = 0; i < dim; i++) out[at + i] = scale ? Math.round(v[i] / scale) : 0;
  return scale;
}

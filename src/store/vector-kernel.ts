/**
 * Packed float32 rows in WebAssembly memory with a SIMD dot-product kernel: exact search over 100k
 * 256-d vectors is bound by memory bandwidth (~100 MB per scan) instead of by the JS loop (about 3x slower).
 *
 * The module (WebAssembly SIMD, in every Node since 16) is this, in text form:
 *   (memory (export "mem") 1)
 *   (func (export "dots") (param $data i32) (param $q i32) (param $n i32) (param $stride i32) (param $out i32)
 *     for each of $n rows of $stride floats at $data: two f32x4 accumulators over 8 floats per step
 *     (v128.load, f32x4.mul, f32x4.add), summed lanes stored as one f32 at $out, $out += 4)
 * Rows are padded with zeros to a multiple of 8 floats, which leaves every dot product unchanged.
 * Encoded by hand (no build step); the contract tests compare its results with plain JS arithmetic.
 */
const WASM = 'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcOAgNtZW0CAARkb3RzAAAKywEByAECA38CeyAEIAJBAnRqIQUCQCAEIAVPDQADQCAAIANBAnRqIQYgASEH/QwAAAAAAAAAAAAAAAAAAAAAIQj9DAAAAAAAAAAAAAAAAAAAAAAhCQNAIAggAP0ABAAgB/0ABAD95gH95AEhCCAJIAD9AAQQIAf9AAQQ/eYB/eQBIQkgAEEgaiEAIAdBIGohByAAIAZJDQALIAggCf3kASEIIAQgCP0fACAI/R8BkiAI/R8CkiAI/R8DkjgCACAEQQRqIgQgBUkNAAsLCw==';

let compiled: WebAssembly.Module | null = null;

/** Rows scored per kernel call; the scores buffer holds this many floats. */
export const BLOCK = 1024;
const PAGE = 65536;

export class VectorMatrix {
  readonly stride: number;
  private mem: WebAssembly.Memory;
  private dots: (data: number, q: number, n: number, stride: number, out: number) => void;
  private f32!: Float32Array;
  private capacity = 0;
  // Float offsets of the three regions: query, scores, rows.
  private readonly qAt = 0;
  private readonly outAt: number;
  private readonly dataAt: number;

  constructor(readonly dim: number, rows = 16) {
    compiled ??= new WebAssembly.Module(Buffer.from(WASM, 'base64'));
    const inst = new WebAssembly.Instance(compiled);
    this.mem = inst.exports.mem as WebAssembly.Memory;
    this.dots = inst.exports.dots as VectorMatrix['dots'];
    this.stride = Math.ceil(dim / 8) * 8;
    this.outAt = this.stride;
    this.dataAt = this.outAt + BLOCK;
    this.reserve(rows);
  }

  /** Makes room for `rows` rows (grows by doubling so appends stay amortised O(1)). */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const want = Math.max(rows, this.capacity * 2, 16);
    const bytes = (this.dataAt + want * this.stride) * 4;
    const pages = Math.ceil(bytes / PAGE) - this.mem.buffer.byteLength / PAGE;
    if (pages > 0) this.mem.grow(pages);
    // Growing detaches the old ArrayBuffer: take a new view.
    this.f32 = new Float32Array(this.mem.buffer);
    this.capacity = want;
  }

  setRow(row: number, v: Float32Array): void {
    const at = this.dataAt + row * this.stride;
    this.f32.set(v, at);
    this.f32.fill(0, at + this.dim, at + this.stride);
  }

  moveRow(from: number, to: number): void {
    const src = this.dataAt + from * this.stride;
    this.f32.copyWithin(this.dataAt + to * this.stride, src, src + this.stride);
  }

  setQuery(q: Float32Array): void {
    this.f32.set(q, this.qAt);
    this.f32.fill(0, this.qAt + this.dim, this.qAt + this.stride);
  }

  /** Dot products of rows [start, start + count) with the query; count <= BLOCK. A view, valid until the next call. */
  score(start: number, count: number): Float32Array {
    this.dots((this.dataAt + start * this.stride) * 4, this.qAt * 4, count, this.stride, this.outAt * 4);
    return this.f32.subarray(this.outAt, this.outAt + count);
  }
}

/**
 * Custom faces (face.skin { kind: custom }): the photo and its 468 landmarks from the server
 * (GET /api/v1/faces/{id}/image and /landmarks), drawn with WebGL as a textured triangle mesh that deform()
 * moves every frame. Neighbouring triangles share their vertices, so the photo never tears between them;
 * the opening between the lips darkens as the mouth opens, and the one between the lids takes the lid's skin
 * (sampled above the eye) as the eye shuts.
 */
import { buildMesh, deform, lidClose, type Mesh } from './mesh.js';
import type { Frame } from './motion.js';

const VS = `attribute vec2 p;attribute vec2 uv;attribute vec2 sk;attribute float m;attribute float e;uniform vec4 crop;varying vec2 t;varying vec2 s;varying float k;varying float l;
void main(){t=uv;s=sk;k=m;l=e;vec2 c=(p-crop.xy)/crop.zw;gl_Position=vec4(c.x*2.0-1.0,1.0-c.y*2.0,0.0,1.0);}`;
// The eye's inside becomes lid skin over the last half of a close, all skin once the lids are 90% down.
const FS = `precision mediump float;uniform sampler2D img;uniform float open;uniform float shut;varying vec2 t;varying vec2 s;varying float k;varying float l;
void main(){vec4 c=texture2D(img,t);c.rgb=mix(c.rgb,texture2D(img,s).rgb,l*smoothstep(0.5,0.9,shut));
gl_FragColor=vec4(mix(c.rgb,vec3(0.16,0.05,0.06),k*clamp(open*4.0,0.0,0.92)),c.a);}`;

export interface CustomFace { mount(host: HTMLElement): { draw(f: Frame): void; destroy(): void } }

export async function loadCustomFace(base: string, id: string): Promise<CustomFace> {
  const url = `${base}/api/v1/faces/${encodeURIComponent(id)}`;
  const [img, lm] = await Promise.all([
    new Promise<HTMLImageElement>((resolve, reject) => {
      const i = new Image();
      i.crossOrigin = 'anonymous';
      i.onload = () => resolve(i);
      i.onerror = () => reject(new Error(`the face image ${id} could not be loaded`));
      i.src = `${url}/image`;
    }),
    fetch(`${url}/landmarks`).then((r) => { if (!r.ok) throw new Error(`the face landmarks ${id} answered ${r.status}`); return r.json(); }),
  ]);
  const mesh = buildMesh(lm.landmarks, img.naturalWidth, img.naturalHeight);
  return { mount: (host) => mountGl(host, img, mesh) };
}

function mountGl(host: HTMLElement, img: HTMLImageElement, mesh: Mesh) {
  const canvas = document.createElement('canvas');
  const size = Math.round(Math.min(2, devicePixelRatio || 1) * (host.clientWidth || 160));
  canvas.width = canvas.height = size;
  const gl = canvas.getContext('webgl', { premultipliedAlpha: false, antialias: true });
  if (!gl) throw new Error('WebGL is not available');
  const sh = (type: number, src: string) => { const s = gl.createShader(type)!; gl.shaderSource(s, src); gl.compileShader(s); return s; };
  const prog = gl.createProgram()!;
  gl.attachShader(prog, sh(gl.VERTEX_SHADER, VS));
  gl.attachShader(prog, sh(gl.FRAGMENT_SHADER, FS));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new Error('the face shader did not compile');
  gl.useProgram(prog);
  // Triangles are drawn from expanded vertex arrays: the mouth and eye flags are per triangle.
  const n = mesh.tris.length;
  const uv = new Float32Array(n * 2), sk = new Float32Array(n * 2), flag = new Float32Array(n), eye = new Float32Array(n), pos = new Float32Array(n * 2);
  const W = img.naturalWidth, H = img.naturalHeight;
  for (let k = 0; k < n; k++) {
    const i = mesh.tris[k];
    uv[k * 2] = mesh.rest[i * 2] / W;
    uv[k * 2 + 1] = mesh.rest[i * 2 + 1] / H;
    sk[k * 2] = mesh.skin[i * 2] / W;
    sk[k * 2 + 1] = mesh.skin[i * 2 + 1] / H;
    flag[k] = mesh.inside[(k / 3) | 0];
    eye[k] = mesh.lid[(k / 3) | 0];
  }
  const buffer = (data: Float32Array, name: string, dim: number, usage: number) => {
    const b = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, usage);
    const loc = gl.getAttribLocation(prog, name);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, dim, gl.FLOAT, false, 0, 0);
    return b;
  };
  buffer(uv, 'uv', 2, gl.STATIC_DRAW);
  buffer(sk, 'sk', 2, gl.STATIC_DRAW);
  buffer(flag, 'm', 1, gl.STATIC_DRAW);
  buffer(eye, 'e', 1, gl.STATIC_DRAW);
  const posBuf = buffer(pos, 'p', 2, gl.DYNAMIC_DRAW);
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  for (const [k, v] of [[gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE], [gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE], [gl.TEXTURE_MIN_FILTER, gl.LINEAR], [gl.TEXTURE_MAG_FILTER, gl.LINEAR]]) gl.texParameteri(gl.TEXTURE_2D, k, v);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, img);
  const c = mesh.crop;
  gl.uniform4f(gl.getUniformLocation(prog, 'crop'), c.x, c.y, c.s, c.s);
  const uOpen = gl.getUniformLocation(prog, 'open'), uShut = gl.getUniformLocation(prog, 'shut');
  gl.viewport(0, 0, size, size);
  gl.clearColor(0, 0, 0, 0);
  const pts = new Float32Array(mesh.rest.length);
  let last = '';
  host.textContent = '';
  host.append(canvas);
  return {
    draw(f: Frame) {
      // Only when something visible changed: drawings that would not change are skipped.
      const key = [f.breathe, f.talk, f.jaw, f.blink, f.open, f.squint, f.smile, f.brow, f.tilt, f.head, f.gx, f.gy].map((v) => Math.round(v * 80)).join();
      if (key === last) return;
      last = key;
      deform(mesh, f, pts);
      for (let k = 0; k < n; k++) { const i = mesh.tris[k]; pos[k * 2] = pts[i * 2]; pos[k * 2 + 1] = pts[i * 2 + 1]; }
      gl.bindBuffer(gl.ARRAY_BUFFER, posBuf);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, pos);
      gl.uniform1f(uOpen, Math.min(1, f.jaw + f.talk));
      gl.uniform1f(uShut, lidClose(f));
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.drawArrays(gl.TRIANGLES, 0, n);
    },
    destroy() { gl.getExtension('WEBGL_lose_context')?.loseContext(); canvas.remove(); },
  };
}

/**
 * MediaPipe Face Mesh's browser files, served by this server from the @mediapipe/face_mesh package (no CDN):
 * ServiceChat.skinFromPhoto loads them on first use. Only the package's own runtime files are served.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { staticFolder } from './static.js';

const FILES = /^(face_mesh\.js|face_mesh\.binarypb|face_mesh_solution_packed_assets\.data|face_mesh_solution_packed_assets_loader\.js|face_mesh_solution_(simd_)?wasm_bin\.(js|wasm|data))$/;
const dir = dirname(createRequire(import.meta.url).resolve('@mediapipe/face_mesh/package.json'));

/** A day's cache: the files change only with the package version. */
export const faceMeshFiles = staticFolder(dir, { maxAgeSec: 86_400, allow: (name) => FILES.test(name) });

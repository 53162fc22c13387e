/**
 * Custom faces area (service-api.md, Custom faces). Upload is JSON: { name, image: base64 or data: URL,
 * landmarks: 468 x [x, y, z] }. The image and landmarks are also served publicly by face id, because the
 * widget on a visitor's page renders the face a published config names.
 */
import { z } from 'zod';
import { notFound } from '../../kernel/errors.js';
import { createFace, deleteFace, faceView, FaceUploadBody, findFacePublic, listFaces } from '../../faces/service.js';
import { extraRoute, reply, route, type ApiModule } from '../define.js';
import { listOf } from './list-schemas.js';

const FaceShape = z.object({
  id: z.string(), name: z.string(), createdAt: z.number(), width: z.number(), height: z.number(), contentType: z.string(),
  imageUrl: z.string(), landmarksUrl: z.string(),
});
const UPLOAD_LIMIT_BYTES = 8 * 1024 * 1024;

export const facesModule: ApiModule = {
  name: 'faces',
  routes: [
    route({ op: 'GET /api/v1/faces', response: listOf(FaceShape),
      handler: async ({ app, workspaceId }) => ({ items: (await listFaces(app, workspaceId)).map((f) => faceView(app, f)) }) }),
    route({ op: 'POST /api/v1/faces', body: FaceUploadBody, response: FaceShape, status: 201, bodyLimitBytes: UPLOAD_LIMIT_BYTES,
      handler: async (ctx) => {
        const face = await createFace(ctx.app, ctx.workspaceId, ctx.body);
        await ctx.audit('face.create', { type: 'face', id: face._id }, { name: face.name });
        return faceView(ctx.app, face);
      } }),
    route({ op: 'DELETE /api/v1/faces/{id}',
      handler: async (ctx) => {
        await deleteFace(ctx.app, ctx.workspaceId, ctx.params.id);
        await ctx.audit('face.delete', { type: 'face', id: ctx.params.id });
      } }),
    extraRoute({ method: 'GET', path: '/api/v1/faces/{id}/image', access: { kind: 'public' }, tag: 'Custom faces', cors: true,
      summary: 'the face image (resized), for the widget',
      produces: { contentTypes: ['image/*'], description: 'the resized face image' },
      handler: async ({ app, params }) => {
        const face = await findFacePublic(app, params.id);
        const file = face && (await app.store.files.get(face.workspaceId, face._id));
        if (!file) throw notFound('face');
        return reply({
          headers: { 'Content-Type': file.meta.contentType, 'Cache-Control': 'public, max-age=86400, immutable', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'" },
          body: file.data,
        });
      } }),
    extraRoute({ method: 'GET', path: '/api/v1/faces/{id}/landmarks', access: { kind: 'public' }, tag: 'Custom faces', cors: true,
      summary: 'the face landmarks (468 x [x, y, z]), for the widget',
      response: z.object({ id: z.string(), landmarks: z.array(z.tuple([z.number(), z.number(), z.number()])) }),
      handler: async ({ app, params }) => {
        const face = await findFacePublic(app, params.id);
        if (!face) throw notFound('face');
        return reply({ headers: { 'Cache-Control': 'public, max-age=86400, immutable' }, body: { id: face._id, landmarks: face.landmarks } });
      } }),
  ],
};

/** Webhooks area (service-api.md, Webhooks): endpoints, secret rotation, test ping, delivery log, redelivery. */
import { z } from 'zod';
import { WEBHOOK_EVENTS } from '../../events/webhooks/constants.js';
import { startWebhooks, type WebhookService } from '../../events/webhooks/index.js';
import { route, type ApiModule } from '../define.js';
import { listOf, pageOf } from './list-schemas.js';

const EventName = z.enum(WEBHOOK_EVENTS);
const Events = z.array(EventName).min(1, 'choose at least one event').max(WEBHOOK_EVENTS.length * 2);
const Url = z.string().trim().min(1).max(2048);

export const AddBody = z.object({ url: Url, events: Events }).strict();
export const PatchBody = z.object({ url: Url.optional(), events: Events.optional(), active: z.boolean().optional() }).strict();
export const DeliveriesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  before: z.string().min(1).max(100).optional(),
}).strict();

const EndpointShape = z.object({
  id: z.string(), url: z.string(), events: z.array(z.string()), active: z.boolean(), consecutiveFailures: z.number(),
  disabledAt: z.number().nullable(), createdAt: z.number(), updatedAt: z.number(),
});
const DeliveryShape = z.object({
  id: z.string(), endpointId: z.string(), eventId: z.string(), eventType: z.string(),
  state: z.enum(['queued', 'retrying', 'delivered', 'failed']), attempts: z.number(), nextAttemptAt: z.number().nullable(),
  statusCode: z.number().nullable(), response: z.string().nullable(), error: z.string().nullable(), manual: z.boolean(),
  redeliveryOf: z.string().nullable(),
  history: z.array(z.object({ at: z.number(), statusCode: z.number().nullable(), error: z.string().nullable(), durationMs: z.number() })),
  createdAt: z.number(), lastAttemptAt: z.number().nullable(), finishedAt: z.number().nullable(),
});
/** The endpoints, plus the event names an endpoint can subscribe to. */
export const ListResponse = listOf(EndpointShape).extend({ events: z.array(z.string()) });
export const CreatedResponse = EndpointShape.extend({ secret: z.string() });
export const SecretResponse = z.object({ id: z.string(), secret: z.string() });
export const TestResponse = z.object({ eventId: z.string(), delivery: DeliveryShape });
export const DeliveriesResponse = pageOf(DeliveryShape);
export { EndpointShape, DeliveryShape };

const target = (id: string) => ({ type: 'webhook', id });

/** The webhooks routes, over the webhook service the root made. */
export const webhooksModule = (webhooks: WebhookService): ApiModule => ({
  name: 'webhooks',
  start: () => startWebhooks(webhooks),
  routes: [
    route({ op: 'GET /api/v1/webhooks', response: ListResponse,
      handler: ({ workspaceId }) => webhooks.endpoints.list(workspaceId) }),
    route({ op: 'POST /api/v1/webhooks', body: AddBody, response: CreatedResponse, status: 201,
      handler: async (ctx) => {
        const created = await webhooks.endpoints.add(ctx.workspaceId, ctx.body);
        await ctx.audit('webhook.create', target(created.id), { url: created.url, events: created.events });
        return created;
      } }),
    route({ op: 'PATCH /api/v1/webhooks/{id}', body: PatchBody, response: EndpointShape,
      handler: async (ctx) => {
        const updated = await webhooks.endpoints.update(ctx.workspaceId, ctx.params.id, ctx.body);
        await ctx.audit('webhook.update', target(updated.id), { fields: Object.keys(ctx.body) });
        return updated;
      } }),
    route({ op: 'POST /api/v1/webhooks/{id}/secret', response: SecretResponse,
      handler: async (ctx) => {
        const rotated = await webhooks.endpoints.rotateSecret(ctx.workspaceId, ctx.params.id);
        await ctx.audit('webhook.secret_rotate', target(rotated.id));
        return rotated;
      } }),
    route({ op: 'POST /api/v1/webhooks/{id}/test', response: TestResponse, status: 202,
      handler: async (ctx) => {
        const sent = await webhooks.endpoints.sendTest(ctx.workspaceId, ctx.params.id);
        await ctx.audit('webhook.test', target(ctx.params.id), { deliveryId: sent.delivery.id, eventId: sent.eventId });
        return sent;
      } }),
    route({ op: 'GET /api/v1/webhooks/{id}/deliveries', query: DeliveriesQuery, response: DeliveriesResponse,
      handler: ({ workspaceId, params, query }) => webhooks.endpoints.deliveries(workspaceId, params.id, query) }),
    route({ op: 'POST /api/v1/webhooks/deliveries/{id}/redeliver', response: DeliveryShape, status: 202,
      handler: async (ctx) => {
        const d = await webhooks.endpoints.redeliver(ctx.workspaceId, ctx.params.id);
        await ctx.audit('webhook.redeliver', target(d.endpointId), { deliveryId: ctx.params.id, eventId: d.eventId });
        return d;
      } }),
    route({ op: 'DELETE /api/v1/webhooks/{id}',
      handler: async (ctx) => {
        await webhooks.endpoints.remove(ctx.workspaceId, ctx.params.id);
        await ctx.audit('webhook.delete', target(ctx.params.id));
      } }),
  ],
});

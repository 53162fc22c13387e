import type { AppContext } from '../app.js';
import { accessEndedHere, type AccessEnded } from '../auth/access-ended.js';
import { credentialCache } from '../auth/credential-cache.js';
import { chatHub } from '../chat/hub.js';
import type { EventRecord } from '../events/bus.js';
import { webhooks } from '../events/webhooks/index.js';
import type { ScaleNode } from './node.js';

type Invalidation =
  | { k: 'token'; hash: string }
  | { k: 'access'; e: AccessEnded }
  | { k: 'webhooks'; workspaceId: string };

/**
 * Wires this process into its group (before any module starts): its stored and volatile events go to the
 * other processes' live sockets, its widget frames to their open widgets, and cache invalidations both ways.
 * Durable follow-ups (webhooks, analytics, handoff closing) stay with the process that stored the event.
 */
export function joinGroup(app: AppContext, node: ScaleNode): void {
  app.events.setRelay((event, volatile) => node.broadcast('ev', { e: event, v: volatile }));
  node.on('ev', (m: { e: EventRecord; v: boolean }) => app.events.deliverRemote(m.e, m.v));

  const hub = chatHub(app);
  hub.relay = (conversationId, t, text) => node.broadcast('hub', { c: conversationId, t, x: text });
  node.on('hub', (m: { c: string; t: string; x: string }) => { hub.deliver(m.c, m.t, m.x); });

  node.on('inv', (m: Invalidation) => {
    switch (m.k) {
      case 'token': credentialCache(app).tokens.delete(m.hash); return;
      case 'access': accessEndedHere(app, m.e); return;
      case 'webhooks': webhooks(app).dispatcher.invalidate(m.workspaceId, true); return;
    }
  });
  app.onClose(() => { app.events.setRelay(null); hub.relay = null; });
}

/**
 * The live socket /api/v1/live (service-api.md, Live socket): a signed-in person's stream of their workspace's
 * events. A page of another site is refused at the upgrade (403). The credentials are checked once the socket is
 * open (the upgrade never waits on the store): an API token is refused with an error message and close code 4403,
 * no session with 4401. First frame: hello. The socket closes with 4401 when its session ends and 4403 when its
 * person's role changes (docs/access.md).
 */
import { z } from 'zod';
import type { WorkspaceMsg } from '../../../actors/workspace/messages.js';
import type { AppContext } from '../../app/context.js';
import type { AccessEndings } from '../../auth/access-ended.js';
import { authenticate } from '../../auth/authenticate.js';
import { forbidden, unauthorized } from '../../kernel/errors.js';
import type { SchemaMatches } from '../../kernel/validation.js';
import type { LiveClientFrame } from '../../../protocol/live.js';
import type { SocketConn, SocketEndpoint, UpgradeRequest } from '../../http/types.js';
import type { LiveConnData, LiveHub } from '../../team/live-hub.js';
import type { WorkspaceActors } from '../../team/workspace.js';
import type { ApiModule } from '../define.js';

export const LIVE_PATH = '/api/v1/live';
/** A browser tab that stops reading loses its socket past this much unsent data; the others never wait for it. */
export const LIVE_MAX_BACKPRESSURE_BYTES = 512 * 1024;

const ClientMessage = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('presence'), presence: z.enum(['online', 'away']) }),
  z.strictObject({ t: z.literal('ping') }),
]);
/** The schema reads exactly the frames the panel sends (protocol/live.ts). */
const schemaMatchesLiveClientFrame: SchemaMatches<z.infer<typeof ClientMessage>, LiveClientFrame> = true;
void schemaMatchesLiveClientFrame;

/** A page on another site must not open a socket with the visitor's cookie (cross-site WebSocket hijacking). */
function sameOrigin(req: UpgradeRequest): boolean {
  const origin = req.headers.origin;
  if (!origin) return true; // not a browser
  try { return new URL(origin).host === req.headers.host; } catch { return false; }
}

/** The person is known once admitted; until then the socket holds only what authenticate reads. */
type LiveSocketData = LiveConnData & { credentials: Pick<UpgradeRequest, 'headers' | 'cookies'> | null };

function liveEndpoint(app: AppContext, { liveHub: hub, workspaceActors }: LiveServices): SocketEndpoint<LiveSocketData> {
  const tell = (conn: SocketConn<LiveSocketData>, type: string, data: Record<string, unknown>) =>
    conn.send(JSON.stringify({ type, data: { ...data, workspaceId: conn.data.workspaceId } }));
  const toActor = (conn: SocketConn<LiveSocketData>, msg: WorkspaceMsg) => {
    try { workspaceActors.get(conn.data.workspaceId).send(msg); } catch (err) { app.log.warn({ err, type: msg.type }, 'workspace actor did not take a live socket message'); }
  };
  return {
    path: LIVE_PATH,
    maxPayloadBytes: 4 * 1024,
    idleTimeoutSec: 60,
    maxBackpressureBytes: LIVE_MAX_BACKPRESSURE_BYTES,
    headers: ['origin', 'host', 'cookie', 'authorization'],
    upgrade(req) {
      if (!sameOrigin(req)) throw forbidden('the live socket only accepts pages of this server');
      const headers: Record<string, string> = {};
      if (req.headers.authorization !== undefined) headers.authorization = req.headers.authorization;
      const credentials = { headers, cookies: req.cookies };
      return { workspaceId: '', userId: '', sessionId: '', userName: '', role: 'agent', credentials };
    },
    async admit(conn) {
      const req = conn.data.credentials!;
      conn.data.credentials = null;
      if (req.headers.authorization !== undefined) {
        await authenticate(app, req); // a bad token is 401 like everywhere else
        throw forbidden('the live socket acts as a person: sign in; API tokens are not accepted here');
      }
      const p = await authenticate(app, req);
      if (!p || p.kind !== 'session') throw unauthorized('sign in to open the live socket');
      Object.assign(conn.data, { workspaceId: p.workspaceId, userId: p.userId, sessionId: p.sessionId, userName: p.userName, role: p.role });
      await hub.prepare(p.workspaceId); // scale-out: the group sends this process the workspace's events first
    },
    refuse(conn, why) {
      conn.send(JSON.stringify({ type: 'error', data: { code: why.code, message: why.message } }));
    },
    open(conn) {
      hub.add(conn);
      tell(conn, 'hello', {});
      toActor(conn, { type: 'socketOpened', userId: conn.data.userId });
    },
    message(conn, raw, isBinary) {
      let parsed: z.infer<typeof ClientMessage> | null = null;
      if (!isBinary) { try { const r = ClientMessage.safeParse(JSON.parse(String(raw))); if (r.success) parsed = r.data; } catch { /* not JSON */ } }
      if (!parsed) { tell(conn, 'error', { message: 'send { "t": "presence", "presence": "online" | "away" }' }); return; }
      if (parsed.t === 'ping') { tell(conn, 'pong', {}); return; }
      toActor(conn, { type: 'presence', userId: conn.data.userId, presence: parsed.presence });
    },
    close(conn) {
      hub.remove(conn);
      toActor(conn, { type: 'socketClosed', userId: conn.data.userId });
    },
  };
}

/** What the live socket is handed: the hub of open sockets and the workspace actors it tells. */
export interface LiveServices {
  liveHub: LiveHub;
  workspaceActors: WorkspaceActors;
  /** Ended sessions close their live sockets. */
  accessEndings: AccessEndings;
}

export const liveModule = (services: LiveServices): ApiModule => ({
  name: 'live',
  routes: [],
  sockets: (app) => [liveEndpoint(app, services)],
  start(app) {
    const hub = services.liveHub;
    const unsubscribe = app.events.subscribe((event) => { hub.broadcast(event); }, { volatileFor: (workspaceId) => hub.count(workspaceId) > 0, everywhere: true });
    const stopClosing = services.accessEndings.on((e) => { hub.closeFor(e); });
    app.onClose(() => { unsubscribe(); stopClosing(); hub.closeAll(); });
  },
});

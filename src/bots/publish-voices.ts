/**
 * The voices a draft names, checked at publish against the lists their engines have (publish.ts): a realtime
 * engine's fixed voices, a speech connection's library (GET /api/v1/providers/{id}/voices). A list that cannot be
 * had in time (provider unreachable, key refused) is not checked: publishing is not blocked on what cannot be known.
 */
import type { AppContext } from '../app/context.js';
import { adapterFor, type ProviderDoc } from '../providers/connections.js';
import type { VoiceInfo } from '../providers/types.js';
import { realtimeVoices } from '../providers/voice.js';
import type { PublishProblem } from './publish.js';

/** How long publishing waits for a provider's list (models or voices) before it publishes without checking it. */
export const LIST_WAIT_MS = 10_000;
/** How many of a long voice library the message names. */
const NAMED = 30;

/** `work`'s answer, or null when it fails or takes longer than LIST_WAIT_MS. */
export function withinListWait<T>(app: AppContext, work: () => Promise<T>): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = app.clock.setTimeout(() => resolve(null), LIST_WAIT_MS);
    work().then(resolve, () => resolve(null)).finally(() => app.clock.clearTimeout(timer));
  });
}

/** Checks voice settings of one draft; each connection's voice list is asked once. */
export function voiceChecks(app: AppContext, problems: PublishProblem[]) {
  const lists = new Map<string, Promise<VoiceInfo[] | null>>();
  const listOf = (conn: ProviderDoc) => {
    if (!lists.has(conn._id)) {
      lists.set(conn._id, withinListWait(app, async () => {
        const adapter = adapterFor(app, conn);
        return adapter.listVoices ? adapter.listVoices() : null;
      }));
    }
    return lists.get(conn._id)!;
  };
  return {
    /** voice.realtime.voice: one of the engine's voices (the APIs list none, so the list is ours). */
    realtime(path: string, conn: ProviderDoc | null, voice: string): void {
      if (!conn || !voice || (conn.kind !== 'openai' && conn.kind !== 'gemini')) return;
      const { engine, voices, default: fallback } = realtimeVoices(conn.kind);
      if (voices.includes(voice)) return;
      problems.push({ path, message: `${engine} has no voice ${voice}; choose one of ${voices.join(', ')} (or leave it empty for ${fallback})` });
    },
    /** A speech voice (cascade, spoken replies, hosted agent): one the connection lists. */
    async speech(path: string, conn: ProviderDoc | null, voice: string): Promise<void> {
      if (!conn || !voice) return;
      const list = await listOf(conn);
      if (!list?.length || list.some((v) => v.id === voice)) return;
      const named = list.slice(0, NAMED).map((v) => (v.name.toLowerCase() === v.id.toLowerCase() ? v.id : `${v.id} (${v.name})`));
      const more = list.length > NAMED ? ` and ${list.length - NAMED} more` : '';
      problems.push({ path, message: `${conn.name} has no voice ${voice}; choose one of the voices GET /api/v1/providers/${conn._id}/voices lists: ${named.join(', ')}${more}` });
    },
  };
}

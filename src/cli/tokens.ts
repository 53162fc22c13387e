/** API tokens: list them (never their values, which are not stored) and revoke one by id. */
import { tokenView } from '../auth/tokens.js';
import type { Config } from '../config/index.js';
import { CommandError, UsageError, withApp } from './context.js';

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

export async function listTokens(config: Config, out: (line: string) => void, json: boolean): Promise<void> {
  await withApp(config, async (app) => {
    const all = await app.records.apiTokens.find({}, { crossWorkspace: true, sort: [['_id', 1]], limit: 10_000 });
    if (json) return out(JSON.stringify(all.map((t) => ({ ...tokenView(t), workspaceId: t.workspaceId }))));
    if (!all.length) return out('no API tokens');
    for (const t of all) out(`${t._id}\t${t.name}\t${t.scopes.join(',')}\tworkspace ${t.workspaceId}\texpires ${when(t.expiresAt)}\tlast used ${when(t.lastUsedAt)}`);
  });
}

export async function revokeToken(config: Config, id: string | undefined, out: (line: string) => void): Promise<void> {
  if (!id) throw new UsageError('tokens revoke needs the token id (see: service-chat tokens list)');
  await withApp(config, async (app) => {
    const tok = await app.records.apiTokens.findOne({ _id: id }, { crossWorkspace: true });
    if (!tok) throw new CommandError(`no API token with the id ${id}; see: service-chat tokens list`);
    await app.records.apiTokens.deleteOne({ workspaceId: tok.workspaceId, _id: tok._id });
    out(`revoked ${tok._id} (${tok.name}); a running server refuses it within 2 s`);
  });
}

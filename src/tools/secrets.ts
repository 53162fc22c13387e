/**
 * Workspace secrets: named values that HTTP tool templates reference as {{secrets.NAME}}. Values are sealed
 * at rest (AES-256-GCM bound to the record id) and opened only while a tool call is being made.
 */
import type { AppContext } from '../app/context.js';
import { invalid, notFound } from '../kernel/errors.js';
import { openSecret, sealSecret } from '../security/secret-box.js';
import { newId } from '../store/ids.js';
import { DuplicateKeyError, type Collection, type Doc } from '../store/types.js';

export const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
export const MAX_SECRET_CHARS = 8192;

export interface SecretRecord extends Doc {
  name: string;
  /** sealSecret(value, app.secretKey, _id) */
  value: string;
  createdAt: number;
  updatedAt: number;
}

/** What the API shows: never the value. */
export interface SecretView {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

const view = (r: SecretRecord): SecretView => ({ id: r._id, name: r.name, createdAt: r.createdAt, updatedAt: r.updatedAt });

export class SecretService {
  readonly records: Collection<SecretRecord>;

  constructor(private readonly app: AppContext) {
    this.records = app.store.collection<SecretRecord>('secrets', { indexes: [{ fields: [['workspaceId', 1], ['name', 1]], unique: true }] });
  }

  async list(workspaceId: string): Promise<SecretView[]> {
    const all = await this.records.find({ workspaceId }, { limit: 1000 });
    return all.map(view);
  }

  /** Creates or replaces the secret with this name; `created` tells which. */
  async set(workspaceId: string, name: string, value: string): Promise<{ secret: SecretView; created: boolean }> {
    if (!SECRET_NAME.test(name)) throw invalid('name: use capital letters, digits and _ (starting with a letter), at most 64 characters');
    if (typeof value !== 'string' || value.length === 0) throw invalid('value: must be a non-empty string');
    if (value.length > MAX_SECRET_CHARS) throw invalid(`value: at most ${MAX_SECRET_CHARS} characters`);
    const now = this.app.clock.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      const existing = await this.records.findOne({ workspaceId, name });
      if (existing) {
        const updated = await this.records.updateOne(
          { workspaceId, _id: existing._id },
          { $set: { value: sealSecret(value, this.app.secretKey, existing._id), updatedAt: now } },
        );
        if (updated) return { secret: view(updated), created: false };
        continue; // deleted meanwhile: create it
      }
      const _id = newId('sec', now);
      const rec: SecretRecord = { _id, workspaceId, name, value: sealSecret(value, this.app.secretKey, _id), createdAt: now, updatedAt: now };
      try {
        await this.records.insertOne(rec);
        return { secret: view(rec), created: true };
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        // Set concurrently under the same name: loop to replace that one.
      }
    }
    throw invalid(`name: ${name} is being changed by another request; try again`);
  }

  /** Deletes by id or by name (secrets are addressed by name in the API). */
  async remove(workspaceId: string, idOrName: string): Promise<void> {
    const filter = SECRET_NAME.test(idOrName) ? { workspaceId, name: idOrName } : { workspaceId, _id: idOrName };
    if (!(await this.records.deleteOne(filter))) throw notFound('secret');
  }

  /** Opens the named secrets for one call. Missing names are reported, never guessed. */
  async resolve(workspaceId: string, names: string[]): Promise<{ values: Map<string, string>; missing: string[] }> {
    const values = new Map<string, string>();
    if (names.length === 0) return { values, missing: [] };
    const found = await this.records.find({ workspaceId, name: { $in: [...new Set(names)] } }, { limit: 1000 });
    for (const r of found) values.set(r.name, openSecret(r.value, this.app.secretKey, r._id));
    return { values, missing: names.filter((n) => !values.has(n)) };
  }
}


/** Replaces every occurrence of a secret value (and its URL-encoded form) in text with [secret NAME]. */
export function redactSecrets(text: string, values: Map<string, string>): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  const entries = [...values].filter(([, v]) => v.length >= 3).sort((a, b) => b[1].length - a[1].length);
  for (const [name, value] of entries) {
    for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) {
      out = out.split(form).join(`[secret ${name}]`);
    }
  }
  return out;
}

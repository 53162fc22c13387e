/**
 * HTTP tools: workspace-wide definitions (method, URL template, headers, body, argument schema) that a
 * bot turns on in tools.http. Calls go through the guarded client; secrets are filled in only at call
 * time and redacted from anything that goes back (results, errors, test answers).
 */
import type { AppContext } from '../app/context.js';
import { conflict, invalid, notFound } from '../kernel/errors.js';
import { createGuardedClient, OutboundError, parseOutboundUrl, type GuardedClient } from '../security/guarded-client.js';
import { newId } from '../store/ids.js';
import { DuplicateKeyError, type Collection, type Doc } from '../store/types.js';
import { argsProblem, argsSchemaProblem } from './json-schema.js';
import type { HttpToolInput, HttpToolPatch } from './schemas.js';
import { redactSecrets, type SecretService } from './secrets.js';
import { renderTemplate, sampleOf, templateRefs, TemplateError } from './template.js';

/** Names of the built-in tools; an HTTP tool may not take one (the model would see two tools with one name). */
export const RESERVED_TOOL_NAMES = new Set(['search_knowledge', 'capture_lead', 'handoff_to_human', 'end_conversation', 'express', 'look_at_camera']);
const MAX_RESPONSE_BYTES = 1024 * 1024;
const TEST_BODY_CHARS = 4000;

export type BodyMode = 'none' | 'args' | 'template';

export interface HttpToolRecord extends Doc {
  name: string;
  description: string;
  label: string | null;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  bodyMode: BodyMode;
  bodyTemplate: string | null;
  parameters: Record<string, unknown>;
  timeoutMs: number;
  createdAt: number;
  updatedAt: number;
}

export type HttpToolView = Omit<HttpToolRecord, '_id' | 'workspaceId'> & { id: string };
export const httpToolView = ({ _id, workspaceId: _w, ...rest }: HttpToolRecord): HttpToolView => ({ id: _id, ...rest });

export interface HttpCallResult {
  ok: boolean;
  status: number | null;
  durationMs: number;
  /** Response text with secret values replaced by [secret NAME]. */
  body: string;
  /** The response was longer than the read limit. */
  truncated: boolean;
  /** Set when no HTTP answer came (timeout, refused address, ...), already redacted. */
  error: { code: string; message: string } | null;
}

/** Thrown before any request is made: the arguments do not match the tool's schema. */
export class ToolArgumentsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolArgumentsError';
  }
}

const defaultBodyMode = (method: string): BodyMode => (method === 'GET' || method === 'DELETE' ? 'none' : 'args');

/** True when a placeholder sits in the URL's scheme, host or port (everything before the path). */
function originTemplated(url: string): boolean {
  const m = /^([^/?#]*\/\/[^/?#]*)/.exec(url.trim());
  return (m ? m[1] : url).includes('{{');
}

/** Checks what zod cannot: templates, URL shape, schema, reserved names. */
function checkDefinition(d: Omit<HttpToolRecord, '_id' | 'workspaceId' | 'createdAt' | 'updatedAt'>): void {
  if (RESERVED_TOOL_NAMES.has(d.name)) throw invalid(`name: ${d.name} is a built-in tool; choose another name`);
  const parts: Array<[string, string]> = [['url', d.url], ...Object.entries(d.headers).map(([k, v]) => [`headers.${k}`, v] as [string, string])];
  if (d.bodyTemplate !== null) parts.push(['bodyTemplate', d.bodyTemplate]);
  for (const [field, text] of parts) {
    const { problem } = templateRefs(text);
    if (problem) throw invalid(`${field}: ${problem}`);
  }
  if (/^\{\{/.test(d.url.trim())) throw invalid('url: must start with http:// or https://, not a placeholder');
  if (originTemplated(d.url)) throw invalid('url: placeholders may not be in the scheme, host or port; only in the path and query, so no argument or secret can choose where the request goes');
  try {
    parseOutboundUrl(sampleOf(d.url));
  } catch (err) {
    throw invalid(`url: ${(err as Error).message}`);
  }
  if (d.bodyMode === 'template' && !d.bodyTemplate) throw invalid('bodyTemplate: required when bodyMode is template');
  const schemaProblem = argsSchemaProblem(d.parameters);
  if (schemaProblem) throw invalid(`parameters: ${schemaProblem}`);
}

export class HttpToolService {
  readonly records: Collection<HttpToolRecord>;
  private client: GuardedClient | null = null;

  constructor(private readonly app: AppContext, private readonly secrets: SecretService) {
    this.records = app.store.collection<HttpToolRecord>('http_tools', { indexes: [{ fields: [['workspaceId', 1], ['name', 1]], unique: true }] });
  }

  /** At shutdown (the composition root calls it): closes the tools' guarded client. */
  async close(): Promise<void> { await this.client?.close(); }

  private get http(): GuardedClient {
    this.client ??= createGuardedClient({ allowPrivateNetwork: this.app.config.allowPrivateNetwork, clock: this.app.clock, maxResponseBytes: MAX_RESPONSE_BYTES });
    return this.client;
  }

  list(workspaceId: string): Promise<HttpToolRecord[]> {
    return this.records.find({ workspaceId }, { limit: 1000 });
  }

  async get(workspaceId: string, id: string): Promise<HttpToolRecord> {
    const r = await this.records.findById(workspaceId, id);
    if (!r) throw notFound('HTTP tool');
    return r;
  }

  async create(workspaceId: string, input: HttpToolInput): Promise<HttpToolRecord> {
    const now = this.app.clock.now();
    const def = { ...input, bodyMode: input.bodyMode ?? defaultBodyMode(input.method) };
    checkDefinition(def);
    const rec: HttpToolRecord = { _id: newId('htool', now), workspaceId, ...def, createdAt: now, updatedAt: now };
    try {
      await this.records.insertOne(rec);
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw conflict(`an HTTP tool named ${input.name} already exists`);
      throw err;
    }
    return rec;
  }

  async update(workspaceId: string, id: string, patch: HttpToolPatch): Promise<HttpToolRecord> {
    const old = await this.get(workspaceId, id);
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<HttpToolRecord>;
    const { _id: _i, workspaceId: _w, createdAt: _c, updatedAt: _u, ...merged } = { ...old, ...changes };
    if (patch.method && !patch.bodyMode && old.bodyMode === defaultBodyMode(old.method)) merged.bodyMode = defaultBodyMode(patch.method);
    checkDefinition(merged);
    try {
      const updated = await this.records.updateOne({ workspaceId, _id: id }, { $set: { ...merged, updatedAt: this.app.clock.now() } });
      if (!updated) throw notFound('HTTP tool');
      return updated;
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw conflict(`an HTTP tool named ${patch.name} already exists`);
      throw err;
    }
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    if (!(await this.records.deleteOne({ workspaceId, _id: id }))) throw notFound('HTTP tool');
  }

  /**
   * Makes one call. Arguments are checked against the schema first (ToolArgumentsError, nothing sent);
   * failures after that (missing secret, timeout, refused address) come back in `error`, redacted.
   */
  async call(tool: HttpToolRecord, args: Record<string, unknown>, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<HttpCallResult> {
    const problem = argsProblem(tool.parameters, args);
    if (problem) throw new ToolArgumentsError(problem);
    const started = this.app.clock.now();
    const texts = [tool.url, ...Object.values(tool.headers), tool.bodyMode === 'template' ? tool.bodyTemplate ?? '' : ''];
    const names = texts.flatMap((t) => templateRefs(t).refs.secrets);
    // A redirect would carry custom headers and a kept body to wherever it points: with secrets there, the
    // 3xx answer is returned instead of followed.
    const secretsTravel = texts.slice(1).some((t) => templateRefs(t).refs.secrets.length > 0);
    const { values } = await this.secrets.resolve(tool.workspaceId, names);
    const fail = (code: string, message: string): HttpCallResult => ({
      ok: false, status: null, durationMs: this.app.clock.now() - started, body: '', truncated: false,
      error: { code, message: redactSecrets(message, values) },
    });
    // A record saved before hosts had to be fixed is not sent where a placeholder would point it.
    if (originTemplated(tool.url)) return fail('template', 'the URL has a placeholder in its scheme, host or port; edit the tool to fix them');
    let url: string, headers: Record<string, string>, body: string | null = null;
    try {
      url = renderTemplate(tool.url, args, values, 'url');
      headers = Object.fromEntries(Object.entries(tool.headers).map(([k, v]) => [k, renderTemplate(v, args, values, 'text')]));
      const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
      if (tool.bodyMode === 'args') body = JSON.stringify(args);
      else if (tool.bodyMode === 'template') body = renderTemplate(tool.bodyTemplate ?? '', args, values, !type || /json/i.test(type) ? 'json' : 'text');
      if (body !== null && !type) headers['content-type'] = 'application/json';
      headers.accept ??= 'application/json, text/plain;q=0.9, */*;q=0.5';
    } catch (err) {
      if (err instanceof TemplateError) return fail('template', err.message);
      throw err;
    }
    const timeoutMs = Math.min(tool.timeoutMs, opts.timeoutMs ?? Infinity);
    try {
      const res = await this.http.request(url, {
        method: tool.method, headers, body, timeoutMs, signal: opts.signal, maxResponseBytes: MAX_RESPONSE_BYTES,
        redirectPolicy: secretsTravel ? 'manual' : 'follow',
      });
      return {
        ok: res.status >= 200 && res.status < 300,
        status: res.status,
        durationMs: this.app.clock.now() - started,
        body: redactSecrets(res.body.toString('utf8'), values),
        truncated: res.truncated,
        error: null,
      };
    } catch (err) {
      if (err instanceof OutboundError) return fail(err.code, err.message);
      if (opts.signal?.aborted) return fail('aborted', 'the call was cancelled');
      this.app.log.warn({ tool: tool._id, err: redactSecrets(String(err), values) }, 'HTTP tool call failed');
      return fail('failed', 'the request failed');
    }
  }

  /** POST /tools/http/{id}/test: one call with sample arguments; the body is cut for display. */
  async test(workspaceId: string, id: string, args: Record<string, unknown>) {
    const tool = await this.get(workspaceId, id);
    let r: HttpCallResult;
    try {
      r = await this.call(tool, args);
    } catch (err) {
      if (err instanceof ToolArgumentsError) throw invalid(`arguments: ${err.message}`);
      throw err;
    }
    const cut = r.body.length > TEST_BODY_CHARS;
    return { ...r, body: cut ? r.body.slice(0, TEST_BODY_CHARS) : r.body, truncated: r.truncated || cut };
  }
}


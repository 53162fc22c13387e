/**
 * #/privacy: data requests from visitors (GET /visitors, GET /visitors/{id}/export, DELETE /visitors/{id}): find a
 * visitor by e-mail or by the id your own system gave them, download everything stored about them, or erase them
 * with their conversations, images and leads. Admins only (the privacy:write scope acts as admin).
 */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import {
  confirmDialog, EmptyState, ErrorText, Form, FormErrors, PageHeader, RelativeTime, SelectField, TextField, toast, useAction,
} from '../ui.js';

interface Visitor { id: string; userId: string | null; name: string | null; email: string | null; createdAt: number; lastSeenAt: number }
interface Erased { conversations: number; messages: number; leads: number; attachments: number }
/** A lead holding the e-mail that belongs to no visitor (added by hand or by API). */
interface LooseLead { id: string; botId: string; fields: Record<string, string>; source: string; createdAt: number }
interface Found { items: Visitor[]; leads: LooseLead[] }

/** The lead as stored, as a JSON file to hand the person (a data URL: nothing to fetch). */
const leadFile = (l: LooseLead) => `data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify({ exportedAt: new Date().toISOString(), lead: l }, null, 2))}`;

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export default function PrivacyPage() {
  const [by, setBy] = useState<'email' | 'userId'>('email');
  const [value, setValue] = useState('');
  const [found, setFound] = useState<Visitor[] | null>(null);
  const [leads, setLeads] = useState<LooseLead[]>([]);
  const search = useAction();
  const act = useAction();
  const find = () => search.run(async () => {
    // A new search is a fresh start: an earlier erase's error is about rows no longer shown.
    act.clear();
    setFound(null);
    const r = await api<Found>('GET', `/visitors${query({ [by]: value.trim() })}`);
    setLeads(r.leads ?? []);
    setFound(r.items);
  });
  const eraseLead = async (l: LooseLead) => {
    const who = l.fields.email || l.fields.name || 'this lead';
    if (!(await confirmDialog({
      title: `Erase the lead ${who}?`, danger: true, confirmText: 'Erase for good',
      message: 'This lead was added by hand or by API, outside any chat. It is deleted now and cannot be brought back. Download it first if they asked for a copy.',
    }))) return;
    await act.run(async () => {
      await api('DELETE', `/leads/${encodeURIComponent(l.id)}`);
      setLeads((list) => list.filter((x) => x.id !== l.id));
      toast(`Erased the lead ${who}.`);
    });
  };
  const erase = async (v: Visitor) => {
    const who = v.email || v.name || v.userId || 'this visitor';
    if (!(await confirmDialog({
      title: `Erase ${who}?`, danger: true, confirmText: 'Erase for good',
      message: 'Their conversations, images, leads and feedback are deleted now and cannot be brought back. Download their data first if they asked for a copy.',
    }))) return;
    await act.run(async () => {
      const r = await api<Erased>('DELETE', `/visitors/${encodeURIComponent(v.id)}`);
      setFound((list) => list?.filter((x) => x.id !== v.id) ?? null);
      toast(`Erased ${who}: ${count(r.conversations, 'conversation')}, ${count(r.messages, 'message')}, ${count(r.leads, 'lead')}, ${count(r.attachments, 'image')}.`);
    });
  };
  return (
    <section>
      <PageHeader title="Data requests" description="When a visitor asks what you store about them, or asks you to delete it: find them here, then download or erase." />
      <Form onSubmit={find} name="find-visitor" class="card settings-form">
        <SelectField label="Find by" name="by" value={by} onChange={(v) => { setBy(v as 'email' | 'userId'); search.clear(); }}
          options={[['email', 'E-mail address'], ['userId', 'Your user id (from identity verification)']]} />
        <TextField label={by === 'email' ? 'E-mail address' : 'User id'} name={by} value={value} required errors={search.fields}
          type={by === 'email' ? 'email' : 'text'} onInput={(v) => { setValue(v); if (search.error) search.clear(); }}
          hint={by === 'email' ? 'The address the visitor gave in a chat or a lead form.' : 'The id your site passed to the widget for a signed-in customer.'} />
        <FormErrors act={search} shown={[by]} />
        <button type="submit" disabled={search.busy}>{search.busy ? 'Searching…' : 'Find visitor'}</button>
      </Form>
      <ErrorText error={act.error} />
      {found && (found.length === 0 && leads.length === 0 ? (
        <EmptyState title="No visitor found" icon="?">
          Nobody with that {by === 'email' ? 'e-mail address' : 'user id'} is stored: there is nothing to export or erase. Check the spelling, or try the other way to find them.
        </EmptyState>
      ) : (<>
        {found.length > 0 && <div class="table-wrap">
          <table class="list visitors stack">
            <thead><tr><th>Visitor</th><th>User id</th><th>First seen</th><th>Last seen</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {found.map((v) => (
                <tr key={v.id} data-id={v.id}>
                  <td data-label="Visitor">{v.name ?? <span class="muted">No name</span>}<br /><small class="muted">{v.email ?? 'no e-mail'}</small></td>
                  <td data-label="User id">{v.userId ?? '—'}</td>
                  <td data-label="First seen"><RelativeTime ms={v.createdAt} /></td>
                  <td data-label="Last seen"><RelativeTime ms={v.lastSeenAt} /></td>
                  <td><div class="row">
                    <a class="button secondary small" href={`/api/v1/visitors/${encodeURIComponent(v.id)}/export`} download={`visitor-${v.id}.json`}>Download data</a>
                    <button type="button" class="danger small" disabled={act.busy} onClick={() => erase(v)}>Erase</button>
                  </div></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>}
        {leads.length > 0 && <>
          <h2>Leads outside any chat</h2>
          <p class="muted">Added by hand or by API with this e-mail address, outside any chat: download or erase each one here (erasing a visitor does not touch them).</p>
          <div class="table-wrap">
            <table class="list loose-leads stack">
              <thead><tr><th>Lead</th><th>Added</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {leads.map((l) => (
                  <tr key={l.id} data-id={l.id}>
                    <td data-label="Lead">{l.fields.name ?? <span class="muted">No name</span>}<br /><small class="muted">{l.fields.email}</small></td>
                    <td data-label="Added"><RelativeTime ms={l.createdAt} /> {l.source === 'api' ? '(by hand or API)' : ''}</td>
                    <td><div class="row">
                      <a class="button secondary small" href={leadFile(l)} download={`lead-${l.id}.json`}>Download data</a>
                      <button type="button" class="danger small" disabled={act.busy} onClick={() => eraseLead(l)}>Erase</button>
                    </div></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>}
      </>))}
    </section>
  );
}

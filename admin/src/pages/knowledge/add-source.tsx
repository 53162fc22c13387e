/** Adding a knowledge source: a web page, a sitemap, a whole site to crawl, pasted text, or an uploaded file. */
import { useState } from 'preact/hooks';
import { api, ApiFailure, OFFLINE_MESSAGE } from '../../api.js';
import { useSession } from '../../session.js';
import { Form, FormErrors, TextArea, TextField, useAction } from '../../ui.js';
import type { Source, SourceKind } from './types.js';

const KINDS: Array<[SourceKind, string, string]> = [
  ['page', 'Web page', 'One page, read once and kept.'],
  ['crawl', 'Website', 'Follows links from a start page on the same site (robots.txt honoured).'],
  ['sitemap', 'Sitemap', 'Every page a sitemap.xml lists.'],
  ['file', 'File', 'PDF, Markdown, plain text or HTML.'],
  ['text', 'Text', 'Paste answers, policies or notes.'],
];
const TYPES: Record<string, string> = { pdf: 'application/pdf', md: 'text/markdown', markdown: 'text/markdown', txt: 'text/plain', html: 'text/html', htm: 'text/html' };

export function AddSource({ onAdded, onCancel }: { onAdded: (s: Source) => void; onCancel?: () => void }) {
  const { me } = useSession();
  const [kind, setKind] = useState<SourceKind>('page');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [text, setText] = useState('');
  const [maxPages, setMaxPages] = useState('200');
  const [maxDepth, setMaxDepth] = useState('3');
  const [file, setFile] = useState<File | null>(null);
  const act = useAction();

  const upload = async (f: File): Promise<Source> => {
    const ext = f.name.split('.').pop()?.toLowerCase() ?? '';
    const type = TYPES[ext] ?? f.type;
    if (!type) throw new Error('Choose a PDF, Markdown (.md), text (.txt) or HTML file.');
    const q = new URLSearchParams({ filename: f.name, ...(name.trim() ? { name: name.trim() } : {}) });
    // The file goes as the body itself (not JSON), so this one request bypasses api().
    const res = await fetch(`/api/v1/knowledge/files?${q}`, { method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': type, 'X-CSRF-Token': me.csrfToken }, body: f })
      .catch(() => { throw new Error(OFFLINE_MESSAGE); });
    const data = await res.json().catch(() => null);
    if (!res.ok) throw new ApiFailure(res.status, data?.error?.code ?? 'internal', data?.error?.message ?? `the server answered ${res.status}`);
    return data as Source;
  };

  const submit = () => act.run(async () => {
    let s: Source;
    if (kind === 'file') {
      if (!file) throw new Error('Choose a file to upload.');
      s = await upload(file);
    } else if (kind === 'text') {
      s = await api<Source>('POST', '/knowledge', { kind, ...(name.trim() ? { name: name.trim() } : {}), text });
    } else {
      const settings = kind === 'page' ? undefined : { maxPages: Number(maxPages), ...(kind === 'crawl' ? { maxDepth: Number(maxDepth) } : {}) };
      s = await api<Source>('POST', '/knowledge', { kind, url: url.trim(), ...(name.trim() ? { name: name.trim() } : {}), ...(settings ? { settings } : {}) });
    }
    setName(''); setUrl(''); setText(''); setFile(null);
    onAdded(s);
  });

  return (
    <Form onSubmit={submit} class="card add-source" name="add-source">
      <h2>Add a source</h2>
      <div class="segmented" role="radiogroup" aria-label="Kind of source">
        {KINDS.map(([k, label]) => (
          <label key={k}><input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />{label}</label>
        ))}
      </div>
      <p class="k-hint">{KINDS.find((k) => k[0] === kind)?.[2]}</p>
      <div class="grid2">
        {kind !== 'text' && kind !== 'file' && (
          <TextField label={kind === 'sitemap' ? 'Sitemap address' : kind === 'crawl' ? 'Start page' : 'Page address'} name="url" type="url" value={url} onInput={setUrl} required errors={act.fields} />
        )}
        {kind === 'file' && (
          <label class="field"><span>File</span>
            <input type="file" name="file" accept=".pdf,.md,.markdown,.txt,.html,.htm" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          </label>
        )}
        <TextField label="Name (optional)" name="name" value={name} onInput={setName} errors={act.fields}
          hint={kind === 'text' ? 'How bots cite it to visitors. Left empty: its first heading or line.' : undefined} />
        {(kind === 'sitemap' || kind === 'crawl') && <TextField label="Most pages (1–2000)" name="maxPages" path="settings.maxPages" type="number" value={maxPages} onInput={setMaxPages} errors={act.fields} />}
        {kind === 'crawl' && <TextField label="Link depth (0–10)" name="maxDepth" path="settings.maxDepth" type="number" value={maxDepth} onInput={setMaxDepth} errors={act.fields} />}
      </div>
      {kind === 'text' && (
        <TextArea label="Text" name="text" rows={6} required value={text} onInput={setText} errors={act.fields} />
      )}
      <div class="row-actions">
        <button type="submit" disabled={act.busy}>{act.busy ? 'Adding…' : 'Add source'}</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
      <FormErrors act={act} shown={['url', 'name', 'text', 'settings.maxPages', 'settings.maxDepth']} />
    </Form>
  );
}

/**
 * #/faces: custom faces for the bots' animated face, made from a photo. The photo is turned into an image plus
 * 468 landmarks in this browser by the widget's `ServiceChat.skinFromPhoto` (the same code that draws the face
 * on visitors' pages), then uploaded (POST /faces). Preview, delete.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, localPath } from '../../api.js';
import { useSession } from '../../session.js';
import {
  confirmDialog, EmptyState, ErrorText, Form, Loading, PageHeader, RelativeTime, Section, TextField, toast, useAction, useLoad,
} from '../../ui.js';

interface Face { id: string; name: string; createdAt: number; width: number; height: number; contentType: string; imageUrl: string; landmarksUrl: string }
/** widget/src/face-photo.ts: resolves { name, image (base64 JPEG), landmarks }; rejects with a message saying what to do. */
type SkinFromPhoto = (photo: Blob, o?: { name?: string }) => Promise<{ name?: string; image: string; landmarks: number[][] }>;

/**
 * The face finder runs in a frame (/admin/face-finder) with the looser CSP MediaPipe needs; this page's own CSP
 * stays strict. Resolves a function that asks the frame, or null when this widget build has no skinFromPhoto.
 */
let finder: Promise<SkinFromPhoto | null> | null = null;
function loadFinder(): Promise<SkinFromPhoto | null> {
  const stub = (window as any).ServiceChat?.skinFromPhoto as SkinFromPhoto | undefined;
  if (stub) return Promise.resolve(stub);
  finder ??= new Promise((resolve) => {
    const frame = document.createElement('iframe');
    frame.src = '/admin/face-finder';
    frame.title = 'Face finder';
    frame.hidden = true;
    frame.setAttribute('aria-hidden', 'true');
    let next = 1;
    const waiting = new Map<number, (m: { face?: any; error?: string }) => void>();
    addEventListener('message', (e) => {
      if (e.origin !== location.origin || e.source !== frame.contentWindow) return;
      if ('ready' in e.data) {
        resolve(e.data.ready ? (photo, o) => new Promise((ok, fail) => {
          const id = next++;
          waiting.set(id, (m) => (m.face ? ok(m.face) : fail(new Error(m.error))));
          frame.contentWindow!.postMessage({ id, photo, name: o?.name }, location.origin);
        }) : null);
        return;
      }
      waiting.get(e.data.id)?.(e.data);
      waiting.delete(e.data.id);
    });
    frame.onerror = () => resolve(null);
    document.body.appendChild(frame);
  });
  return finder;
}

export default function FacesPage() {
  const { atLeast } = useSession();
  const admin = atLeast('admin');
  const faces = useLoad(() => api<{ items: Face[] }>('GET', '/faces'));
  const remove = async (f: Face) => {
    if (!(await confirmDialog({ title: `Delete the face "${f.name}"?`, message: 'Bots that use it fall back to a catalogue face. This cannot be undone.', confirmText: 'Delete', danger: true }))) return;
    try { await api('DELETE', `/faces/${f.id}`); toast('Face deleted'); faces.reload(); } catch (e) { toast((e as Error).message, 'error'); }
  };
  return (
    <>
      <PageHeader title="Faces" description="Give a bot a face of its own: upload a photo of a face looking at the camera. Choose it in a bot's Face and appearance settings." />
      {admin && <Upload onDone={faces.reload} />}
      {!faces.data ? <Loading error={faces.error} /> : faces.data.items.length === 0
        ? <EmptyState title="No custom faces yet" icon="☺">{admin ? 'Upload a photo above. Until then bots use the built-in faces.' : 'An admin can upload one. Until then bots use the built-in faces.'}</EmptyState>
        : (
          <ul class="grid faces">
            {faces.data.items.map((f) => (
              <li class="tile" key={f.id}>
                <img class="face-img" src={localPath(f.imageUrl)} alt={`Face "${f.name}"`} width={f.width} height={f.height} loading="lazy" />
                <h3>{f.name}</h3>
                <span class="muted">Added <RelativeTime ms={f.createdAt} /> · id <code>{f.id}</code></span>
                {admin && <div class="tile-foot"><button type="button" class="danger small" onClick={() => remove(f)}>Delete</button></div>}
              </li>
            ))}
          </ul>
        )}
    </>
  );
}

function Upload({ onDone }: { onDone: () => void }) {
  const [fn, setFn] = useState<SkinFromPhoto | null | undefined>(undefined);
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const act = useAction();
  // Wrapped: a function given to a state setter would be called as an updater.
  useEffect(() => { loadFinder().then((f) => setFn(() => f)); }, []);
  useEffect(() => {
    if (!file) { setShown(null); return; }
    // A data: URL, not a blob: one: the panel's CSP allows images from this server and data: only.
    const r = new FileReader();
    r.onload = () => setShown(String(r.result));
    r.readAsDataURL(file);
    return () => r.abort();
  }, [file]);
  const submit = () => act.run(async () => {
    if (!fn || !file) return;
    const faceName = name.trim() || file.name.replace(/\.\w+$/, '').slice(0, 80) || 'Face';
    // The finder's own errors already say what to do (no face, several faces, too small).
    const made = await fn(file, { name: faceName }).catch((e: unknown) => { throw new Error((e as Error)?.message || 'No face was found in this photo. Use a clear, front-facing photo with the whole face visible.'); });
    await api('POST', '/faces', { name: faceName, image: made.image, landmarks: made.landmarks });
    toast('Face added');
    setName(''); setFile(null); setRound((n) => n + 1);
    onDone();
  });
  return (
    <Section title="Add a face" id="add-face">
      {fn === undefined ? <Loading error={null} text="Loading the face finder…" /> : fn === null ? (
        <p class="notice warn">This server's widget cannot make faces from photos (<code>ServiceChat.skinFromPhoto</code> is missing from
          <code> /static/widget/loader.js</code>; build the widget with <code>npm run build</code>). Update the server; faces made elsewhere can still be uploaded through <code>POST /api/v1/faces</code>.</p>
      ) : (
        <Form key={round} onSubmit={submit} name="face-upload">
          <div class="row face-upload">
            {shown && <img class="face-img" src={shown} alt="The chosen photo" />}
            <div>
              <TextField label="Name" name="name" value={name} onInput={setName} errors={act.fields} hint="How it is listed when you choose a face." />
              <div class="field">
                <label for="face-photo">Photo (JPEG, PNG or WebP; one face, looking at the camera)</label>
                <input id="face-photo" name="photo" type="file" accept="image/jpeg,image/png,image/webp" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
              </div>
            </div>
          </div>
          <ErrorText error={act.error} />
          <button type="submit" disabled={act.busy || !file}>{act.busy ? 'Finding the face…' : 'Make face'}</button>
        </Form>
      )}
    </Section>
  );
}

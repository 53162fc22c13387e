/**
 * The live preview beside the editor: the real widget, booted with a preview token for this bot's saved draft,
 * in the server's chat page (/chat/<id>, framed as the try-it page does: the panel's CSP keeps the widget's styles
 * out of the panel itself). Inline layout: the other layouts open with the keyboard in the chat, which would take it
 * from the field being edited; the try-it page shows each layout. It reloads after every save.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { messageOf } from '../../ui.js';

export function Preview({ botId, revision, dirty }: { botId: string; revision: number; dirty: boolean }) {
  const [token, setToken] = useState<{ token: string; expiresAt: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A token lasts 30 minutes; each save brings a new one (and a fresh preview conversation).
  useEffect(() => {
    let live = true;
    api<{ token: string; expiresAt: number }>('POST', `/bots/${encodeURIComponent(botId)}/preview`)
      .then((t) => { if (live) { setToken(t); setError(null); } }, (e) => { if (live) setError(messageOf(e)); });
    return () => { live = false; };
  }, [botId, revision]);
  return (
    <aside class="preview" aria-label="Preview">
      <div class="preview-head">
        <h2>Preview</h2>
        <span class="muted">{dirty ? 'Save to see your changes here' : 'The saved draft, as visitors would see it'}</span>
      </div>
      {error ? <p class="error" role="alert">{error}</p> : token ? (
        <iframe key={`${revision}:${token.token}`} title="Chat preview of the saved draft" class="preview-frame"
          src={`/chat/${encodeURIComponent(botId)}?layout=inline#preview=${encodeURIComponent(token.token)}`} />
      ) : <p class="muted">Loading the preview…</p>}
      <p class="muted small-print">Chats here are real conversations with the draft; they show in Conversations. <a href={`#/try/${botId}`}>Try every layout</a></p>
    </aside>
  );
}

/** The identity-verification secret: made on request, shown once with a copy button, replaced with a confirmation. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { confirmDialog, CopyBlock, ErrorText, useAction } from '../../ui.js';

export function IdentitySecret({ botId, hasSecret, canEdit }: { botId: string; hasSecret: boolean; canEdit: boolean }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [has, setHas] = useState(hasSecret);
  const act = useAction();
  const make = async () => {
    if (has && !(await confirmDialog({
      title: 'Replace the identity secret?', danger: true, confirmText: 'Replace secret',
      message: 'The old secret stops working at once: hashes your site makes with it are no longer accepted until it uses the new one.',
    }))) return;
    await act.run(async () => {
      const r = await api<{ secret: string }>('POST', `/bots/${encodeURIComponent(botId)}/identity-secret`);
      setSecret(r.secret);
      setHas(true);
    });
  };
  return (
    <div class="secret wide">
      <p class="muted">{has ? 'This bot has an identity secret. It is never shown again; make a new one if it is lost.' : 'No identity secret yet.'}</p>
      {canEdit && <button type="button" class="secondary" disabled={act.busy} onClick={make}>{has ? 'Replace identity secret' : 'Create identity secret'}</button>}
      {secret && (
        <div class="once" role="status">
          <p><strong>Copy this secret now.</strong> It is shown only this once; keep it on your server, never in the page.</p>
          <CopyBlock text={secret} title="Identity secret" label="Copy secret" />
        </div>
      )}
      <ErrorText error={act.error} />
    </div>
  );
}

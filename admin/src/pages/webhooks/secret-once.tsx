/** A signing secret, shown once (at creation or rotation) with a copy button. */
import { CopyButton } from '../kit/kit.js';

export function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div class="secret-once" role="status">
      <p><strong>Signing secret.</strong> Copy it now into your receiver: it is not shown again. Your receiver checks the <code>Service-Signature</code> header with it.</p>
      <div class="line">
        <input class="webhook-secret" readOnly aria-label="Signing secret" value={secret} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={secret} />
        <button type="button" class="secondary" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}

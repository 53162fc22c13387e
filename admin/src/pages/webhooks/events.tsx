/** The event checkboxes of an endpoint. */
import { EVENT_TEXT } from './types.js';

export function EventChecks({ all, chosen, onChange, disabled }: { all: string[]; chosen: string[]; onChange: (e: string[]) => void; disabled?: boolean }) {
  return (
    <fieldset class="events-choice" disabled={disabled}>
      <legend>Events to send</legend>
      <div class="event-checks">
        {all.map((e) => (
          <label key={e} class="check">
            <input type="checkbox" name="event" value={e} checked={chosen.includes(e)}
              onChange={(ev) => onChange(ev.currentTarget.checked ? [...chosen, e] : chosen.filter((x) => x !== e))} />
            <span><code>{e}</code> {EVENT_TEXT[e] && <small class="muted">{EVENT_TEXT[e]}</small>}</span>
          </label>
        ))}
      </div>
      <button type="button" class="link" onClick={() => onChange(chosen.length === all.length ? [] : [...all])}>{chosen.length === all.length ? 'Clear all' : 'Choose all'}</button>
    </fieldset>
  );
}

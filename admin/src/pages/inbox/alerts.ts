/**
 * How a handoff request gets a person's attention: a short two-tone beep made with WebAudio (no sound file to
 * ship) and a browser notification, asked for with the browser's own permission prompt when the person chooses.
 */
let audio: AudioContext | null = null;

/** Two short tones; quiet, and silent when the browser has not allowed sound yet (no click on the page so far). */
export function beep(): void {
  try {
    audio ??= new AudioContext();
    if (audio.state === 'suspended') void audio.resume();
    const t = audio.currentTime;
    for (const [freq, at] of [[880, 0], [1320, 0.16]] as const) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = 'sine';
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t + at);
      gain.gain.exponentialRampToValueAtTime(0.15, t + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + at + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(t + at);
      osc.stop(t + at + 0.15);
    }
  } catch { /* no audio device: the queue and the notification still say it */ }
}

export type NotifyState = 'unsupported' | NotificationPermission;

export const notifyState = (): NotifyState => (typeof Notification === 'undefined' ? 'unsupported' : Notification.permission);

export async function askToNotify(): Promise<NotifyState> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

/** A browser notification that opens the conversation when clicked; nothing when not allowed. */
export function notify(title: string, body: string, conversationId: string): void {
  if (notifyState() !== 'granted') return;
  try {
    const n = new Notification(title, { body, tag: `handoff-${conversationId}` });
    n.onclick = () => { focus(); location.hash = `#/inbox/${conversationId}`; n.close(); };
  } catch { /* some browsers allow notifications only from a service worker */ }
}

const SOUND_KEY = 'inbox.sound';
export const soundOn = (): boolean => localStorage.getItem(SOUND_KEY) !== 'off';
export const setSound = (on: boolean): void => { localStorage.setItem(SOUND_KEY, on ? 'on' : 'off'); };

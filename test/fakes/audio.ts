// Fake speech: "audio" made by a fake's text-to-speech carries its text, so any fake's
// speech-to-text can turn it back into the same words (a round trip tests can check).
const MAGIC = 'FAKEAUDIO';

export function fakeAudio(text: string, voice: string, format = 'mp3'): Buffer {
  return Buffer.from(`${MAGIC}|${format}|${voice}|${text}`, 'utf8');
}

export function readFakeAudio(audio: Buffer): { format: string; voice: string; text: string } | null {
  const s = audio.toString('utf8');
  if (!s.startsWith(`${MAGIC}|`)) return null;
  const [, format, voice, ...rest] = s.split('|');
  return { format, voice, text: rest.join('|') };
}

/** What the fakes' speech to text hears: the words inside fake audio, or a description of other bytes. */
export function transcriptOf(audio: Buffer): string {
  return readFakeAudio(audio)?.text ?? `(${audio.length} bytes of audio)`;
}

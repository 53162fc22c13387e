/**
 * The visitor's camera in the browser (docs/widget.md, Camera): starts the device once the visitor agreed, keeps a
 * small live preview, and takes JPEG frames no wider than vision.webcam.maxWidth and small enough for one socket
 * frame. It never sends anything by itself: the camera UI decides when a frame goes (per_turn, continuous,
 * on_demand).
 */
export type CameraStatus = 'off' | 'asking' | 'starting' | 'on' | 'denied' | 'failed';

/** Base64 characters of one frame: the socket takes 96 KB frames, with room for the rest of the JSON. */
export const MAX_FRAME_CHARS = 90_000;
const QUALITIES = [0.72, 0.55, 0.4];

export class Camera {
  status: CameraStatus = 'off';
  stream: MediaStream | null = null;
  readonly video: HTMLVideoElement;
  /** When the last frame was sent (ms, performance clock), for maxFps. */
  lastSentAt = -Infinity;
  private canvas = document.createElement('canvas');

  constructor(private maxWidth: number) {
    this.video = document.createElement('video');
    this.video.muted = true;
    this.video.playsInline = true;
    this.video.setAttribute('playsinline', '');
  }

  /** Asks the browser for the camera; resolves with the status it ended in (on, denied or failed) and why. */
  async start(): Promise<{ status: 'on' | 'denied' | 'failed'; reason?: string }> {
    this.status = 'starting';
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw Object.assign(new Error('this browser has no camera access here (a secure https page is needed)'), { name: 'NotSupportedError' });
      this.stream = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: this.maxWidth }, facingMode: 'user' }, audio: false });
      this.video.srcObject = this.stream;
      await this.video.play().catch(() => undefined);
      // The first frame: a picture taken before it would be black.
      if (!this.video.videoWidth) await new Promise<void>((r) => { this.video.onloadeddata = () => r(); setTimeout(r, 3000); });
      this.status = 'on';
      return { status: 'on' };
    } catch (err) {
      const name = (err as Error)?.name ?? '';
      this.stop();
      this.status = name === 'NotAllowedError' || name === 'SecurityError' ? 'denied' : 'failed';
      return { status: this.status as 'denied' | 'failed', reason: `${name}: ${(err as Error)?.message ?? err}`.slice(0, 300) };
    }
  }

  stop(): void {
    this.stream?.getTracks().forEach((tr) => tr.stop());
    this.stream = null;
    this.video.srcObject = null;
    this.status = 'off';
  }

  /** Whether a frame may go now at `fps` frames a second. */
  due(fps: number, now = performance.now()): boolean {
    return now - this.lastSentAt >= 1000 / fps;
  }

  /** The current picture as base64 JPEG (no data: prefix), or null when the camera shows nothing yet. */
  grab(): string | null {
    const v = this.video;
    if (this.status !== 'on' || !v.videoWidth) return null;
    let width = Math.min(v.videoWidth, this.maxWidth);
    for (let round = 0; round < 4; round++, width = Math.round(width * 0.75)) {
      this.canvas.width = width;
      this.canvas.height = Math.round((v.videoHeight / v.videoWidth) * width);
      this.canvas.getContext('2d')!.drawImage(v, 0, 0, this.canvas.width, this.canvas.height);
      for (const q of QUALITIES) {
        const data = this.canvas.toDataURL('image/jpeg', q).split(',')[1] ?? '';
        if (data && data.length <= MAX_FRAME_CHARS) { this.lastSentAt = performance.now(); return data; }
      }
    }
    return null;
  }
}

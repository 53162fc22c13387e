/**
 * Image attachments: photos are shrunk in the browser to at most 1568 px on the longest edge (the server
 * does it again), then posted to POST /widget/v1/uploads; the answer's id goes in the next message frame.
 */
const MAX_EDGE = 1568;

async function shrink(file: File): Promise<Blob> {
  // GIFs may be animated; canvas would keep one frame, so they go as they are.
  if (file.type === 'image/gif' || typeof createImageBitmap !== 'function') return file;
  try {
    const bmp = await createImageBitmap(file);
    const scale = MAX_EDGE / Math.max(bmp.width, bmp.height);
    if (scale >= 1) { bmp.close(); return file; }
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(bmp.width * scale);
    canvas.height = Math.round(bmp.height * scale);
    canvas.getContext('2d')!.drawImage(bmp, 0, 0, canvas.width, canvas.height);
    bmp.close();
    const type = file.type === 'image/png' ? 'image/png' : 'image/jpeg';
    return await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b ?? file), type, 0.9));
  } catch {
    return file;
  }
}

/** A refused upload: the server's code, and its message (written for developers, not shown to visitors). */
export class UploadError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) { super(message || `upload failed (${status})`); }
}

/** What the visitor reads for a refused upload: plain words, never the server's or an image library's text. */
export function uploadProblem(err: unknown): 'error.tooBig' | 'error.notImage' | 'error.unreadable' | 'error.uploadLimit' | 'error.upload' {
  if (!(err instanceof UploadError)) return 'error.upload';
  if (err.status === 413) return 'error.tooBig';
  if (err.status === 429) return 'error.uploadLimit';
  if (err.code === 'invalid') return /not a JPEG/.test(err.message) ? 'error.notImage' : 'error.unreadable';
  return 'error.upload';
}

export async function uploadImage(base: string, botId: string, visitorToken: string, file: File, previewToken?: string): Promise<string> {
  const body = await shrink(file);
  const q = new URLSearchParams({ botId, visitorToken });
  if (previewToken) q.set('preview', previewToken);
  const res = await fetch(`${base}/widget/v1/uploads?${q}`, { method: 'POST', body, headers: { 'content-type': body.type || 'application/octet-stream' } });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new UploadError(res.status, data?.error?.code ?? '', data?.error?.message ?? '');
  return data.id as string;
}

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

export async function uploadImage(base: string, botId: string, visitorToken: string, file: File, previewToken?: string): Promise<string> {
  const body = await shrink(file);
  const q = new URLSearchParams({ botId, visitorToken });
  if (previewToken) q.set('preview', previewToken);
  const res = await fetch(`${base}/widget/v1/uploads?${q}`, { method: 'POST', body, headers: { 'content-type': body.type || 'application/octet-stream' } });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error(data?.error?.message ?? `upload failed (${res.status})`);
  return data.id as string;
}

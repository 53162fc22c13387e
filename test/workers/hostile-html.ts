/** Documents that used to stall the worker pool (issue 27, fault 3), built in memory. */

/** `depth` nested divs around one sentence: 5,000 of them make the 60 KB page of the issue. */
export function nestedDivs(depth = 5000, sentence = 'The nested page says the greenhouse opens at nine.'): string {
  return `<!doctype html><html><head><title>Nested</title></head><body>${'<div>'.repeat(depth)}<p>${sentence}</p>${'</div>'.repeat(depth)}</body></html>`;
}

/**
 * An ordinary page, only long: sections with a heading, a paragraph with a link, a list and a table,
 * repeated to about `bytes` (UTF-8) with `extraBytes` of inline image data per section.
 */
export function longPage(bytes: number, extraBytes = 0): string {
  const image = extraBytes ? `<img alt="" src="data:image/png;base64,${'A'.repeat(extraBytes)}">` : '';
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = `<section><h2>Section ${i}</h2><p>Plants in bed ${i} are watered every morning <a href="/beds/${i}">bed ${i}</a>, and the soil is checked weekly.</p>`
      + `<ul><li>Compost ${i}</li><li>Mulch <b>twice</b> a year</li></ul><table><tr><td>row</td><td>${i}</td></tr></table>${image}</section>\n`;
    parts.push(s);
    size += s.length;
  }
  return `<!doctype html><html><head><title>Long page</title></head><body><main>${parts.join('')}</main></body></html>`;
}

// The current view as a picture: the view's element cloned into an SVG <foreignObject> with the
// page's own style rules inlined and every canvas replaced by an image of what it shows now
// (so the SVG stands alone), and that SVG rasterised into a PNG. Nothing leaves the browser.

/** The text of every style rule the page has (its own stylesheets; others are skipped). */
function pageCss(): string {
  const out: string[] = [];
  for (const sheet of Array.from(document.styleSheets)) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // another origin's sheet: not readable
    }
    for (const r of Array.from(rules)) out.push(r.cssText);
  }
  return out.join('\n');
}

/** Copies what each canvas of `from` shows into the matching element of its clone `to`. */
function canvasesToImages(from: HTMLElement, to: HTMLElement): void {
  const src = Array.from(from.querySelectorAll('canvas'));
  const dst = Array.from(to.querySelectorAll('canvas'));
  src.forEach((c, i) => {
    const img = document.createElement('img');
    img.src = c.toDataURL('image/png');
    img.setAttribute('style', c.getAttribute('style') ?? '');
    img.style.width = `${c.clientWidth}px`;
    img.style.height = `${c.clientHeight}px`;
    img.style.display = 'block';
    dst[i]?.replaceWith(img);
  });
  // Inputs keep what the user typed.
  const ins = Array.from(from.querySelectorAll('input'));
  Array.from(to.querySelectorAll('input')).forEach((el, i) => el.setAttribute('value', ins[i]?.value ?? ''));
}

export interface Snapshot {
  svg: string;
  width: number;
  height: number;
}

/** `el` as it is now, as a standalone SVG document (its whole scroll height). */
export function snapshotSvg(el: HTMLElement): Snapshot {
  const width = Math.ceil(el.getBoundingClientRect().width);
  const height = Math.ceil(Math.max(el.scrollHeight, el.getBoundingClientRect().height));
  const clone = el.cloneNode(true) as HTMLElement;
  canvasesToImages(el, clone);
  clone.style.width = `${width}px`;
  clone.style.height = `${height}px`;
  clone.style.overflow = 'visible';
  const body = getComputedStyle(document.body);
  const wrap = document.createElement('div');
  wrap.setAttribute('xmlns', 'http://www.w3.org/1999/xhtml');
  wrap.setAttribute('style', `font: ${body.font}; color: ${body.color}; background: #fff; width: ${width}px; height: ${height}px`);
  const style = document.createElement('style');
  style.textContent = pageCss();
  wrap.append(style, clone);
  const xml = new XMLSerializer().serializeToString(wrap);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><foreignObject x="0" y="0" width="100%" height="100%">${xml}</foreignObject></svg>`;
  return { svg, width, height };
}

/** An SVG snapshot rasterised at `scale` (device pixels per CSS px). */
export async function snapshotPng(s: Snapshot, scale = window.devicePixelRatio || 1): Promise<Blob> {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(s.svg)}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(s.width * scale);
  canvas.height = Math.round(s.height * scale);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas to draw the picture on');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.scale(scale, scale);
  ctx.drawImage(img, 0, 0);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the PNG could not be encoded'))), 'image/png'));
}

/** Saves `data` as a file named `name` (the browser's download). */
export function download(data: Blob | string, name: string, type = 'text/plain'): void {
  const blob = typeof data === 'string' ? new Blob([data], { type }) : data;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

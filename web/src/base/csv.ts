// Tables as CSV (RFC 4180: comma-separated, CRLF rows, fields quoted when they hold a comma, a
// quote or a line break, quotes doubled). Numbers are written as they are (raw ns, not "1.2 ms").

export type Cell = string | number | null | undefined;

function field(c: Cell): string {
  if (c === null || c === undefined) return '';
  const s = typeof c === 'number' ? (Number.isFinite(c) ? String(c) : '') : c;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A header row and data rows as CSV text. */
export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}

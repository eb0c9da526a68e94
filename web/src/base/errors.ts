// The message of anything thrown or rejected, for the page to show.

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

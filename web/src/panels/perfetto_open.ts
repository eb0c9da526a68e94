// "Open in Perfetto": a trace handed to the Perfetto UI with its documented postMessage protocol
// (perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui): open ui.perfetto.dev in a new
// window, post 'PING' every 50 ms until it answers 'PONG', then post
// `{ perfetto: { buffer, title, fileName } }`. The bytes go from this page to that window only;
// nothing is uploaded.

export const PERFETTO_ORIGIN = 'https://ui.perfetto.dev';
/** How often the new window is pinged, and for how long before giving up. */
const PING_MS = 50;
const GIVE_UP_MS = 30_000;

/**
 * Opens the Perfetto UI (call it in the click handler itself: popup blockers allow a window
 * opened by a click only) and sends it the trace once `bytes` resolves and the UI is ready.
 * Rejects when the window could not be opened, the bytes failed, or the UI never answered.
 */
export function openInPerfetto(bytes: Promise<ArrayBuffer>, title: string, fileName: string): Promise<void> {
  const win = window.open(PERFETTO_ORIGIN);
  if (!win) return Promise.reject(new Error('the browser blocked the new window (allow pop-ups for this page)'));
  return bytes.then(
    (buffer) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const stop = () => {
          window.clearInterval(timer);
          window.removeEventListener('message', onMessage);
        };
        const onMessage = (e: MessageEvent) => {
          if (e.origin !== PERFETTO_ORIGIN || e.source !== win || e.data !== 'PONG') return;
          stop();
          win.postMessage({ perfetto: { buffer, title, fileName } }, PERFETTO_ORIGIN, [buffer]);
          resolve();
        };
        const timer = window.setInterval(() => {
          if (win.closed || Date.now() - started > GIVE_UP_MS) {
            stop();
            reject(new Error(win.closed ? 'the Perfetto window was closed' : 'the Perfetto UI did not answer'));
            return;
          }
          win.postMessage('PING', PERFETTO_ORIGIN);
        }, PING_MS);
        window.addEventListener('message', onMessage);
      }),
    (e: unknown) => {
      win.close();
      throw e;
    },
  );
}

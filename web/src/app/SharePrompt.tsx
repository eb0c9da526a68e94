// A replay share link being opened: the captures it names but does not carry, each with its
// size, length of trace and content hash, and a way to give them (drop anywhere on the page, or
// choose); a refused file's reason; the restore under way; a link that could not be read.
// Reads the share-link controller's store (replay_share.ts).
import { memo, useRef } from 'react';
import { useStore } from '../state/store';
import { describeCapture, SLOT_WORDS, type ReplayShareActions } from './replay_share';


export const SharePrompt = memo(function SharePrompt({ share }: { share: ReplayShareActions }) {
  const st = useStore(share.store, (s) => s);
  const input = useRef<HTMLInputElement>(null);
  if (!st.pending && !st.busy && !st.error) return null;
  const missing = st.pending?.need.filter((n) => n.file === null) ?? [];
  return (
    <div className="notice share-prompt" role="status" data-testid="share-prompt">
      {st.pending && (
        <div>
          <p>
            This link shows a trace replay{st.pending.share.b ? ' with an A/B comparison' : ''}. It names {missing.length === 1 ? 'a file' : 'files'} it does not carry; drop{' '}
            {missing.length === 1 ? 'that file' : 'those files'} on the page, or{' '}
            <button onClick={() => input.current?.click()} data-testid="share-prompt-choose">
              choose…
            </button>
          </p>
          <ul>
            {st.pending.need.map((n) => (
              <li key={n.slot} data-testid="share-need" data-slot={n.slot} data-name={n.ref.name} data-hash={n.ref.hash} data-given={n.file !== null}>
                {SLOT_WORDS[n.slot]}: <b>{describeCapture(n.ref)}</b> {n.file ? (n.ref.bytes ? '— carried in the link' : '— given ✓') : '— needed'}
              </li>
            ))}
          </ul>
          <input
            ref={input}
            type="file"
            multiple
            hidden
            data-testid="share-prompt-input"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              share.give(files);
            }}
          />
        </div>
      )}
      {st.busy && (
        <p className="muted" data-testid="share-busy">
          {st.busy}…
        </p>
      )}
      {st.error && (
        <p className="error" role="alert" data-testid="share-error">
          {st.error}
        </p>
      )}
      <button onClick={share.dismiss} data-testid="share-dismiss">
        {st.pending ? 'cancel' : 'dismiss'}
      </button>
    </div>
  );
});

// The page's messages under the header: a failure of the page itself (the engine worker, an
// uncaught error or rejection), a failed trace import, and notices (a link that could not be
// opened, …). Each can be dismissed.

import { memo } from 'react';

interface Props {
  pageError: string | null;
  importError: string | null;
  notice: string | null;
  onDismissPageError: () => void;
  onDismissImportError: () => void;
  onDismissNotice: () => void;
}

export const Banners = memo(function Banners(p: Props) {
  return (
    <>
      {p.pageError && (
        <div className="notice page-error" role="alert" data-testid="page-error">
          Something went wrong: {p.pageError} <button onClick={p.onDismissPageError}>dismiss</button>
        </div>
      )}
      {p.importError && (
        <div className="notice" role="alert" data-testid="import-error">
          Import failed: {p.importError} <button onClick={p.onDismissImportError}>dismiss</button>
        </div>
      )}
      {p.notice && (
        <div className="notice" role="status">
          {p.notice} <button onClick={p.onDismissNotice}>dismiss</button>
        </div>
      )}
    </>
  );
});

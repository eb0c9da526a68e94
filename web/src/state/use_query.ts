// A panel's engine query, keyed: `fetch` runs when `key` changes (null: nothing to ask). The
// previous data stays while the next reply is on its way; a failure is kept as an error
// beside it; a reply for an older key is dropped.

import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../base/errors';

export interface QueryResult<T> {
  data: T | null;
  /** The key `data` was fetched for. */
  dataKey: string | null;
  error: string | null;
  /** The key of the query in flight, null when none is. */
  loading: string | null;
}

export function useQuery<T>(key: string | null, fetch: () => Promise<T>): QueryResult<T> {
  const [st, setSt] = useState<QueryResult<T>>({ data: null, dataKey: null, error: null, loading: null });
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (key === null || asked.current === key) return;
    asked.current = key;
    setSt((s) => ({ ...s, loading: key }));
    const mine = (r: Partial<QueryResult<T>>) => {
      if (asked.current === key) setSt((s) => ({ ...s, ...r, loading: null }));
    };
    fetch().then(
      (data) => mine({ data, dataKey: key, error: null }),
      (e: unknown) => mine({ error: errorMessage(e) }),
    );
  }, [key, fetch]);
  return st;
}

// The worker protocol and every shape that crosses the worker boundary. All of it is generated
// from the Rust types (contract.gen.ts, written by wasm-engine/bindings/src/contract.rs and
// checked by its drift test); this module adds only what TypeScript needs on top: the request
// body without its id, and the typed way to move a column set out of the wasm.

import type { ColumnLayout, Request } from './contract.gen';

export * from './contract.gen';

/** Distributes over a union so `Omit` keeps each member's own fields. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A request as the client writes it: the worker protocol's `Request` without its id. */
export type RequestBody = DistributiveOmit<Request, 'id'>;

/** A typed array of any column kind. */
export type TypedColumn = Float64Array | Uint32Array | Int32Array;

/** What the wasm `Columns` bag offers (the bindings' `columns.rs`). */
export interface ColumnSource {
  take_f64(name: string): Float64Array;
  take_u32(name: string): Uint32Array;
  take_i32(name: string): Int32Array;
  free(): void;
}

/** Moves the columns of `layout` out of a wasm `Columns` bag (which is freed) into a typed
 * column set; its buffers are returned too, to be transferred to the UI thread. */
export function takeColumns<T extends Record<string, TypedColumn>>(
  src: ColumnSource,
  layout: ColumnLayout<T>,
): { cols: T; transfer: ArrayBuffer[] } {
  const cols: Record<string, TypedColumn> = {};
  for (const name of Object.keys(layout)) {
    const kind: string = layout[name];
    cols[name] = kind === 'f64' ? src.take_f64(name) : kind === 'u32' ? src.take_u32(name) : src.take_i32(name);
  }
  src.free();
  return { cols: cols as T, transfer: Object.values(cols).map((a) => a.buffer as ArrayBuffer) };
}

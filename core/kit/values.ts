/** Reading fields of mod replies, which are untyped JSON: a value of the wanted kind, or undefined. */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** A non-empty string. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export const EVENT_CATEGORIES = ['hello', 'chat', 'game', 'mark', 'sample', 'error', 'other'] as const;
export type EventCategory = (typeof EVENT_CATEGORIES)[number];

/** The predecessor's categories, kept so its subscribers keep working. */
export function categorize(type: unknown): EventCategory {
  if (typeof type !== 'string') return 'other';
  switch (type) {
    case 'hello':
    case 'chat':
    case 'game':
    case 'mark':
      return type;
    case 'error':
    case 'disconnected':
    case 'bridge_disconnected':
      return 'error';
    default:
      if (type.startsWith('sample')) return 'sample';
      if (type.endsWith('_error')) return 'error';
      return 'other';
  }
}

/**
 * The public API of mcbridge: everything a plugin, a config file or an embedding
 * program may use. Built-in plugins import from here and nowhere else in core.
 */
export { definePlugin, defineTool, TOOL_NAME, RESERVED_NAMES } from './registry/define.js';
export { HOST_API_VERSION } from './registry/types.js';
export type {
  Plugin, PluginContext, PluginInfo, PluginSource, Service, ServiceContext, ToolAnnotations, ToolContext, ToolSpec,
  EventsView, HostView, Manifest, ManifestTool, Surface, ToolAvailability, CapsSource, HiddenBy,
} from './registry/types.js';
export type { ToolPolicy } from './registry/policy.js';
export type { ToolScope } from './registry/types.js';
export { defineConfig, defineComposite } from './config/schema.js';
export type { McbridgeConfig, PluginConfigEntry, CompositeSpec, CompositeContext } from './config/schema.js';
export { McbridgeError, ERROR_CODES, type ErrorCode } from './errors.js';
export { sleep } from './abort.js';
export type { RecordedEvent, Cursor, EventPage } from './events/event-log.js';
export { parseCursor, DEFAULT_EVENT_LIMIT } from './events/event-log.js';
export { EVENT_CATEGORIES, type EventCategory } from './events/categories.js';
export type { ModReply } from './link/mod-link.js';
export type { Vantage } from './link/discovery.js';
export { TICK_MS } from './link/verbs.js';
export { Host, type HostOptions, type PluginEntry, type CallOptions } from './host.js';
export { ApiClient, DaemonUnreachableError } from './api/client.js';
export { VERSION } from './version.js';

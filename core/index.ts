/**
 * 'mcbridge': the authoring API. Everything a plugin or a config file may use: define*, the
 * plugin API types, errors, cursors. Built-in plugins import from here and 'mcbridge/kit', nothing else.
 */
export { definePlugin, defineTool, TOOL_NAME, RESERVED_NAMES } from './host/define.js';
export { HOST_API_VERSION } from './host/plugin-api.js';
export type {
  Plugin,
  PluginContext,
  PluginInfo,
  PluginSource,
  Service,
  ServiceContext,
  ServiceStop,
  ToolAnnotations,
  ToolContext,
  ToolSpec,
  DeferredCleanup,
  EventsView,
  HostView,
  TargetOptionsView,
  HostStatus,
  Manifest,
  ManifestTool,
  PluginGuide,
  Surface,
  ToolAvailability,
  ToolDependency,
  CapsSource,
  HiddenBy,
} from './host/plugin-api.js';
export type { ToolPolicy } from './host/registry/policy.js';
export type { ToolScope, VerbRule, VerbSpec } from './host/plugin-api.js';
export { defineConfig, defineComposite } from './authoring/config.js';
export type { McbridgeConfig, TargetOptions, PluginConfigEntry, CompositeSpec, CompositeContext, ScenarioSpec, ScenarioStep } from './authoring/config.js';
export { McbridgeError, ERROR_CODES, type ErrorCode } from './host/errors.js';
export { sleep } from './host/cancel.js';
export type { RecordedEvent, Cursor, EventPage, EventStats } from './host/events/event-log.js';
export type { EventFollower, FollowItem, FollowOptions } from './host/events/follow.js';
export { parseCursor, DEFAULT_EVENT_LIMIT } from './host/events/event-log.js';
export { EVENT_CATEGORIES, type EventCategory } from './host/events/categories.js';
export type { ModReply } from './host/link/mod-link.js';
export type { Vantage } from './host/link/discovery.js';
export { TICK_MS } from './host/link/verbs.js';
export { VERSION } from './util/version.js';

/**
 * Where a client looks for the daemon when told nothing. Its own module so that the client
 * (every CLI command) does not load the server, and with it the host and zod, for two constants.
 * core/api/server.ts binds to the same address; a test keeps them equal.
 */
export const DEFAULT_API_HOST = '127.0.0.1';
export const DEFAULT_API_PORT = 8765;

/**
 * Where a config is looked for, in this order, in the working directory and up to the project root
 * (the first directory with a package.json). Its own module so client commands can find the file
 * without loading the config loader (cosmiconfig, jiti).
 */
export const SEARCH_PLACES = [
  'mcbridge.config.ts',
  'mcbridge.config.mts',
  'mcbridge.config.cts',
  'mcbridge.config.js',
  'mcbridge.config.mjs',
  'mcbridge.config.cjs',
  'mcbridge.config.json',
  'package.json',
] as const;

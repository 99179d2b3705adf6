/** Poll a condition; fails with what was awaited. For conditions, not for timing claims. */
export { waitUntil } from '../../core/testing/until.js';

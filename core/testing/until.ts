/** Poll a condition (sync, or async such as a call to the daemon); fails with what was awaited. For conditions, not for timing claims. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

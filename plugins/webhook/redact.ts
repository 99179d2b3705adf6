/**
 * What the forwarder may print of a receiver: `scheme://host[:port]`. The userinfo, path and
 * query of a webhook URL are often the credential itself (`/hooks/<token>`), and the secret
 * signs every body, so neither ever reaches a log line, a status field or an error.
 */
export const REDACTED = '[redacted]';

/** `scheme://host[:port]` (IPv6 bracketed), or '' when the text is not a URL with a host. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.host ? `${u.protocol}//${u.host}` : '';
  } catch {
    return '';
  }
}

/** A sanitiser for one receiver: its full URL becomes the redacted one, then its secret `[redacted]`. */
export function sanitizer(url: string, secret: string): (text: string) => string {
  const shown = redactUrl(url);
  const urlForms = new Set<string>([url]);
  const parts: string[] = [];
  try {
    const u = new URL(url);
    urlForms.add(u.href);
    // Pieces that an error message could quote on their own (a path echoed back by a server, say),
    // and the userinfo as written (percent-encoded) and as decoded: a message may quote either.
    // An absent piece ('', or the path '/') is dropped by the two-character rule below.
    parts.push(u.pathname, u.search, u.username, decodeURIComponent(u.username), u.password, decodeURIComponent(u.password));
  } catch {
    // not a URL: only the text itself is replaced
  }
  const forms = [...urlForms].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of forms) out = out.split(form).join(shown);
    if (secret) out = out.split(secret).join(REDACTED);
    for (const part of parts) if (part.length >= 2) out = out.split(part).join(REDACTED);
    return out;
  };
}

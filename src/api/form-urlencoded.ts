/**
 * One name or value of application/x-www-form-urlencoded text decoded ('+' a space, then percent-decoding, UTF-8);
 * undefined when it is not valid percent-encoding (the caller says what that means: refused, or kept as sent).
 */
export function decodeForm(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** `decodeForm`, text that is not valid percent-encoding kept as sent: to read what a forwarded request said. */
export const decodeFormAsSent = (text: string): string => decodeForm(text) ?? text;

/** The issuer the gateway passed (its public base URL); without it no token or redirect can be right. */
export function requireIssuer(issuer: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(issuer)) throw new Error('the caller did not pass the issuer (the public base URL)');
  return issuer;
}

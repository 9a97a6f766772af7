/**
 * Why a connection to a server failed, in words a person can act on. Node's fetch reports every
 * failure as "fetch failed" and keeps the socket's reason (ECONNREFUSED, ENOTFOUND, …) a cause or
 * two below, where the SDKs' "Connection error." never shows it.
 */

const BY_CODE: Record<string, string> = {
  ECONNREFUSED: 'connection refused (nothing is listening there)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (DNS)',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'the network is unreachable',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host name',
};

/** The socket-level reason under an SDK's connection error, or undefined when there is none. */
export function connectionProblem(err: unknown, url?: string): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
    const codes = [code, ...(Array.isArray(errors) ? errors.map((x) => (x as { code?: unknown })?.code) : [])];
    for (const c of codes) if (typeof c === 'string' && BY_CODE[c]) return BY_CODE[c];
    // fetch will not connect to ports browsers block (1, 22, 25, 6000, …), and says only "bad port".
    if (message === 'bad port') return `port ${portOf(url) ?? '?'} is one that Node's fetch refuses to connect to; use another port`;
  }
  return undefined;
}

/** A URL as it may be shown: user name and password (if any) masked. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '***';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

function portOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    return undefined;
  }
}

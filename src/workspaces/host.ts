/** A workspace label: what may reach the file system as `DATA_DIR/<label>.sqlite`. */
export const SUBDOMAIN_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function isValidSubdomain(label: string): boolean {
  return SUBDOMAIN_PATTERN.test(label);
}

/**
 * The workspace named by a Host header: the first label when the host is `<label>.<baseDomain>`
 * (port ignored, case-insensitive as DNS is). Anything else — no host, the bare base domain, a
 * deeper name, a label that does not match the pattern — is null and never touches the disk.
 */
export function subdomainFromHost(host: string | undefined, baseDomain: string): string | null {
  if (!host) return null;
  const name = host.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
  const suffix = `.${baseDomain}`;
  if (!name.endsWith(suffix)) return null;
  const label = name.slice(0, -suffix.length);
  return isValidSubdomain(label) ? label : null;
}

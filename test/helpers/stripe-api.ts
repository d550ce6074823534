import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SessionRequest {
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  /** The form fields as the stripe package encoded them (`line_items[0][price_data][currency]`). */
  form: Record<string, string>;
}

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_status: 'unpaid';
  status: 'open';
}

/**
 * A local HTTP server standing in for the card processor's API (only what hourbook calls:
 * `POST /v1/checkout/sessions`), so tests run the real `stripe` package end to end. It keeps every
 * request, honours Idempotency-Key like the real API (same key and same parameters, same session;
 * same key with other parameters, 400 `idempotency_error`, the request not kept), and can be told
 * to fail.
 */
export async function startFakeStripe(): Promise<{
  base: string;
  requests: SessionRequest[];
  sessions: FakeSession[];
  /** The next `times` requests fail with `status` (the package retries once by itself). */
  failNext: (status: number, times?: number) => void;
  close: () => Promise<void>;
}> {
  const requests: SessionRequest[] = [];
  const sessions: FakeSession[] = [];
  /** Each key's session and the parameters it was first used with (the form, keys sorted). */
  const byKey = new Map<string, { session: FakeSession; params: string }>();
  let failing: { status: number; times: number } | null = null;
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => resolve(body));
    });
  const server: Server = createServer((req, res) => {
    void read(req).then((body) => {
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/v1/checkout/sessions') {
        res.writeHead(404).end(JSON.stringify({ error: { type: 'invalid_request_error', message: `no ${req.method} ${req.url}` } }));
        return;
      }
      if (failing !== null) {
        res.writeHead(failing.status).end(JSON.stringify({ error: { type: 'api_error', message: 'down for the test' } }));
        failing = --failing.times > 0 ? failing : null;
        return;
      }
      const form = Object.fromEntries(new URLSearchParams(body));
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      const params = JSON.stringify(Object.entries(form).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const first = idempotencyKey ? byKey.get(idempotencyKey) : undefined;
      if (first && first.params !== params) {
        // As Stripe answers a key used again with other parameters (for 24 hours).
        const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`;
        res.writeHead(400).end(JSON.stringify({ error: { type: 'idempotency_error', message } }));
        return;
      }
      requests.push({ authorization: req.headers.authorization, idempotencyKey, form });
      const known = first?.session;
      const session: FakeSession = known ?? {
        id: `cs_test_${sessions.length + 1}`,
        object: 'checkout.session',
        url: `https://checkout.stripe.test/c/pay/cs_test_${sessions.length + 1}`,
        amount_total: Number(form['line_items[0][price_data][unit_amount]']),
        currency: form['line_items[0][price_data][currency]'] ?? '',
        client_reference_id: form.client_reference_id ?? null,
        metadata: { invoice_id: form['metadata[invoice_id]'] ?? '' },
        payment_status: 'unpaid',
        status: 'open',
      };
      if (!known) {
        sessions.push(session);
        if (idempotencyKey) byKey.set(idempotencyKey, { session, params });
      }
      res.writeHead(200).end(JSON.stringify(session));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    sessions,
    failNext: (status, times = 1) => (failing = { status, times }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

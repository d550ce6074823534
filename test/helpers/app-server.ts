import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { provisionWorkspace } from '../../src/domain/workspace/provision.ts';
import { createServices, type AppServices } from '../../src/services.ts';
import { launchChromium } from './browser.ts';
import { startSmtp } from './smtp.ts';
import { freePort } from './ports.ts';

/**
 * The whole product as a browser test meets it: a data directory, a real SMTP server, and a server
 * on a fixed free port (so `PUBLIC_URL` links point at it), with background jobs on. `env` is
 * ready before `start`, so a test can run the command line against the same directory first.
 */
export async function prepareApp(mailDomain: string, extraEnv: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hourbook-app-'));
  const port = await freePort();
  const smtp = await startSmtp();
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: `http://{subdomain}.localhost:${port}`,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    MAIL_FROM: `hourbook <no-reply@${mailDomain}>`,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    ...extraEnv,
  };
  let running: { services: AppServices; server: RunningServer } | null = null;
  return {
    dataDir,
    port,
    smtp,
    env,
    async start() {
      const services = createServices(loadConfig(env), { logger: pino({ level: 'silent' }) });
      running = { services, server: await startServer(services, { port, host: '127.0.0.1' }) };
      return running;
    },
    async close() {
      await running?.server.close();
      await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * What a browser suite starts from: the app served (`prepareApp`), one workspace in it, and a
 * Chromium. `close` stops the browser, the server and the mail server, and removes the data.
 */
export async function startBrowserSuite(mailDomain: string, workspace: Parameters<typeof provisionWorkspace>[1]) {
  const prepared = await prepareApp(mailDomain);
  const { services } = await prepared.start();
  const { apiKey } = provisionWorkspace(services.registry, workspace, new Date());
  const browser = await launchChromium().catch(async (err: unknown) => {
    await prepared.close();
    throw err;
  });
  return {
    port: prepared.port,
    services,
    apiKey,
    browser,
    close: async () => {
      await browser.close();
      await prepared.close();
    },
  };
}

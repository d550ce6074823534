import { defineConfig } from 'vite';

/**
 * The staff web app (web/) is built into dist/web, which the server serves at / on every workspace
 * host (src/web/serve-app.ts). `npm run dev:web` serves it with hot reload and sends /trpc to a
 * server on PORT (default 3000); open it at http://<workspace>.localhost:5173/.
 */
export default defineConfig({
  root: 'web',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      // React Query marks its hooks "use client" for server components; meaningless in an SPA bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    allowedHosts: ['.localhost'],
    proxy: { '/trpc': { target: `http://127.0.0.1:${process.env.PORT ?? 3000}`, changeOrigin: false } },
  },
});

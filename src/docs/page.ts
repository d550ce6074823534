import express, { type Router } from 'express';
import { lazy } from '../lazy.ts';
import { OPENAPI_PATH } from '../openapi/http.ts';

export const DOCS_PATH = '/docs';

/** Swagger UI is loaded at the first visit of the page, not when the server starts. */
const swaggerUiExpress = lazy<typeof import('swagger-ui-express')>('swagger-ui-express');

/**
 * Every REST answer is JSON and endpoints 16-18 refuse a request that does not say so in `Accept`;
 * Swagger UI would send "any type". Runs in the browser (swagger-ui-express inlines its source).
 */
function acceptJson(request: { headers: Record<string, string> }) {
  for (const name of Object.keys(request.headers)) if (name.toLowerCase() === 'accept') delete request.headers[name];
  request.headers.Accept = 'application/json';
  return request;
}

/**
 * The API reference page: Swagger UI from the installed swagger-ui-dist (no CDN), reading the
 * served document (whose first server is the address the page is on, see src/openapi/http.ts).
 * `url` is fixed so a `?url=` in the address can never load another document, and the online
 * validator badge (a call to validator.swagger.io) is off.
 */
export function docsRouter(): Router {
  const options = {
    customSiteTitle: 'hourbook API reference',
    swaggerOptions: { url: OPENAPI_PATH, validatorUrl: null, displayOperationId: true, tryItOutEnabled: false, requestInterceptor: acceptJson },
  };
  const router = express.Router({ strict: true });
  // The page loads its assets relatively (./swagger-ui.css), which only works below `/docs/`.
  router.get('/', (req, res, next) => {
    if (req.originalUrl.split('?')[0] === DOCS_PATH) res.redirect(301, `${DOCS_PATH}/`);
    else next();
  });
  // swagger-ui-dist's own demo page would load the Petstore document from the internet.
  router.get(['/index.html', '/swagger-initializer.js'], (_req, res) => {
    res.redirect(301, `${DOCS_PATH}/`);
  });
  let page: Router | undefined;
  const pageRouter = () => {
    if (!page) {
      const swaggerUi = swaggerUiExpress();
      page = express.Router({ strict: true });
      page.use(swaggerUi.serveFiles(undefined, options));
      page.get('/', swaggerUi.setup(undefined, options));
    }
    return page;
  };
  router.use((req, res, next) => pageRouter()(req, res, next));
  return router;
}

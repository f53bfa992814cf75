import SwaggerUIBundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import 'swagger-ui-dist/swagger-ui.css';
import './docs.css';

/*
 * The API reference at /docs/: Swagger UI (swagger-ui-dist, bundled here by
 * Vite, so nothing loads from a CDN) rendering the document the gateway
 * builds from its route rows. Everything is relative to this page, so it
 * works behind a proxy prefix, and it runs under the gateway's strict CSP.
 */
SwaggerUIBundle({
  url: new URL('../openapi.json', window.location.href).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Swagger UI would otherwise send the document to validator.swagger.io for a badge.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  tryItOutEnabled: false,
  persistAuthorization: false,
});

// Starts Swagger UI on /docs: a file, not an inline script, since the pages' Content-
// Security-Policy runs scripts from this server only. The schema's URL is on the element.
const element = document.getElementById("swagger-ui");
const bundle = /** @type {any} */ (window).SwaggerUIBundle; // swagger-ui-bundle.js, loaded first
bundle({
  url: element?.dataset.openapiUrl,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [bundle.presets.apis, bundle.SwaggerUIStandalonePreset],
});

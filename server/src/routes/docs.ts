// A self-contained page rendering the OpenAPI document (no CDN: works offline). Its script is
// served beside it, not inline: the Content-Security-Policy allows scripts from this origin only.
import { Router } from 'express';
import { openApiDocument } from '../openapi.ts';

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>WebPlotViz API</title>
<style>body{font:15px system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f5;padding:.6em;overflow:auto;max-height:20em}
.m{display:inline-block;width:4.5em;font-weight:600;text-transform:uppercase}.get{color:#1565c0}.post{color:#2e7d32}
.patch,.put{color:#ef6c00}.delete{color:#c62828}details{border-bottom:1px solid #ddd;padding:.4em 0}</style></head>
<body><h1>WebPlotViz API v1</h1><p>Machine-readable: <a href="/api/v1/openapi.json">openapi.json</a>.
Scripts: <code>curl -H "Authorization: Bearer $TOKEN" -F file=@plot.pviz /api/v1/plots</code></p><div id="ops"></div>
<script src="/api/v1/docs.js"></script></body></html>`;

const SCRIPT = `fetch('/api/v1/openapi.json').then(r=>r.json()).then(doc=>{
  const root=document.getElementById('ops');
  document.querySelector('p').insertAdjacentText('afterend', doc.info.description);
  for(const [path,methods] of Object.entries(doc.paths)) for(const [method,op] of Object.entries(methods)){
    const d=document.createElement('details'), s=document.createElement('summary');
    s.innerHTML='<span class="m '+method+'"></span><code></code> ';
    s.children[0].textContent=method; s.children[1].textContent=doc.servers[0].url+path;
    s.append(op.summary+(op.security?' 🔒':'')); d.append(s);
    const pre=document.createElement('pre'); pre.textContent=JSON.stringify({parameters:op.parameters,requestBody:op.requestBody,responses:op.responses},null,2);
    d.append(pre); root.append(d);
  }
});
`;

export function docsRoutes(): Router {
  const router = Router();
  const document = openApiDocument();
  router.get('/openapi.json', (_req, res) => res.json(document));
  router.get('/docs', (_req, res) => res.type('html').send(PAGE));
  router.get('/docs.js', (_req, res) => res.type('js').send(SCRIPT));
  return router;
}

import { defineConfig } from 'vitest/config';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Writes the viewer's code chunks into index.html's inline script, which preloads them on a
 * plot's page together with its data: they download alongside the entry, not after it.
 */
function viewerChunks(): Plugin {
  return {
    name: 'wpv-viewer-chunks',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        const chunks = Object.values(bundle ?? {}).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const viewer = chunks.find((c) => c.facadeModuleId?.endsWith('/src/viewer/ViewerPage.tsx'));
        if (!viewer) throw new Error('the viewer has no chunk of its own');
        const entries = new Set(chunks.filter((c) => c.isEntry).map((c) => c.fileName));
        const files = [viewer.fileName, ...viewer.imports.filter((f) => !entries.has(f))];
        return html.replace('[/* viewer chunks */]', JSON.stringify(files.map((f) => '/' + f)));
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), viewerChunks()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/api': 'http://localhost:8080' } },
  test: { environment: 'node', include: ['src/**/*.test.ts'] },
});

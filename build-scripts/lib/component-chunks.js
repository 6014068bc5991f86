// Which of the folder build's chunks belong to the web component. The npm package ships the
// component's files only (package.json `files`: dist/attn-scale-demo.js, dist/assets/*.js and
// *.wasm), so every chunk that only the page or embed.html loads is written to dist/assets/page/
// instead. The split follows the module graph, not names: a chunk holding any module that the
// component's entry reaches (static or dynamic imports) is the component's; the page's entries and
// the chunks with none of those modules are the page's. So a new module or chunk lands on the right
// side by itself.
export function componentChunks(entryId) {
  let reachable = null;
  const plugin = {
    name: 'attnscale-component-chunks',
    buildEnd() {
      reachable = new Set();
      const stack = [entryId];
      while (stack.length) {
        const id = stack.pop();
        if (reachable.has(id)) continue;
        reachable.add(id);
        const info = this.getModuleInfo(id);
        if (info) stack.push(...info.importedIds, ...info.dynamicallyImportedIds);
      }
    },
  };
  // A dynamic import's facade chunk may hold no module of its own: its facade module decides.
  const isComponent = (chunk) =>
    [chunk.facadeModuleId, ...chunk.moduleIds].some((id) => id && reachable?.has(id));
  return {
    plugin,
    entryFileNames: (chunk) =>
      chunk.name === 'attn-scale-demo' ? '[name].js' : 'assets/page/[name]-[hash].js',
    chunkFileNames: (chunk) =>
      isComponent(chunk) ? 'assets/[name]-[hash].js' : 'assets/page/[name]-[hash].js',
  };
}

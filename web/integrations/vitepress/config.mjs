// .vitepress/config.mjs of a VitePress site with attnscale's charts (attnscale.mjs beside it).
// ATTNSCALE_BASE, if set when building, points at your own copy of attnscale's dist/ (a URL
// ending in /); otherwise the charts come from the CDN.
import process from 'node:process';
import { defineConfig } from 'vitepress';
import { attnscaleHead, isAttnscaleElement, DEFAULT_BASE } from './attnscale.mjs';

export default defineConfig({
  title: 'My notes',
  head: [...attnscaleHead(process.env.ATTNSCALE_BASE || DEFAULT_BASE)],
  vue: { template: { compilerOptions: { isCustomElement: isAttnscaleElement } } },
});

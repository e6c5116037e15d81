// Trunk's post_build hook (Trunk.toml): in release builds, minifies the page's
// wasm-bindgen glue (the first load's and the full playground's) and the full
// playground's style sheet with esbuild.
//
// Trunk's own JS minifier gives up on this glue ("Failed to minify JS": it cannot parse
// `export default` in an ES module), so it used to ship as wasm-bindgen writes it: 42 KB,
// 7.9 KB gzipped for the first load. The glue is an ES module, and stays one. The
// first load's file is in index.html with a subresource-integrity hash, which is
// recomputed here for the new content.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);
const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error('minify-glue: TRUNK_STAGING_DIR is not set (run by trunk only)');
  process.exit(1);
}
// esbuild is installed beside this script (xtask/npm, `npm ci`).
const esbuild = createRequire(import.meta.url)('esbuild');

const glue = readdirSync(staging).filter((f) => /^costlab-(web-[0-9a-f]+|full)\.js$/.test(f));
if (glue.length !== 2) {
  console.error(`minify-glue: expected the first load's and the full playground's glue, found ${glue}`);
  process.exit(1);
}
// The glue's snippets (the first load's inline JS, as `snippets/<crate>/<file>`).
for (const dir of readdirSync(join(staging, 'snippets'))) {
  for (const file of readdirSync(join(staging, 'snippets', dir))) {
    if (file.endsWith('.js')) glue.push(`snippets/${dir}/${file}`);
  }
}
const indexPath = join(staging, 'index.html');
let index = readFileSync(indexPath, 'utf8');
for (const name of glue) {
  const path = join(staging, name);
  const before = readFileSync(path, 'utf8');
  const { code } = esbuild.transformSync(before, { minify: true, format: 'esm', target: 'es2020' });
  writeFileSync(path, code);
  const integrity = `sha384-${createHash('sha384').update(code).digest('base64')}`;
  // Trunk writes `href=/NAME integrity=sha384-...` (minified HTML, attribute order kept).
  const at = new RegExp(`(href=["']?/?${name.replace(/[.]/g, '\\.')}["']? integrity=["']?)sha384-[A-Za-z0-9+/=]+`);
  if (at.test(index)) index = index.replace(at, `$1${integrity}`);
  console.log(`minify-glue: ${name} ${before.length} -> ${code.length} bytes`);
}
writeFileSync(indexPath, index);
// The full playground's style sheet: trunk copies it as it is (the first load's own sheet
// trunk minifies).
const sheet = join(staging, 'costlab-full.css');
const css = readFileSync(sheet, 'utf8');
const { code: small } = esbuild.transformSync(css, { loader: 'css', minify: true });
writeFileSync(sheet, small);
console.log(`minify-glue: costlab-full.css ${css.length} -> ${small.length} bytes`);

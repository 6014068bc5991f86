// Shared by the hostile-input tests (url-injection.test.js, attributes-property.test.js): strings
// that would run script or add an element if they were ever parsed as HTML or used as a URL, and
// the DOM facts that must not change when such strings are fed to the page.
import fc from 'fast-check';

// Payloads: each would run script or add an element if it were ever parsed as HTML or used as a
// URL. `__pwned` is the marker; `xpwn-*` tags are unique names no page code creates.
export const PAYLOADS = [
  '<img src=x onerror="window.__pwned=1">',
  '"><script>window.__pwned=2</script>',
  "'><svg onload=window.__pwned=3>",
  '<iframe srcdoc="<script>parent.__pwned=4</script>"></iframe>',
  'javascript:window.__pwned=5',
  '<a href="javascript:alert(6)">x</a>',
  '<xpwn-el id=xpwn>',
  '</textarea></title><xpwn-close>',
  '<style>*{display:none}</style>',
  '<math><mtext><img src=x onerror=alert(7)></mtext></math>',
  '" onmouseover="alert(8)" x="',
  '&lt;img src=x onerror=alert(9)&gt;',
  '%3Cimg%20src%3Dx%20onerror%3Dalert(10)%3E',
  // eslint-disable-next-line no-template-curly-in-string -- a template-injection payload, meant literally
  '${alert(11)}{{constructor.constructor("alert(12)")()}}',
  '<base href="javascript:alert(13)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(14)">',
  '<object data="javascript:alert(15)"></object>',
  '\u0000<scr\u0000ipt>alert(16)</script>',
  '<img src=x onerror=alert(17)//',
];
/** A hostile string: a payload, a payload behind a plausible value, or random text in <…>. */
export const payload = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PAYLOADS) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('', '128', '-1', 'fp16', 'true', 'none', ' '),
        fc.constantFrom(...PAYLOADS),
        fc.string({ maxLength: 6 }),
      )
      .map(([a, b, c]) => a + b + c),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 16 }).map((s) => `<${s}>`) },
);
/**
 * Runs in the page (page.evaluate(domFacts)): counts of tags no page code creates from data, plus
 * every on* attribute, javascript:/data: URL and unknown or injected element, in the document and
 * every open shadow root; the marker global and the title.
 */
export function domFacts() {
  const DANGER = [
    'script',
    'img',
    'iframe',
    'frame',
    'object',
    'embed',
    'style',
    'link',
    'base',
    'meta',
    'form',
    'svg',
    'math',
    'video',
    'audio',
    'image',
    'template',
  ];
  const counts = Object.fromEntries(DANGER.map((t) => [t, 0]));
  const bad = [];
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const tag = el.localName;
      if (tag in counts) counts[tag] += 1;
      if (tag.includes('-') && tag !== 'attn-scale-demo') bad.push(`unknown element <${tag}>`);
      if (tag.includes('pwn')) bad.push(`injected element <${tag}>`);
      // (an <attn-scale-demo>'s own attributes are the input under test, set by the host page)
      for (const a of tag === 'attn-scale-demo' ? [] : el.attributes) {
        if (/^on/i.test(a.name)) bad.push(`<${tag} ${a.name}>`);
        if (/^\s*(javascript|data|vbscript):/i.test(a.value) && a.name !== 'content')
          bad.push(`<${tag} ${a.name}="${a.value.slice(0, 40)}">`);
        if (/pwn|alert\(/i.test(a.name)) bad.push(`attribute ${a.name} on <${tag}>`);
      }
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return { counts, bad, pwned: window.__pwned ?? null, title: document.title };
}

/** Wraps a fast-check property: node's reporter shows the failing input but drops the cause, so print it. */
export const logged =
  (fn) =>
  async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      console.log(`# failed for ${JSON.stringify(args)}: ${err.stack}`);
      throw err;
    }
  };

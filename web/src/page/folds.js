// The page's folded topics ("Going further" is a list of <details>): a link into a closed one (a
// chapter's "see …", a preset's chart, a deep link in the address) opens it, and every closed one
// around it, before the browser scrolls, so the reader lands on something visible.

/** Opens every closed <details> that holds `el`. */
export function openFoldsAround(el) {
  for (let d = el?.closest('details:not([open])'); d; d = d.parentElement?.closest('details:not([open])'))
    d.open = true;
}

/** The element a '#id' link points to, or null. */
function targetOf(doc, hash) {
  if (!hash || hash.length < 2) return null;
  try {
    return doc.getElementById(decodeURIComponent(hash.slice(1)));
  } catch {
    return null; // a malformed escape in the address
  }
}

/** Opens the folds for the address's own #id now, and for every in-page link and hash change later. */
export function watchFolds(doc = document) {
  doc.addEventListener(
    'click',
    (e) => {
      const a = e.target.closest?.('a[href^="#"]');
      if (a) openFoldsAround(targetOf(doc, a.getAttribute('href')));
    },
    true, // before the browser follows the link
  );
  addEventListener('hashchange', () => openFoldsAround(targetOf(doc, location.hash)));
  const first = targetOf(doc, location.hash);
  if (first?.closest('details:not([open])')) {
    openFoldsAround(first);
    first.scrollIntoView();
  }
}

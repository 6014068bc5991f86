// Language tags for Intl. Browsers can report a tag that Intl rejects: WebKit under the C/POSIX
// locale (LANG=C.UTF-8) reports navigator.language === 'C', and `new Intl.NumberFormat('C')`
// throws "RangeError: invalid language tag". Never pass such a tag to Intl.

/** True when Intl accepts `tag` (ECMA-402 IsStructurallyValidLanguageTag, via getCanonicalLocales). */
export function isValidLocale(tag) {
  try {
    return typeof tag === 'string' && Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

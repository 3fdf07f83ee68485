/**
 * What the simulator charges for its own template and pack price texts (the platform's side of the price
 * grammar, independent of the server's reader in src/paid/pricing). Forms: `N`, `N credits`, `N API units`,
 * a range `N-M …` (charged at its top), a term `… per reference image` (× the reference images sent), terms
 * joined by `plus`. Units as the sandbox means them: a figure without a unit word is API units (×100), as the
 * spec writes enterprise prices; `1.000` and `1,000` are a thousand. A text outside these forms is a sandbox
 * bug (it throws), never a silent 0.
 */
export function simCharge(text: string, referenceImages: number): number {
  let total = 0;
  for (const term of text
    .toLowerCase()
    .trim()
    .replace(/\.$/, '')
    .split(/\s+plus\s+/)) {
    const m = /^(?:(\d[\d.,]*)\s*-\s*)?(\d[\d.,]*)\s*(credits?|api (?:credit )?units?)?(\s+per reference image)?$/.exec(
      term,
    );
    if (!m) throw new Error(`simulator bug: price text "${text}" is not one the sandbox charges`);
    // `1.000` / `1,000`: a thousand; `0.5` / `12.5`: a decimal.
    const figure = Number(/^\d{1,3}([.,]\d{3})+$/.test(m[2]!) ? m[2]!.replace(/[.,]/g, '') : m[2]!.replace(/,/g, ''));
    const factor = m[3]?.startsWith('credit') ? 1 : 100;
    total += figure * factor * (m[4] ? referenceImages : 1);
  }
  return Math.ceil(total - 1e-9);
}

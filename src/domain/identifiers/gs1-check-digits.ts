/** GS1 mod-10 check digits, UPC-E to UPC-A expansion, and ISBN-10 to its 978 EAN-13. */
/** The GS1 mod-10 check digit for `body` (the code without its check digit). */
export function gs1CheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const weight = (body.length - i) % 2 === 1 ? 3 : 1;
    sum += Number(body.charAt(i)) * weight;
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether the last digit of an all-digit code is its GS1 mod-10 check digit. */
export function hasValidGs1CheckDigit(code: string): boolean {
  return /^\d{2,}$/.test(code) && gs1CheckDigit(code.slice(0, -1)) === Number(code.slice(-1));
}

/** The UPC-A of an 8-digit UPC-E (number system 0 or 1), printed check digit kept; else undefined. */
export function expandUpcE(upcE: string): string | undefined {
  if (!/^[01]\d{7}$/.test(upcE)) return undefined;
  const ns = upcE.charAt(0);
  const [a, b, c, d, e, f] = upcE.slice(1, 7);
  const check = upcE.charAt(7);
  let body: string;
  switch (f) {
    case '0':
    case '1':
    case '2':
      body = `${a}${b}${f}0000${c}${d}${e}`;
      break;
    case '3':
      body = `${a}${b}${c}00000${d}${e}`;
      break;
    case '4':
      body = `${a}${b}${c}${d}00000${e}`;
      break;
    default:
      body = `${a}${b}${c}${d}${e}0000${f}`;
  }
  return `${ns}${body}${check}`;
}

/** Whether a 10-character string is an ISBN-10 whose mod-11 check character holds. */
export function isValidIsbn10(isbn: string): boolean {
  if (!/^\d{9}[\dX]$/i.test(isbn)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const c = isbn.charAt(i).toUpperCase();
    sum += (10 - i) * (c === 'X' ? 10 : Number(c));
  }
  return sum % 11 === 0;
}

/** The 978 ISBN-13 (an EAN-13) of a valid ISBN-10; `undefined` if the ISBN-10 is not valid. */
export function isbn10ToIsbn13(isbn: string): string | undefined {
  if (!isValidIsbn10(isbn)) return undefined;
  const body = `978${isbn.slice(0, 9)}`;
  return `${body}${gs1CheckDigit(body)}`;
}

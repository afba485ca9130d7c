import { expect } from 'chai';
import fc from 'fast-check';
import { isValidCnpj, isValidCpf, normalizeDocument } from '../../src/api/documents.js';

describe('isValidCpf()', () => {
  const table: { given: string; want: boolean }[] = [
    { given: '52998224725', want: true },
    { given: '11144477735', want: true },
    { given: '52998224724', want: false },
    { given: '11111111111', want: false },
    { given: '00000000000', want: false },
    { given: '5299822472', want: false },
    { given: '529982247250', want: false },
    { given: '5299822472a', want: false },
    { given: '', want: false },
  ];
  for (const { given, want } of table) it(`says ${want} for ${JSON.stringify(given)}`, () => expect(isValidCpf(given)).to.equal(want));

  it('rejects any single-digit change of a valid CPF (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 9 }), (pos, delta) => {
      const digits = '52998224725'.split('').map(Number);
      digits[pos] = ((digits[pos] ?? 0) + delta) % 10;
      expect(isValidCpf(digits.join(''))).to.equal(false);
    }));
  });
});

describe('isValidCnpj()', () => {
  const table: { given: string; want: boolean }[] = [
    { given: '11222333000181', want: true },
    { given: '11444777000161', want: true },
    { given: '11222333000182', want: false },
    { given: '00000000000000', want: false },
    { given: '1122233300018', want: false },
    { given: '11.222.333/0001-81', want: false },
  ];
  for (const { given, want } of table) it(`says ${want} for ${JSON.stringify(given)}`, () => expect(isValidCnpj(given)).to.equal(want));

  it('accepts the normalized form of a formatted CNPJ', () => {
    expect(isValidCnpj(normalizeDocument('11.222.333/0001-81'))).to.equal(true);
  });
});
